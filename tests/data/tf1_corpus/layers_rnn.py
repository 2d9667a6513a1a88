"""tf.layers and tf.nn.rnn_cell: renamed by tf_upgrade_v2 into compat.v1 names Keras 3 no longer serves."""
import tensorflow as tf

inputs = tf.placeholder(tf.float32, [None, 10, 3])
hidden = tf.layers.dense(inputs, 16, activation=tf.nn.relu)
cell = tf.nn.rnn_cell.LSTMCell(32)
outputs, state = tf.nn.dynamic_rnn(cell, hidden, dtype=tf.float32)
dropped = tf.nn.dropout(outputs, keep_prob=0.8)
