"""An MLP fed by tf.data in the style of the 2018 tutorials: the dataset is made of placeholders that the
iterator's initializer feeds (`make_initializable_iterator`), `X, Y = iterator.get_next()` is the model's input,
every `sess.run` of the train op pulls a batch with no feed_dict, a report pulls one more, the test set is fed
straight into the iterator's tensors, and the end of the data is `tf.errors.OutOfRangeError`."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=40, help="training steps")
args = parser.parse_args()

np.random.seed(3)
features = np.random.uniform(-1, 1, (400, 4)).astype(np.float32)
targets = (features @ np.array([[0.5], [-1.0], [2.0], [0.3]]) + 0.1).astype(np.float32)
train_x, test_x = features[:320], features[320:]
train_y, test_y = targets[:320], targets[320:]

tf_x = tf.placeholder(tf.float32, [None, 4])
tf_y = tf.placeholder(tf.float32, [None, 1])
dataset = tf.data.Dataset.from_tensor_slices((tf_x, tf_y))
dataset = dataset.batch(32)  # 10 batches an epoch
dataset = dataset.repeat(3)
iterator = dataset.make_initializable_iterator()
X, Y = iterator.get_next()

W1 = tf.Variable(np.random.randn(4, 16).astype(np.float32) * 0.5)
b1 = tf.Variable(tf.zeros([16]))
W2 = tf.Variable(np.random.randn(16, 1).astype(np.float32) * 0.5)
b2 = tf.Variable(tf.zeros([1]))
hidden = tf.nn.relu(tf.matmul(X, W1) + b1)
prediction = tf.matmul(hidden, W2) + b2
loss = tf.reduce_mean(tf.square(prediction - Y))
train_op = tf.train.AdamOptimizer(0.01).minimize(loss)

sess = tf.Session()
sess.run([iterator.initializer, tf.global_variables_initializer()], feed_dict={tf_x: train_x, tf_y: train_y})
for step in range(args.steps):
    try:
        sess.run(train_op)
        if step % 5 == 0:
            batch_loss = sess.run(loss)  # another batch
            test_loss = sess.run(loss, feed_dict={X: test_x, Y: test_y})
            print("step %d batch loss %.6f test loss %.6f" % (step, batch_loss, test_loss))
    except tf.errors.OutOfRangeError:
        print("end of the data at step", step)
        break
