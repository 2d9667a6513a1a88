"""Small MLP classifier trained with Momentum, keeping an exponential moving
average of the weights (updated after every train step) for evaluation.
"""
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
N_TRAIN, N_TEST, D, HIDDEN, N_CLASSES = 512, 256, 10, 32, 2
BATCH = 32
EPOCHS = 3
LR = 0.05
MOMENTUM = 0.9
EMA_DECAY = 0.99

def make_data(n):
    X = rng.randn(n, D).astype(np.float32)
    y = (X[:, 0] * X[:, 1] + X[:, 2] > 0).astype(np.int32)
    return X, y

X_train, y_train = make_data(N_TRAIN)
X_test, y_test = make_data(N_TEST)

x = tf.placeholder(tf.float32, [None, D])
y = tf.placeholder(tf.int32, [None])

with tf.variable_scope('mlp'):
    W1 = tf.get_variable('W1', [D, HIDDEN])
    b1 = tf.get_variable('b1', [HIDDEN], initializer=tf.zeros_initializer())
    W2 = tf.get_variable('W2', [HIDDEN, N_CLASSES])
    b2 = tf.get_variable('b2', [N_CLASSES], initializer=tf.zeros_initializer())
params = [W1, b1, W2, b2]

def mlp(inputs, W1, b1, W2, b2):
    hidden = tf.nn.relu(tf.matmul(inputs, W1) + b1)
    return tf.matmul(hidden, W2) + b2

def metrics(logits):
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), y), tf.float32))
    return loss, acc

logits = mlp(x, *params)
loss, acc = metrics(logits)

optimizer = tf.train.MomentumOptimizer(learning_rate=LR, momentum=MOMENTUM)
opt_op = optimizer.minimize(loss, var_list=params)

ema = tf.train.ExponentialMovingAverage(decay=EMA_DECAY)
with tf.control_dependencies([opt_op]):
    train_op = ema.apply(params)

# evaluation graph that uses the shadow (averaged) weights
ema_logits = mlp(x, *[ema.average(p) for p in params])
ema_loss, ema_acc = metrics(ema_logits)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    for epoch in range(EPOCHS):
        perm = rng.permutation(N_TRAIN)
        for i in range(0, N_TRAIN, BATCH):
            idx = perm[i:i + BATCH]
            _, l = sess.run([train_op, loss], feed_dict={x: X_train[idx], y: y_train[idx]})
            if step % 10 == 0:
                print('step %d, loss %.4f' % (step, l))
            step += 1
    test_feed = {x: X_test, y: y_test}
    print('test (raw weights): loss %.4f, acc %.4f' % tuple(sess.run([loss, acc], test_feed)))
    print('test (EMA weights): loss %.4f, acc %.4f' % tuple(sess.run([ema_loss, ema_acc], test_feed)))
