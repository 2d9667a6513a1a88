"""A TF1 decoder built with tf.contrib.seq2seq, which the legacy runtime does not provide."""
import tensorflow as tf

cell = tf.nn.rnn_cell.BasicLSTMCell(8)
helper = tf.contrib.seq2seq.TrainingHelper(tf.zeros([2, 3, 4]), [3, 3])
