"""tf.contrib through aliases that tf_upgrade_v2 does not see (written for tfcompare's tests)."""
import tensorflow as tf
from tensorflow.contrib import slim
import tensorflow.contrib.rnn as rnn

net = slim.fully_connected(tf.zeros([2, 3]), 4)
cell = rnn.BasicLSTMCell(8)
