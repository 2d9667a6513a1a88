# Binary sequence classification: LSTMCell(forget_bias=0.0) + dynamic_rnn, outputs averaged over time.
import tensorflow as tf
import numpy as np

SEED = 2018
np.random.seed(SEED)
tf.set_random_seed(SEED)

n_samples = 1000
seq_len = 10
n_feat = 1
n_hidden = 24
batch_size = 40
n_epochs = 3
lr = 0.01

# label 1 if more than half of the steps are positive
X = np.random.uniform(-1.0, 1.0, size=(n_samples, seq_len, n_feat)).astype(np.float32)
Y = (np.sum(X[:, :, 0] > 0, axis=1) > seq_len // 2).astype(np.float32).reshape(-1, 1)

x_ph = tf.placeholder(tf.float32, shape=[None, seq_len, n_feat])
y_ph = tf.placeholder(tf.float32, shape=[None, 1])

with tf.variable_scope("rnn_model"):
    # explicit: no forget-gate bias offset
    cell = tf.nn.rnn_cell.LSTMCell(n_hidden, forget_bias=0.0)
    outputs, _ = tf.nn.dynamic_rnn(cell, x_ph, dtype=tf.float32)
    # average the hidden outputs over all time steps
    mean_output = tf.reduce_mean(outputs, axis=1)
    W = tf.get_variable("W", shape=[n_hidden, 1])
    b = tf.get_variable("b", shape=[1], initializer=tf.zeros_initializer())
    logits = tf.matmul(mean_output, W) + b

loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y_ph, logits=logits))
optimizer = tf.train.AdamOptimizer(learning_rate=lr)
train_step = optimizer.minimize(loss)

predicted = tf.cast(logits > 0.0, tf.float32)
accuracy = tf.reduce_mean(tf.cast(tf.equal(predicted, y_ph), tf.float32))

sess = tf.Session()
sess.run(tf.global_variables_initializer())

num_batches = n_samples // batch_size
for epoch in range(n_epochs):
    losses, accs = [], []
    for i in range(num_batches):
        xb = X[i * batch_size:(i + 1) * batch_size]
        yb = Y[i * batch_size:(i + 1) * batch_size]
        _, l, a = sess.run([train_step, loss, accuracy], feed_dict={x_ph: xb, y_ph: yb})
        losses.append(l)
        accs.append(a)
    print("Epoch {}/{}: loss={:.4f} acc={:.4f}".format(epoch + 1, n_epochs, np.mean(losses), np.mean(accs)))

test_loss, test_acc = sess.run([loss, accuracy], feed_dict={x_ph: X, y_ph: Y})
print("Full-data loss={:.4f} acc={:.4f}".format(test_loss, test_acc))
sess.close()
