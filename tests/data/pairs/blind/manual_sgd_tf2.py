"""Linear regression trained with hand-written gradient descent (TF2).

Gradients come from tf.GradientTape and the update is assign_sub on the variables.
"""
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
N, D = 200, 3
BATCH = 20
EPOCHS = 4
LR = 0.1

true_w = np.array([2.0, -3.0, 0.5])
X_data = rng.randn(N, D).astype(np.float32)
y_data = (X_data.dot(true_w) + 0.5 + 0.1 * rng.randn(N)).astype(np.float32)  # (N,)

W = tf.Variable(tf.random.normal([D, 1], stddev=0.1), name='W')
b = tf.Variable(tf.zeros([1]), name='b')


def predict(x):
    return tf.squeeze(tf.matmul(x, W), axis=1) + b


def compute_loss(x, y):
    return tf.reduce_mean(tf.square(predict(x) - y))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = compute_loss(x, y)
    gW, gb = tape.gradient(loss, [W, b])
    W.assign_sub(LR * gW)
    b.assign_sub(LR * gb)
    return loss


step = 0
for epoch in range(EPOCHS):
    perm = rng.permutation(N)
    for i in range(0, N, BATCH):
        idx = perm[i:i + BATCH]
        l = train_step(tf.constant(X_data[idx]), tf.constant(y_data[idx]))
        if step % 10 == 0:
            print('step %d, loss %.5f' % (step, float(l)))
        step += 1
print('W', W.numpy().ravel(), 'b', b.numpy())
print('full-data loss %.5f' % float(compute_loss(tf.constant(X_data), tf.constant(y_data))))
