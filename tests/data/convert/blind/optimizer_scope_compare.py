"""Compare several TF optimizers on a 3-class toy problem.

The Net class receives an optimizer class plus its keyword settings, and
each instance lives in its own variable scope so the weights do not clash.
"""
import numpy as np
import tensorflow as tf

tf.set_random_seed(2)
np.random.seed(2)

LR = 0.01
BATCH_SIZE = 32
STEPS = 400
N_CLASSES = 3

# fake data: three gaussian clusters in 4-D, one-hot labels
centers = np.random.uniform(-3, 3, (N_CLASSES, 4))
labels = np.random.randint(0, N_CLASSES, 900)
data_x = (centers[labels] + np.random.randn(900, 4)).astype(np.float32)
data_y = np.eye(N_CLASSES)[labels].astype(np.float32)


class Net:
    def __init__(self, name, opt_class, **opt_kwargs):
        self.name = name
        with tf.variable_scope(name):
            self.x = tf.placeholder(tf.float32, [None, 4], name='x')
            self.y = tf.placeholder(tf.float32, [None, N_CLASSES], name='y')
            l1 = tf.layers.dense(self.x, 32, tf.nn.relu, name='hidden1')
            l2 = tf.layers.dense(l1, 32, tf.nn.relu, name='hidden2')
            l3 = tf.layers.dense(l2, 16, tf.nn.relu, name='hidden3')
            self.logits = tf.layers.dense(l3, N_CLASSES, name='logits')
            self.loss = tf.reduce_mean(
                tf.nn.softmax_cross_entropy_with_logits(labels=self.y, logits=self.logits))
            # only train the variables that belong to this scope
            t_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=name)
            self.optimizer = opt_class(LR, **opt_kwargs)
            self.train_op = self.optimizer.minimize(self.loss, var_list=t_vars)
            correct = tf.equal(tf.argmax(self.logits, 1), tf.argmax(self.y, 1))
            self.accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))


nets = [
    Net('sgd', tf.train.GradientDescentOptimizer),
    Net('momentum', tf.train.MomentumOptimizer, momentum=0.9),
    Net('rmsprop', tf.train.RMSPropOptimizer, decay=0.9),
    Net('adam', tf.train.AdamOptimizer, beta1=0.9, beta2=0.99),
]

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(STEPS):
        idx = np.random.choice(len(data_x), BATCH_SIZE, replace=False)
        b_x, b_y = data_x[idx], data_y[idx]
        for net in nets:
            _, l = sess.run([net.train_op, net.loss], {net.x: b_x, net.y: b_y})
            if step % 100 == 0:
                print('step %3d  %-9s loss %.4f' % (step, net.name, l))

    print('--- final results ---')
    for net in nets:
        l, acc = sess.run([net.loss, net.accuracy], {net.x: data_x, net.y: data_y})
        print('%-9s loss %.4f  accuracy %.3f' % (net.name, l, acc))
