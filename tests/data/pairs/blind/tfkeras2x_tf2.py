"""TF2 rewrite of tfkeras2x_tf1.py in tf.keras 2.x style (compile/fit)."""
import numpy as np
import tensorflow as tf

np.random.seed(2019)
tf.keras.utils.set_random_seed(2019)

N, D, H, C = 768, 16, 32, 3
BATCH_SIZE = 32
EPOCHS = 2
LEARNING_RATE = 0.001

X = np.random.randn(N, D).astype(np.float32)
centers = 2.0 * np.random.randn(C, D).astype(np.float32)
y = np.random.randint(0, C, size=N)
X += centers[y]
y = y.astype(np.int64)


class PrintLoss(tf.keras.callbacks.Callback):
    """Print every few batches. NB: Keras reports the running mean of the epoch so far,
    not the single-batch loss the TF1 loop printed."""

    def __init__(self, every=6):
        super().__init__()
        self.every, self.step = every, 0

    def on_train_batch_end(self, batch, logs=None):
        if self.step % self.every == 0:
            print("step %3d: loss = %.4f, acc = %.3f" % (self.step, logs["loss"], logs["accuracy"]))
        self.step += 1


model = tf.keras.Sequential([
    tf.keras.layers.Dense(H, activation="relu", input_shape=(D,)),
    tf.keras.layers.Dense(C),
])
model.compile(
    # tf.train.AdamOptimizer default epsilon is 1e-8 (Keras: 1e-7)
    optimizer=tf.keras.optimizers.Adam(learning_rate=LEARNING_RATE, epsilon=1e-8),
    loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
# shuffle=False keeps the TF1 batch order
history = model.fit(X, y, batch_size=BATCH_SIZE, epochs=EPOCHS, shuffle=False,
                    callbacks=[PrintLoss()], verbose=0)
print("epoch losses:", [round(v, 4) for v in history.history["loss"]])
