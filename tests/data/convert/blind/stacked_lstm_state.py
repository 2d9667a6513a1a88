"""char-rnn style 2-layer LSTM on a repeated pangram, carrying state between batches."""
from __future__ import print_function
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

np.random.seed(7)
tf.set_random_seed(7)

text = "the quick brown fox jumps over the lazy dog. " * 60
chars = sorted(set(text))
vocab_size = len(chars)
char2id = {c: i for i, c in enumerate(chars)}
data = np.array([char2id[c] for c in text], dtype=np.int32)

batch_size, seq_length = 16, 25
rnn_size, num_layers = 64, 2
base_lr, decay_rate, num_epochs, grad_clip = 0.01, 0.95, 20, 5.0

num_batches = len(data) // (batch_size * seq_length)
xdata = data[:num_batches * batch_size * seq_length]
ydata = np.copy(xdata)
ydata[:-1] = xdata[1:]
ydata[-1] = xdata[0]
x_batches = np.split(xdata.reshape(batch_size, -1), num_batches, 1)
y_batches = np.split(ydata.reshape(batch_size, -1), num_batches, 1)


class Model(object):
    def __init__(self, batch_size, seq_length, training=True):
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [tf.nn.rnn_cell.BasicLSTMCell(rnn_size) for _ in range(num_layers)])
        self.cell = cell
        self.input_data = tf.placeholder(tf.int32, [batch_size, seq_length])
        self.targets = tf.placeholder(tf.int32, [batch_size, seq_length])
        self.initial_state = cell.zero_state(batch_size, tf.float32)

        softmax_w = tf.get_variable("softmax_w", [rnn_size, vocab_size])
        softmax_b = tf.get_variable("softmax_b", [vocab_size])
        embedding = tf.get_variable("embedding", [vocab_size, rnn_size])
        inputs = tf.nn.embedding_lookup(embedding, self.input_data)

        outputs, self.final_state = tf.nn.dynamic_rnn(
            cell, inputs, initial_state=self.initial_state, dtype=tf.float32)
        output = tf.reshape(outputs, [-1, rnn_size])
        self.logits = tf.matmul(output, softmax_w) + softmax_b
        self.probs = tf.nn.softmax(self.logits)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.reshape(self.targets, [-1]), logits=self.logits)
        self.cost = tf.reduce_mean(loss)

        if not training:
            return
        self.lr = tf.Variable(0.0, trainable=False)
        tvars = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(self.cost, tvars), grad_clip)
        optimizer = tf.train.AdamOptimizer(self.lr)
        self.train_op = optimizer.apply_gradients(zip(grads, tvars))


with tf.variable_scope("rnnlm"):
    model = Model(batch_size, seq_length, training=True)
with tf.variable_scope("rnnlm", reuse=True):
    sample_model = Model(1, 1, training=False)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    for e in range(num_epochs):
        sess.run(tf.assign(model.lr, base_lr * (decay_rate ** e)))
        state = sess.run(model.initial_state)
        for b in range(num_batches):
            feed = {model.input_data: x_batches[b], model.targets: y_batches[b]}
            for i, (c, h) in enumerate(model.initial_state):
                feed[c] = state[i].c
                feed[h] = state[i].h
            train_loss, state, _ = sess.run(
                [model.cost, model.final_state, model.train_op], feed)
            if step % 20 == 0:
                print("{}/{} (epoch {}), train_loss = {:.3f}".format(
                    step, num_epochs * num_batches, e, train_loss))
            step += 1

    # greedy sampling, one character at a time, starting from the zero state
    prime = "t"
    state = sess.run(sample_model.cell.zero_state(1, tf.float32))
    ret = prime
    char = prime
    for n in range(50):
        x = np.zeros((1, 1), dtype=np.int32)
        x[0, 0] = char2id[char]
        feed = {sample_model.input_data: x}
        for i, (c, h) in enumerate(sample_model.initial_state):
            feed[c] = state[i].c
            feed[h] = state[i].h
        probs, state = sess.run([sample_model.probs, sample_model.final_state], feed)
        char = chars[int(np.argmax(probs[0]))]
        ret += char
    print("Sample: " + repr(ret))
