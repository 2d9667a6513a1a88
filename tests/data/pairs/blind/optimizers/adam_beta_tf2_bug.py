# TF2 port of adam_beta_tf1.py: keras model, compile() + train_on_batch loop
import numpy as np
import keras

# ---- synthetic data (identical to the TF1 script) ----
rng = np.random.RandomState(123)
N, S, C, F = 640, 12, 3, 8
BATCH, STEPS = 32, 100
labels_np = rng.randint(0, C, size=N)
images = 0.5 * rng.randn(N, S, S, 1).astype(np.float32)
for n in range(N):
    k = rng.randint(2, S - 2)
    if labels_np[n] == 0:
        images[n, k, :, 0] += 1.0
    elif labels_np[n] == 1:
        images[n, :, k, 0] += 1.0
    else:
        images[n, np.arange(S), np.arange(S), 0] += 1.0
conv_w0 = (rng.randn(3, 3, 1, F) * np.sqrt(2.0 / 9)).astype(np.float32)
fc_w0 = (rng.randn(6 * 6 * F, C) * np.sqrt(1.0 / (6 * 6 * F))).astype(np.float32)

# ---- model ----
model = keras.Sequential([
    keras.Input(shape=(S, S, 1)),
    keras.layers.Conv2D(F, 3, padding='same', activation='relu'),
    keras.layers.MaxPooling2D(pool_size=2, strides=2, padding='valid'),
    keras.layers.Flatten(),      # NHWC flatten, same order as tf.reshape
    keras.layers.Dense(C),       # logits
])
model.set_weights([conv_w0, np.zeros(F, np.float32),
                   fc_w0, np.zeros(C, np.float32)])

# TF1 AdamOptimizer defaults: beta2=0.999, epsilon=1e-8 (Keras default is 1e-7)
optimizer = keras.optimizers.Adam(learning_rate=2e-4,
                                  beta_2=0.999, epsilon=1e-8)
model.compile(optimizer=optimizer,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))

# ---- train ----
for step in range(STEPS):
    i = (step * BATCH) % N
    # train_on_batch resets metrics each call -> loss of this batch only
    l = model.train_on_batch(images[i:i + BATCH], labels_np[i:i + BATCH])
    if (step + 1) % 10 == 0:
        print('step %3d  loss %.4f' % (step + 1, l))
