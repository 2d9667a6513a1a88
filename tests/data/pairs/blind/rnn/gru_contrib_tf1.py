# Classifier on zero-padded variable-length sequences: tf.contrib.rnn.GRUCell + dynamic_rnn
# WITHOUT sequence_length (the padding is run through the cell), final state -> dense, Adagrad.
import numpy as np
import tensorflow as tf

np.random.seed(31337)
tf.set_random_seed(31337)

NUM_SEQS = 900
MAX_LEN = 20
MIN_LEN = 8
INPUT_DIM = 1
STATE_SIZE = 20
NUM_CLASSES = 2
BATCH = 30
NUM_EPOCHS = 3
LR = 0.2

# variable-length sequences, zero-padded at the end to MAX_LEN
lengths = np.random.randint(MIN_LEN, MAX_LEN + 1, size=NUM_SEQS)
X = np.zeros((NUM_SEQS, MAX_LEN, INPUT_DIM), dtype=np.float32)
for n, L in enumerate(lengths):
    X[n, :L, 0] = np.random.randn(L)
# class 1 if the (unpadded) values sum to more than 0
Y = (X[:, :, 0].sum(axis=1) > 0).astype(np.int32)

x_in = tf.placeholder(tf.float32, [None, MAX_LEN, INPUT_DIM])
y_in = tf.placeholder(tf.int32, [None])

cell = tf.contrib.rnn.GRUCell(STATE_SIZE)
# note: no sequence_length argument, the cell also reads the zero padding
rnn_outputs, final_state = tf.nn.dynamic_rnn(cell, x_in, dtype=tf.float32)

with tf.variable_scope("softmax"):
    W = tf.get_variable("W", [STATE_SIZE, NUM_CLASSES])
    b = tf.get_variable("b", [NUM_CLASSES], initializer=tf.constant_initializer(0.0))
logits = tf.matmul(final_state, W) + b

total_loss = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_in, logits=logits))
train_step = tf.train.AdagradOptimizer(LR).minimize(total_loss)

preds = tf.argmax(logits, axis=1, output_type=tf.int32)
acc = tf.reduce_mean(tf.cast(tf.equal(preds, y_in), tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    steps_per_epoch = NUM_SEQS // BATCH
    for epoch in range(NUM_EPOCHS):
        training_loss = 0
        training_acc = 0
        for step in range(steps_per_epoch):
            start = step * BATCH
            feed = {x_in: X[start:start + BATCH], y_in: Y[start:start + BATCH]}
            loss_, acc_, _ = sess.run([total_loss, acc, train_step], feed_dict=feed)
            training_loss += loss_
            training_acc += acc_
        print("Epoch", epoch + 1, "- loss:", round(training_loss / steps_per_epoch, 4),
              "- acc:", round(training_acc / steps_per_epoch, 4))
    print("Final train accuracy:", sess.run(acc, feed_dict={x_in: X, y_in: Y}))
