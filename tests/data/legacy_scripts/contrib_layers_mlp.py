"""The MLP of tests/data/pairs/tf1_mlp.py written with tf.contrib.layers.fully_connected (TF1 style: `import
tensorflow as tf`, tf.contrib, Adam); pairs with tests/data/pairs/tf2_mlp_keras.py."""
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

tf.set_random_seed(1)
mnist = input_data.read_data_sets("MNIST_data", one_hot=True)
x = tf.placeholder(tf.float32, [None, 784], name="x")
y = tf.placeholder(tf.float32, [None, 10], name="y")
init = tf.random_normal_initializer(stddev=0.1)
h = x
for _ in range(3):
    h = tf.contrib.layers.fully_connected(h, 32, weights_initializer=init)
logits = tf.contrib.layers.fully_connected(h, 10, activation_fn=None, weights_initializer=init)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
train_op = tf.train.AdamOptimizer(learning_rate=0.001).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(mnist.train.num_examples // 64):
        bx, by = mnist.train.next_batch(64)
        sess.run(train_op, feed_dict={x: bx, y: by})
