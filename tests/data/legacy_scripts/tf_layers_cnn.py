"""A TF1 CNN in the style of the public tf.layers tutorials (`import tensorflow as tf`, tf.layers.conv2d /
max_pooling2d / batch_normalization / dense / dropout, the train op after UPDATE_OPS, a bool placeholder for
training); under Keras 3 without tf-keras, tf.layers comes from tfcompare's legacy runtime."""
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

tf.set_random_seed(1)
mnist = input_data.read_data_sets("MNIST_data", one_hot=True)
x = tf.placeholder(tf.float32, [None, 784], name="x")
y = tf.placeholder(tf.float32, [None, 10], name="y")
training = tf.placeholder(tf.bool, name="training")
image = tf.reshape(x, [-1, 28, 28, 1])
conv = tf.layers.conv2d(image, 8, 5, padding="same", activation=tf.nn.relu)
pool = tf.layers.max_pooling2d(conv, 2, 2)
norm = tf.layers.batch_normalization(pool, training=training)
conv = tf.layers.conv2d(norm, 16, 3, strides=2, activation=tf.nn.relu)
flat = tf.layers.flatten(conv)
hidden = tf.layers.dense(flat, 32, activation=tf.nn.relu)
hidden = tf.layers.dropout(hidden, rate=0.25, training=training)
logits = tf.layers.dense(hidden, 10)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
    train_op = tf.train.AdamOptimizer(learning_rate=0.001).minimize(loss)
print("variables:", " ".join(f"{v.op.name}{v.shape.as_list()}" for v in tf.global_variables()))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(mnist.train.num_examples // 64):
        bx, by = mnist.train.next_batch(64)
        sess.run(train_op, feed_dict={x: bx, y: by, training: True})
