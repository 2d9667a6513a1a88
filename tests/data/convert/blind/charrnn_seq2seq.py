from __future__ import print_function

import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

import argparse
import collections
import time

import numpy as np

np.random.seed(1234)
tf.set_random_seed(1234)


# ---------------------------------------------------------------------------
# utils.py -- TextLoader (synthetic text instead of input.txt)
# ---------------------------------------------------------------------------

SAMPLE_TEXT = (
    "First Citizen:\n"
    "Before we proceed any further, hear me speak.\n\n"
    "All:\n"
    "Speak, speak.\n\n"
    "First Citizen:\n"
    "You are all resolved rather to die than to famish?\n\n"
    "All:\n"
    "Resolved. resolved.\n\n"
    "First Citizen:\n"
    "First, you know Caius Marcius is chief enemy to the people.\n\n"
)


class TextLoader():
    def __init__(self, data, batch_size, seq_length):
        self.batch_size = batch_size
        self.seq_length = seq_length
        self.preprocess(data)
        self.create_batches()
        self.reset_batch_pointer()

    def preprocess(self, data):
        counter = collections.Counter(data)
        count_pairs = sorted(counter.items(), key=lambda x: -x[1])
        self.chars, _ = zip(*count_pairs)
        self.vocab_size = len(self.chars)
        self.vocab = dict(zip(self.chars, range(len(self.chars))))
        self.tensor = np.array(list(map(self.vocab.get, data)))

    def create_batches(self):
        self.num_batches = int(self.tensor.size / (self.batch_size *
                                                   self.seq_length))

        # When the data (tensor) is too small,
        # let's give them a better error message
        if self.num_batches == 0:
            assert False, "Not enough data. Make seq_length and batch_size small."

        self.tensor = self.tensor[:self.num_batches * self.batch_size * self.seq_length]
        xdata = self.tensor
        ydata = np.copy(self.tensor)
        ydata[:-1] = xdata[1:]
        ydata[-1] = xdata[0]
        self.x_batches = np.split(xdata.reshape(self.batch_size, -1),
                                  self.num_batches, 1)
        self.y_batches = np.split(ydata.reshape(self.batch_size, -1),
                                  self.num_batches, 1)

    def next_batch(self):
        x, y = self.x_batches[self.pointer], self.y_batches[self.pointer]
        self.pointer += 1
        return x, y

    def reset_batch_pointer(self):
        self.pointer = 0


# ---------------------------------------------------------------------------
# model.py
# ---------------------------------------------------------------------------

class Model():
    def __init__(self, args, training=True):
        self.args = args
        if not training:
            args.batch_size = 1
            args.seq_length = 1

        cells = []
        for _ in range(args.num_layers):
            cell = tf.nn.rnn_cell.BasicLSTMCell(args.rnn_size)
            cells.append(cell)

        self.cell = cell = tf.nn.rnn_cell.MultiRNNCell(cells, state_is_tuple=True)

        self.input_data = tf.placeholder(
            tf.int32, [args.batch_size, args.seq_length])
        self.targets = tf.placeholder(
            tf.int32, [args.batch_size, args.seq_length])
        self.initial_state = cell.zero_state(args.batch_size, tf.float32)

        with tf.variable_scope('rnnlm'):
            softmax_w = tf.get_variable("softmax_w",
                                        [args.rnn_size, args.vocab_size])
            softmax_b = tf.get_variable("softmax_b", [args.vocab_size])

        embedding = tf.get_variable("embedding", [args.vocab_size, args.rnn_size])
        inputs = tf.nn.embedding_lookup(embedding, self.input_data)

        inputs = tf.split(inputs, args.seq_length, 1)
        inputs = [tf.squeeze(input_, [1]) for input_ in inputs]

        def loop(prev, _):
            prev = tf.matmul(prev, softmax_w) + softmax_b
            prev_symbol = tf.stop_gradient(tf.argmax(prev, 1))
            return tf.nn.embedding_lookup(embedding, prev_symbol)

        legacy_seq2seq = tf.contrib.legacy_seq2seq
        outputs, last_state = legacy_seq2seq.rnn_decoder(
            inputs, self.initial_state, cell,
            loop_function=loop if not training else None, scope='rnnlm')
        output = tf.reshape(tf.concat(outputs, 1), [-1, args.rnn_size])

        self.logits = tf.matmul(output, softmax_w) + softmax_b
        self.probs = tf.nn.softmax(self.logits)
        loss = legacy_seq2seq.sequence_loss_by_example(
            [self.logits],
            [tf.reshape(self.targets, [-1])],
            [tf.ones([args.batch_size * args.seq_length])])
        with tf.name_scope('cost'):
            self.cost = tf.reduce_sum(loss) / args.batch_size / args.seq_length
        self.final_state = last_state
        self.lr = tf.Variable(0.0, trainable=False)
        tvars = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(self.cost, tvars),
                                          args.grad_clip)
        with tf.name_scope('optimizer'):
            optimizer = tf.train.AdamOptimizer(self.lr)
        self.train_op = optimizer.apply_gradients(zip(grads, tvars))


# ---------------------------------------------------------------------------
# train.py
# ---------------------------------------------------------------------------

def main():
    args = argparse.Namespace(
        rnn_size=64,
        num_layers=2,
        seq_length=20,
        batch_size=16,
        num_epochs=5,
        grad_clip=5.,
        learning_rate=0.002,
        decay_rate=0.97,
    )
    train(args)


def train(args):
    data = SAMPLE_TEXT * 40
    data_loader = TextLoader(data, args.batch_size, args.seq_length)
    args.vocab_size = data_loader.vocab_size
    print("vocab size: {}, num batches per epoch: {}".format(
        args.vocab_size, data_loader.num_batches))

    model = Model(args)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for e in range(args.num_epochs):
            sess.run(tf.assign(model.lr,
                               args.learning_rate * (args.decay_rate ** e)))
            data_loader.reset_batch_pointer()
            state = sess.run(model.initial_state)
            for b in range(data_loader.num_batches):
                start = time.time()
                x, y = data_loader.next_batch()
                feed = {model.input_data: x, model.targets: y}
                for i, (c, h) in enumerate(model.initial_state):
                    feed[c] = state[i].c
                    feed[h] = state[i].h
                train_loss, state, _ = sess.run(
                    [model.cost, model.final_state, model.train_op], feed)
                end = time.time()
                if (e * data_loader.num_batches + b) % 20 == 0 \
                        or (e == args.num_epochs - 1 and
                            b == data_loader.num_batches - 1):
                    print("{}/{} (epoch {}), train_loss = {:.3f}, time/batch = {:.3f}"
                          .format(e * data_loader.num_batches + b,
                                  args.num_epochs * data_loader.num_batches,
                                  e, train_loss, end - start))


if __name__ == '__main__':
    main()
