"""MLP regression that keeps track of every layer's pre-activations and
activations, so we can look at their statistics after training."""
import numpy as np
import tensorflow as tf

np.random.seed(0)

# synthetic regression data: y = sin(x1) + x2^2 - 0.5*x3 + noise
N = 1000
X_data = np.random.uniform(-2, 2, size=(N, 3)).astype(np.float32)
y_data = (np.sin(X_data[:, 0]) + X_data[:, 1] ** 2 - 0.5 * X_data[:, 2]
          + 0.1 * np.random.randn(N)).reshape(-1, 1).astype(np.float32)

X_train, y_train = X_data[:800], y_data[:800]
X_test, y_test = X_data[800:], y_data[800:]


class Net(object):
    def __init__(self, layer_sizes, learning_rate=0.01):
        self.x = tf.placeholder(tf.float32, [None, layer_sizes[0]], name='x')
        self.y = tf.placeholder(tf.float32, [None, 1], name='y')

        self.weights = []
        self.biases = []
        self.pre = []
        self.acts = []

        h = self.x
        for i in range(1, len(layer_sizes)):
            n_in, n_out = layer_sizes[i - 1], layer_sizes[i]
            W = tf.Variable(tf.random_normal([n_in, n_out], stddev=np.sqrt(2.0 / n_in)),
                            name='W%d' % i)
            b = tf.Variable(tf.zeros([n_out]), name='b%d' % i)
            self.weights.append(W)
            self.biases.append(b)

            z = tf.matmul(h, W) + b
            a = tf.nn.relu(z)
            self.pre.append(z)
            self.acts.append(a)
            h = a

        # linear output layer
        W_out = tf.Variable(tf.random_normal([layer_sizes[-1], 1], stddev=0.1), name='W_out')
        b_out = tf.Variable(tf.zeros([1]), name='b_out')
        self.output = tf.matmul(h, W_out) + b_out

        self.loss = tf.reduce_mean(tf.square(self.output - self.y))
        self.optimizer = tf.train.GradientDescentOptimizer(learning_rate)
        self.train_op = self.optimizer.minimize(self.loss)


net = Net([3, 32, 32, 16], learning_rate=0.02)

batch_size = 64
n_steps = 1000

sess = tf.Session()
sess.run(tf.global_variables_initializer())

for step in range(n_steps):
    idx = np.random.choice(len(X_train), batch_size, replace=False)
    _, l = sess.run([net.train_op, net.loss],
                    feed_dict={net.x: X_train[idx], net.y: y_train[idx]})
    if step % 100 == 0:
        test_l = sess.run(net.loss, feed_dict={net.x: X_test, net.y: y_test})
        print('step %d, train loss %.4f, test loss %.4f' % (step, l, test_l))

# fetch the loss together with the lists of activations and pre-activations
loss_val, acts_val, pre_val = sess.run([net.loss, net.acts, net.pre],
                                       feed_dict={net.x: X_test, net.y: y_test})
print('final test loss: %.4f' % loss_val)
for i, (a, z) in enumerate(zip(acts_val, pre_val)):
    dead = np.mean(np.all(a == 0, axis=0))
    print('layer %d: pre mean %.4f std %.4f | act mean %.4f std %.4f | dead units %.2f'
          % (i + 1, z.mean(), z.std(), a.mean(), a.std(), dead))

sess.close()
