"""Variable-length sequence classification with a 2-layer stacked GRU (dynamic_rnn)."""
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

np.random.seed(7)
tf.set_random_seed(7)

# Parameters
MAX_LEN = 20
MIN_LEN = 5
INPUT_DIM = 3
NUM_HIDDEN = 32
NUM_LAYERS = 2
NUM_CLASSES = 2
BATCH_SIZE = 64
LEARNING_RATE = 0.005
TRAINING_STEPS = 300
DISPLAY_STEP = 50


def generate_data(n):
    """Class 1 if the sum of the first input channel over the valid steps is positive."""
    x = np.zeros((n, MAX_LEN, INPUT_DIM), dtype=np.float32)
    seqlen = np.random.randint(MIN_LEN, MAX_LEN + 1, size=n)
    y = np.zeros((n, NUM_CLASSES), dtype=np.float32)
    for i in range(n):
        seq = np.random.randn(seqlen[i], INPUT_DIM)
        x[i, :seqlen[i]] = seq  # zero padded after seqlen
        y[i, int(seq[:, 0].sum() > 0)] = 1.0
    return x, y, seqlen


train_x, train_y, train_len = generate_data(4000)
test_x, test_y, test_len = generate_data(500)


def next_batch(step):
    start = (step * BATCH_SIZE) % (len(train_x) - BATCH_SIZE)
    end = start + BATCH_SIZE
    return train_x[start:end], train_y[start:end], train_len[start:end]


# tf Graph input
x = tf.placeholder(tf.float32, [None, MAX_LEN, INPUT_DIM], name='x')
y = tf.placeholder(tf.float32, [None, NUM_CLASSES], name='y')
seqlen = tf.placeholder(tf.int32, [None], name='seqlen')

weights = {'out': tf.Variable(tf.random_normal([NUM_HIDDEN, NUM_CLASSES], stddev=0.1))}
biases = {'out': tf.Variable(tf.zeros([NUM_CLASSES]))}


def stacked_gru(x, seqlen, weights, biases):
    cells = [tf.nn.rnn_cell.GRUCell(NUM_HIDDEN) for _ in range(NUM_LAYERS)]
    cell = tf.nn.rnn_cell.MultiRNNCell(cells)
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=seqlen, dtype=tf.float32)
    # state is a tuple with one entry per layer; take the top layer's final state
    return tf.matmul(state[-1], weights['out']) + biases['out']


logits = stacked_gru(x, seqlen, weights, biases)
prediction = tf.nn.softmax(logits)

loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=y))
optimizer = tf.train.RMSPropOptimizer(learning_rate=LEARNING_RATE)
train_op = optimizer.minimize(loss_op)

correct_pred = tf.equal(tf.argmax(prediction, 1), tf.argmax(y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for step in range(1, TRAINING_STEPS + 1):
        batch_x, batch_y, batch_len = next_batch(step)
        sess.run(train_op, feed_dict={x: batch_x, y: batch_y, seqlen: batch_len})
        if step % DISPLAY_STEP == 0 or step == 1:
            loss, acc = sess.run([loss_op, accuracy],
                                 feed_dict={x: batch_x, y: batch_y, seqlen: batch_len})
            print('Step ' + str(step) + ', Minibatch Loss= ' + '{:.4f}'.format(loss) +
                  ', Training Accuracy= ' + '{:.3f}'.format(acc))
    print('Optimization Finished!')
    print('Testing Accuracy:',
          sess.run(accuracy, feed_dict={x: test_x, y: test_y, seqlen: test_len}))
