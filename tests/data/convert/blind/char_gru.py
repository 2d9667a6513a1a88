# Tiny char-rnn style GRU model trained with truncated BPTT on a
# synthetic repeated string; GRU state is carried between chunks.
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

tf.set_random_seed(1234)
np.random.seed(1234)

text = "hello world " * 200
chars = sorted(list(set(text)))
vocab_size = len(chars)
char_to_idx = {c: i for i, c in enumerate(chars)}
data = np.array([char_to_idx[c] for c in text], dtype=np.int32)


class Model(object):
    def __init__(self, batch_size, seq_length, vocab_size, rnn_size=64,
                 learning_rate=0.01):
        self.input_data = tf.placeholder(tf.int32, [batch_size, seq_length])
        self.targets = tf.placeholder(tf.int32, [batch_size, seq_length])

        cell = tf.nn.rnn_cell.GRUCell(rnn_size)
        self.initial_state = cell.zero_state(batch_size, tf.float32)

        inputs = tf.one_hot(self.input_data, vocab_size)
        outputs, self.final_state = tf.nn.dynamic_rnn(
            cell, inputs, initial_state=self.initial_state)

        output = tf.reshape(outputs, [-1, rnn_size])
        softmax_w = tf.get_variable("softmax_w", [rnn_size, vocab_size])
        softmax_b = tf.get_variable("softmax_b", [vocab_size])
        self.logits = tf.matmul(output, softmax_w) + softmax_b
        self.probs = tf.nn.softmax(self.logits)

        labels = tf.reshape(self.targets, [-1])
        self.cost = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=self.logits))
        optimizer = tf.train.AdamOptimizer(learning_rate)
        self.train_op = optimizer.minimize(self.cost)


def main():
    batch_size = 4
    seq_length = 16
    num_steps = 30

    # split the text into batch_size parallel streams
    n = (len(data) - 1) // batch_size
    xdata = data[:n * batch_size].reshape(batch_size, n)
    ydata = data[1:n * batch_size + 1].reshape(batch_size, n)
    num_chunks = n // seq_length

    model = Model(batch_size, seq_length, vocab_size)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        state = sess.run(model.initial_state)
        for step in range(num_steps):
            chunk = step % num_chunks
            if chunk == 0:
                state = sess.run(model.initial_state)  # start of the text
            s = chunk * seq_length
            feed = {model.input_data: xdata[:, s:s + seq_length],
                    model.targets: ydata[:, s:s + seq_length],
                    model.initial_state: state}
            train_loss, state, _ = sess.run(
                [model.cost, model.final_state, model.train_op], feed)
            print("step {}/{}, train_loss = {:.3f}".format(
                step + 1, num_steps, train_loss))


if __name__ == '__main__':
    main()
