"""tf1_lstm.py with Keras 3: a Sequential LSTM(32) and Dense(10) trained by fit, integer labels."""
import keras

(x_train, y_train), _ = keras.datasets.mnist.load_data()
x_train = x_train.astype("float32") / 255.0  # (N, 28, 28): 28 steps of 28 pixels

model = keras.Sequential([keras.Input((28, 28)), keras.layers.LSTM(32),
                          keras.layers.Dense(10, kernel_initializer=keras.initializers.RandomNormal(stddev=0.1))])
model.compile(optimizer=keras.optimizers.Adam(0.001, epsilon=1e-8),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x_train, y_train, batch_size=64, epochs=1, verbose=0)
