# Sequence classification with BasicLSTMCell + dynamic_rnn (TF 1.x tutorial style).
import tensorflow as tf
import numpy as np

np.random.seed(1234)
tf.set_random_seed(1234)

# Parameters
learning_rate = 0.005
training_epochs = 3
batch_size = 50
display_step = 5

# Network parameters
num_examples = 1000
timesteps = 16
num_input = 2
num_hidden = 32
num_classes = 3

# Synthetic data: the label is which third of the sequence holds the max of feature 0
X_train = np.random.randn(num_examples, timesteps, num_input).astype(np.float32)
labels = np.argmax(X_train[:, :, 0], axis=1) * num_classes // timesteps
Y_train = np.eye(num_classes)[labels].astype(np.float32)

# tf Graph input
X = tf.placeholder("float", [None, timesteps, num_input])
Y = tf.placeholder("float", [None, num_classes])

# Define weights
weights = {
    'out': tf.Variable(tf.random_normal([num_hidden, num_classes]))
}
biases = {
    'out': tf.Variable(tf.random_normal([num_classes]))
}


def RNN(x, weights, biases):
    lstm_cell = tf.nn.rnn_cell.BasicLSTMCell(num_hidden)
    outputs, states = tf.nn.dynamic_rnn(lstm_cell, x, dtype=tf.float32)
    # outputs: [batch, timesteps, num_hidden]; take the last time step
    last = outputs[:, -1, :]
    return tf.matmul(last, weights['out']) + biases['out']


logits = RNN(X, weights, biases)
prediction = tf.nn.softmax(logits)

loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
    logits=logits, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate)
train_op = optimizer.minimize(loss_op)

correct_pred = tf.equal(tf.argmax(prediction, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    total_batch = num_examples // batch_size
    for epoch in range(training_epochs):
        avg_loss = 0.
        avg_acc = 0.
        # batches are taken in order, no shuffling
        for i in range(total_batch):
            batch_x = X_train[i * batch_size:(i + 1) * batch_size]
            batch_y = Y_train[i * batch_size:(i + 1) * batch_size]
            _, l, acc = sess.run([train_op, loss_op, accuracy],
                                 feed_dict={X: batch_x, Y: batch_y})
            avg_loss += l / total_batch
            avg_acc += acc / total_batch
            if i % display_step == 0:
                print("Step " + str(i) + ", Minibatch Loss= " +
                      "{:.4f}".format(l) + ", Training Accuracy= " +
                      "{:.3f}".format(acc))
        print("Epoch:", '%04d' % (epoch + 1), "loss=", "{:.6f}".format(avg_loss),
              "accuracy=", "{:.4f}".format(avg_acc))
    print("Optimization Finished!")
    print("Training Accuracy:",
          sess.run(accuracy, feed_dict={X: X_train, Y: Y_train}))
