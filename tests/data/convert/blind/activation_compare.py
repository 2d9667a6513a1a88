"""Compare activation functions on a 1-D regression problem (y = sin(x)).

Each network is built with tf.get_variable inside its own variable scope and
trained with plain gradient descent; losses are stored per network.
"""
import numpy as np
import tensorflow as tf

tf.set_random_seed(3)
np.random.seed(3)

BATCH_SIZE = 32
STEPS = 500
PRINT_EVERY = 100

# fake data
x_data = np.linspace(-3, 3, 600)[:, np.newaxis].astype(np.float32)
y_data = (np.sin(x_data) + np.random.normal(0, 0.1, x_data.shape)).astype(np.float32)


class Net(object):
    def __init__(self, activation, name, n_hidden=30, lr=0.05):
        self.name = name
        with tf.variable_scope(name):
            self.x = tf.placeholder(tf.float32, [None, 1])
            self.y = tf.placeholder(tf.float32, [None, 1])
            init = tf.random_normal_initializer(0., 0.5)
            w1 = tf.get_variable('w1', [1, n_hidden], initializer=init)
            b1 = tf.get_variable('b1', [n_hidden], initializer=tf.constant_initializer(0.1))
            w2 = tf.get_variable('w2', [n_hidden, 1], initializer=init)
            b2 = tf.get_variable('b2', [1], initializer=tf.constant_initializer(0.))
            hidden = activation(tf.matmul(self.x, w1) + b1)
            self.output = tf.matmul(hidden, w2) + b2
            self.loss = tf.reduce_mean(tf.square(self.y - self.output))
            self.train_op = tf.train.GradientDescentOptimizer(lr).minimize(
                self.loss, var_list=[w1, b1, w2, b2])


nets = [Net(tf.nn.relu, 'relu'),
        Net(tf.nn.tanh, 'tanh'),
        Net(tf.nn.sigmoid, 'sigmoid'),
        Net(tf.nn.tanh, 'tanh_wide', n_hidden=100)]
losses_his = [[] for _ in nets]   # record loss for every net

sess = tf.Session()
sess.run(tf.global_variables_initializer())

for step in range(1, STEPS + 1):
    idx = np.random.randint(0, len(x_data), BATCH_SIZE)
    b_x, b_y = x_data[idx], y_data[idx]
    for net, l_his in zip(nets, losses_his):
        _, l = sess.run([net.train_op, net.loss], feed_dict={net.x: b_x, net.y: b_y})
        l_his.append(l)
    if step % PRINT_EVERY == 0:
        msg = ', '.join('%s=%.4f' % (net.name, np.mean(h[-PRINT_EVERY:]))
                        for net, h in zip(nets, losses_his))
        print('step %d: %s' % (step, msg))

# loss on the full data set after training
for net in nets:
    full_loss = sess.run(net.loss, feed_dict={net.x: x_data, net.y: y_data})
    print('%-10s final MSE: %.5f' % (net.name, full_loss))
sess.close()
