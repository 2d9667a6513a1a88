"""Stateful LSTM regression (TF2): predict cos(t) from a noisy sin(t) signal.

Truncated BPTT over consecutive windows: the final LSTM state returned by one
train-step call is carried in Python and passed as the initial state of the next.
"""
import numpy as np
import tensorflow as tf

# ---- data -----------------------------------------------------------------
rng = np.random.RandomState(0)
BATCH = 8          # parallel streams
WINDOW = 10        # unrolled time steps per call
N_WINDOWS = 15     # windows per epoch
N_EPOCHS = 3
HIDDEN = 16
LR = 0.01

seq_len = WINDOW * N_WINDOWS
phase = rng.uniform(0, 2 * np.pi, size=(BATCH, 1))
t = np.arange(seq_len)[None, :] * 0.1 + phase
noise = 0.05 * rng.randn(BATCH, seq_len)
x_data = (np.sin(t) + noise).astype(np.float32)[:, :, None]   # (B, L, 1)
y_data = np.cos(t).astype(np.float32)[:, :, None]             # (B, L, 1)


# ---- model ----------------------------------------------------------------
class LSTMRegressor(tf.Module):
    """Same parametrisation as the TF1 graph: one fused kernel on [x, h],
    gate order (i, j, f, o) and a constant forget bias of 1.0."""

    def __init__(self, hidden, name=None):
        super().__init__(name=name)
        glorot = tf.keras.initializers.GlorotUniform()
        self.hidden = hidden
        self.W = tf.Variable(glorot([1 + hidden, 4 * hidden]), name='lstm_kernel')
        self.b = tf.Variable(tf.zeros([4 * hidden]), name='lstm_bias')
        self.W_out = tf.Variable(glorot([hidden, 1]), name='out_kernel')
        self.b_out = tf.Variable(tf.zeros([1]), name='out_bias')

    def __call__(self, x, c, h):
        outputs = []
        for x_t in tf.unstack(x, axis=1):
            gates = tf.matmul(tf.concat([x_t, h], axis=1), self.W) + self.b
            i, j, f, o = tf.split(gates, 4, axis=1)
            c = c * tf.sigmoid(f + 1.0) + tf.sigmoid(i) * tf.tanh(j)
            h = tf.tanh(c) * tf.sigmoid(o)
            outputs.append(h)
        rnn_out = tf.reshape(tf.stack(outputs, axis=1), [-1, self.hidden])
        pred = tf.reshape(tf.matmul(rnn_out, self.W_out) + self.b_out,
                          [BATCH, WINDOW, 1])
        return pred, c, h


model = LSTMRegressor(HIDDEN)
# TF1 AdamOptimizer defaults: beta1=0.9, beta2=0.999, epsilon=1e-8
optimizer = tf.keras.optimizers.Adam(learning_rate=LR, beta_1=0.9,
                                     beta_2=0.999, epsilon=1e-8)


@tf.function
def train_step(x, y, c, h):
    with tf.GradientTape() as tape:
        pred, c_new, h_new = model(x, c, h)
        loss = tf.reduce_mean(tf.square(pred - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, c_new, h_new


# ---- training -------------------------------------------------------------
step = 0
for epoch in range(N_EPOCHS):
    c = tf.zeros([BATCH, HIDDEN])
    h = tf.zeros([BATCH, HIDDEN])
    for k in range(N_WINDOWS):
        sl = slice(k * WINDOW, (k + 1) * WINDOW)
        l, c, h = train_step(tf.constant(x_data[:, sl]), tf.constant(y_data[:, sl]), c, h)
        if step % 10 == 0:
            print('step %d, loss %.5f' % (step, float(l)))
        step += 1
print('final loss %.5f' % float(l))
