"""tf1_logreg.py with a learning rate of 1e38: the first update puts the weights near float32's largest value,
so the second step's logits overflow and its loss is not finite (NaN or inf)."""
import tensorflow.compat.v1 as tf
from tensorflow.examples.tutorials.mnist import input_data

tf.disable_v2_behavior()

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
x = tf.placeholder(tf.float32, [None, 784])
y = tf.placeholder(tf.float32, [None, 10])
W = tf.Variable(tf.zeros([784, 10]))
b = tf.Variable(tf.zeros([10]))
logits = tf.matmul(x, W) + b
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
train = tf.train.GradientDescentOptimizer(1e38).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1000):
        batch_x, batch_y = mnist.train.next_batch(100)
        _, value = sess.run([train, loss], feed_dict={x: batch_x, y: batch_y})
        if step % 100 == 0:
            print("step", step, "loss", value)
