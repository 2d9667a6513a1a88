# TF2 port of momentum_nesterov_tf1.py: Keras layers + GradientTape train step
import numpy as np
import tensorflow as tf
import keras

# ---- synthetic data (same seed / same draws as the TF1 script) ----
rng = np.random.RandomState(42)
N, D, H, C = 640, 20, 64, 4
BATCH, STEPS = 32, 60
X_data = rng.randn(N, D).astype(np.float32)
W_true = rng.randn(D, C).astype(np.float32)
y_data = np.argmax(X_data.dot(W_true) + 0.5 * rng.randn(N, C), axis=1)
Y_data = np.eye(C, dtype=np.float32)[y_data]  # one-hot

W1_0 = (rng.randn(D, H) * np.sqrt(2.0 / D)).astype(np.float32)
W2_0 = (rng.randn(H, H) * np.sqrt(2.0 / H)).astype(np.float32)
W3_0 = (rng.randn(H, C) * np.sqrt(1.0 / H)).astype(np.float32)

# ---- model ----
model = keras.Sequential([
    keras.Input(shape=(D,)),
    keras.layers.Dense(H, activation='relu'),
    keras.layers.Dense(H, activation='relu'),
    keras.layers.Dense(C),  # logits
])
model.set_weights([W1_0, np.zeros(H, np.float32),
                   W2_0, np.zeros(H, np.float32),
                   W3_0, np.zeros(C, np.float32)])

# tf.train.exponential_decay(0.1, global_step, 10, 0.9), staircase=False
lr_schedule = keras.optimizers.schedules.ExponentialDecay(
    initial_learning_rate=0.1, decay_steps=10, decay_rate=0.9, staircase=False)
# optimizer.iterations plays the role of global_step
optimizer = keras.optimizers.SGD(learning_rate=lr_schedule, momentum=0.9,
                                 nesterov=True)
loss_fn = keras.losses.CategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(xb, yb):
    with tf.GradientTape() as tape:
        logits = model(xb, training=True)
        loss = loss_fn(yb, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


# ---- training ----
for step in range(STEPS):
    start = (step * BATCH) % N
    l = train_step(X_data[start:start + BATCH], Y_data[start:start + BATCH])
    if (step + 1) % 10 == 0:
        print('step %d  loss %.4f' % (step + 1, float(l)))
