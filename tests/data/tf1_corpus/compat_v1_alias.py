"""Already on tf.compat.v1, eager switched off (written for tfcompare's tests)."""
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
x = tf.placeholder(tf.float32, [None, 2])
y = tf.nn.softmax(tf.matmul(x, tf.ones([2, 2])))
opt = tf.train.GradientDescentOptimizer(0.1)
