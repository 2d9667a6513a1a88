"""
Compare different optimizers on the same small regression network.

Each optimizer gets its own copy of the network (class Net); all of them are
trained side by side on the same mini-batches and their loss histories are
recorded.
"""
from __future__ import print_function

import numpy as np
import tensorflow as tf

tf.set_random_seed(1)
np.random.seed(1)

LR = 0.01
BATCH_SIZE = 32
TRAIN_STEPS = 300

# fake data: y = x^2 + noise
x = np.linspace(-1, 1, 1000)[:, np.newaxis]
noise = np.random.normal(0, 0.1, size=x.shape)
y = np.power(x, 2) + noise


class Net:
    def __init__(self, opt, name, **kwargs):
        self.name = name
        with tf.variable_scope(name):
            self.x = tf.placeholder(tf.float32, [None, 1])
            self.y = tf.placeholder(tf.float32, [None, 1])
            l = tf.layers.dense(self.x, 20, tf.nn.relu)
            out = tf.layers.dense(l, 1)
            self.loss = tf.losses.mean_squared_error(self.y, out)
            self.train = opt(LR, **kwargs).minimize(self.loss)


# different nets
net_SGD = Net(tf.train.GradientDescentOptimizer, 'SGD')
net_Momentum = Net(tf.train.MomentumOptimizer, 'Momentum', momentum=0.9)
net_RMSprop = Net(tf.train.RMSPropOptimizer, 'RMSprop')
net_Adam = Net(tf.train.AdamOptimizer, 'Adam')
nets = [net_SGD, net_Momentum, net_RMSprop, net_Adam]

sess = tf.Session()
sess.run(tf.global_variables_initializer())

losses_his = [[], [], [], []]  # record loss

# training
for step in range(TRAIN_STEPS):
    index = np.random.randint(0, x.shape[0], BATCH_SIZE)
    b_x = x[index]
    b_y = y[index]

    for net, l_his in zip(nets, losses_his):
        _, l = sess.run([net.train, net.loss], {net.x: b_x, net.y: b_y})
        l_his.append(l)  # loss recoder

    if step % 50 == 0:
        print('step %d | ' % step +
              ' | '.join('%s: %.4f' % (net.name, h[-1]) for net, h in zip(nets, losses_his)))

# final full-data loss for each optimizer
print('\nFinal MSE on all data:')
for net, l_his in zip(nets, losses_his):
    full_loss = sess.run(net.loss, {net.x: x, net.y: y})
    print('%-10s full-data loss: %.4f   (mean of last 50 batch losses: %.4f)'
          % (net.name, full_loss, np.mean(l_his[-50:])))

sess.close()
