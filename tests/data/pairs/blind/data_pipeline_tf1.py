"""Softmax MLP fed by a one-shot tf.data iterator (TF 1.x style, no feed_dict)."""
import numpy as np
import tensorflow as tf

np.random.seed(42)
tf.set_random_seed(42)

N, D, H, C = 640, 20, 32, 4
BATCH_SIZE = 32
EPOCHS = 2
LEARNING_RATE = 0.001

# synthetic data: labels from a random linear teacher
X = np.random.randn(N, D).astype(np.float32)
W_teacher = np.random.randn(D, C).astype(np.float32)
y = np.argmax(X.dot(W_teacher), axis=1).astype(np.int64)

# input pipeline
dataset = tf.data.Dataset.from_tensor_slices((X, y))
dataset = dataset.repeat(EPOCHS).batch(BATCH_SIZE)
iterator = dataset.make_one_shot_iterator()
features, labels = iterator.get_next()

# model
W1 = tf.get_variable("W1", [D, H])
b1 = tf.get_variable("b1", [H], initializer=tf.zeros_initializer())
W2 = tf.get_variable("W2", [H, C])
b2 = tf.get_variable("b2", [C], initializer=tf.zeros_initializer())

hidden = tf.nn.relu(tf.matmul(features, W1) + b1)
logits = tf.matmul(hidden, W2) + b2

loss = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
accuracy = tf.reduce_mean(
    tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))

global_step = tf.train.get_or_create_global_step()
optimizer = tf.train.AdamOptimizer(learning_rate=LEARNING_RATE)
train_op = optimizer.minimize(loss, global_step=global_step)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    while True:
        try:
            _, loss_val, acc_val = sess.run([train_op, loss, accuracy])
        except tf.errors.OutOfRangeError:
            print("End of dataset after %d steps" % step)
            break
        if step % 5 == 0:
            print("step %3d  loss %.5f  acc %.3f" % (step, loss_val, acc_val))
        step += 1
