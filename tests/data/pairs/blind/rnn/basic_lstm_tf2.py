# TF2 / Keras 3 rewrite of basic_lstm_tf1.py (BasicLSTMCell sequence classifier).
import numpy as np
import tensorflow as tf
import keras

# keras.utils.set_random_seed also reseeds NumPy, so it goes first and np.random.seed(1234) re-creates the TF1 data stream.
keras.utils.set_random_seed(1234)
np.random.seed(1234)

learning_rate = 0.005
training_epochs = 3
batch_size = 50

num_examples = 1000
timesteps = 16
num_input = 2
num_hidden = 32
num_classes = 3

# Same synthetic data as the TF1 script (same seed, same generation code).
X_train = np.random.randn(num_examples, timesteps, num_input).astype(np.float32)
labels = np.argmax(X_train[:, :, 0], axis=1) * num_classes // timesteps
Y_train = np.eye(num_classes)[labels].astype(np.float32)

# TF1 BasicLSTMCell draws one glorot_uniform matrix of shape [num_input + num_hidden, 4 * num_hidden]; reproduce its range for both Keras matrices.
tf1_limit = float(np.sqrt(6.0 / (num_input + num_hidden + 4 * num_hidden)))

model = keras.Sequential([
    keras.Input(shape=(timesteps, num_input)),
    keras.layers.LSTM(
        num_hidden,
        # One initializer object per weight: an unseeded Keras 3 initializer picks its seed once, so sharing one would repeat values.
        kernel_initializer=keras.initializers.RandomUniform(-tf1_limit, tf1_limit),
        recurrent_initializer=keras.initializers.RandomUniform(-tf1_limit, tf1_limit),
        # TF1 BasicLSTMCell bias starts at 0 and forget_bias=1.0 is added in the forward pass; a trainable forget bias starting at 1.0 gives identical outputs and updates.
        unit_forget_bias=True,
    ),
    # TF1 used tf.Variable(tf.random_normal(...)) for the output layer, i.e. N(0, 1) for both weights and bias, not Keras' glorot/zeros.
    keras.layers.Dense(
        num_classes,
        kernel_initializer=keras.initializers.RandomNormal(mean=0.0, stddev=1.0),
        bias_initializer=keras.initializers.RandomNormal(mean=0.0, stddev=1.0),
    ),
])

model.compile(
    # TF1 AdamOptimizer uses epsilon=1e-8 (Keras default is 1e-7); its update rule is the same "epsilon hat" form as Keras 3 Adam.
    optimizer=keras.optimizers.Adam(learning_rate=learning_rate, beta_1=0.9, beta_2=0.999, epsilon=1e-8),
    # Dense outputs logits, as TF1 fed logits to softmax_cross_entropy_with_logits; from_logits=True avoids Keras' probability clipping.
    loss=keras.losses.CategoricalCrossentropy(from_logits=True),
    metrics=[keras.metrics.CategoricalAccuracy(name="accuracy")],
)

# TF1 took the batches in order without shuffling, and 1000 / 50 leaves no partial batch, so the steps match exactly.
history = model.fit(X_train, Y_train, batch_size=batch_size, epochs=training_epochs, shuffle=False, verbose=2)

print("Optimization Finished!")
_, train_acc = model.evaluate(X_train, Y_train, batch_size=num_examples, verbose=0)
print("Training Accuracy:", train_acc)
