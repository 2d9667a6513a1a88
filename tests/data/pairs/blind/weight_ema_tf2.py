"""Small MLP classifier trained with Momentum (TF2), keeping an exponential moving
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


class MLP(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        glorot = tf.keras.initializers.GlorotUniform()
        self.W1 = tf.Variable(glorot([D, HIDDEN]), name='W1')
        self.b1 = tf.Variable(tf.zeros([HIDDEN]), name='b1')
        self.W2 = tf.Variable(glorot([HIDDEN, N_CLASSES]), name='W2')
        self.b2 = tf.Variable(tf.zeros([N_CLASSES]), name='b2')
        self.params = [self.W1, self.b1, self.W2, self.b2]


def mlp(inputs, W1, b1, W2, b2):
    hidden = tf.nn.relu(tf.matmul(inputs, W1) + b1)
    return tf.matmul(hidden, W2) + b2


def metrics(logits, y):
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), y), tf.float32))
    return loss, acc


model = MLP()
# tf.train.MomentumOptimizer(lr, 0.9) == Keras SGD with momentum=0.9, nesterov=False
optimizer = tf.keras.optimizers.SGD(learning_rate=LR, momentum=MOMENTUM, nesterov=False)

# shadow variables, initialised (like tf.train.ExponentialMovingAverage) to the
# variables' initial values
ema_params = [tf.Variable(p, trainable=False, name=p.name.split(':')[0] + '_ema')
              for p in model.params]


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss, _ = metrics(mlp(x, *model.params), y)
    grads = tape.gradient(loss, model.params)
    optimizer.apply_gradients(zip(grads, model.params))
    # EMA update after the optimizer step: shadow -= (1 - decay) * (shadow - var)
    for s, p in zip(ema_params, model.params):
        s.assign_sub((1.0 - EMA_DECAY) * (s - p))
    return loss


step = 0
for epoch in range(EPOCHS):
    perm = rng.permutation(N_TRAIN)
    for i in range(0, N_TRAIN, BATCH):
        idx = perm[i:i + BATCH]
        l = train_step(tf.constant(X_train[idx]), tf.constant(y_train[idx]))
        if step % 10 == 0:
            print('step %d, loss %.4f' % (step, float(l)))
        step += 1

X_t, y_t = tf.constant(X_test), tf.constant(y_test)
print('test (raw weights): loss %.4f, acc %.4f' % tuple(float(v) for v in metrics(mlp(X_t, *model.params), y_t)))
print('test (EMA weights): loss %.4f, acc %.4f' % tuple(float(v) for v in metrics(mlp(X_t, *ema_params), y_t)))
