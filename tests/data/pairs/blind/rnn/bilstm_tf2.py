# TF2 / Keras 3 rewrite of bilstm_tf1.py (bidirectional LSTM classifier, Adam, custom train step).
import numpy as np
import tensorflow as tf
import keras

# keras.utils.set_random_seed also reseeds NumPy, so it goes first and np.random.seed(99) re-creates the TF1 data and permutations.
keras.utils.set_random_seed(99)
np.random.seed(99)

n_examples = 960
n_steps = 14
n_input = 2
n_hidden = 16
n_classes = 4
batch_size = 32
epochs = 3
learning_rate = 0.003

data_x = np.random.randn(n_examples, n_steps, n_input).astype(np.float32)
data_y = (2 * (data_x[:, 0, 0] > 0) + (data_x[:, -1, 0] > 0)).astype(np.int64)
data_y_onehot = np.eye(n_classes, dtype=np.float32)[data_y]

# TF1 LSTMCell draws one glorot_uniform matrix of shape [n_input + n_hidden, 4 * n_hidden]; reproduce its range for both Keras matrices.
tf1_limit = float(np.sqrt(6.0 / (n_input + n_hidden + 4 * n_hidden)))

model = keras.Sequential([
    keras.Input(shape=(n_steps, n_input)),
    # return_sequences=False: Bidirectional concatenates [forward last step, backward final output], i.e. TF1's output_fw[:, -1] and output_bw[:, 0].
    keras.layers.Bidirectional(
        keras.layers.LSTM(
            n_hidden,
            # Unseeded RandomUniform objects (separate per weight) get a fresh seed each time Bidirectional re-creates the layer, so fw and bw differ like TF1's two cells.
            kernel_initializer=keras.initializers.RandomUniform(-tf1_limit, tf1_limit),
            recurrent_initializer=keras.initializers.RandomUniform(-tf1_limit, tf1_limit),
            unit_forget_bias=True,  # TF1 LSTMCell's default forget_bias=1.0 (added on top of a 0-initialised bias) == trainable forget bias starting at 1.0
        ),
        merge_mode="concat",  # tf.concat([last_fw, last_bw], axis=1): forward first
    ),
    # tf.get_variable's default glorot_uniform kernel and the 0.0 bias are Keras Dense defaults; no activation, it is a logit.
    keras.layers.Dense(n_classes),
])

# TF1 AdamOptimizer uses epsilon=1e-8 (Keras default is 1e-7).
optimizer = keras.optimizers.Adam(learning_rate=learning_rate, epsilon=1e-8)
optimizer.build(model.trainable_variables)
loss_fn = keras.losses.CategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(bx, by):
    with tf.GradientTape() as tape:
        logits = model(bx, training=True)
        loss = loss_fn(by, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(by, 1)), tf.float32))
    return loss, acc


n_batches = n_examples // batch_size  # like TF1, drop any partial batch (960 = 30 * 32 leaves none)
for epoch in range(epochs):
    # Same np.random.permutation per epoch as the TF1 feed_dict loop.
    shuffle_idx = np.random.permutation(n_examples)
    xs, ys = data_x[shuffle_idx], data_y_onehot[shuffle_idx]
    total_cost, total_acc = 0.0, 0.0
    for i in range(n_batches):
        c, a = train_step(xs[i * batch_size:(i + 1) * batch_size], ys[i * batch_size:(i + 1) * batch_size])
        total_cost += float(c)
        total_acc += float(a)
    print("Epoch %d, cost = %.4f, accuracy = %.4f" % (epoch + 1, total_cost / n_batches, total_acc / n_batches))

final_logits = model(data_x, training=False)
final_acc = float(tf.reduce_mean(tf.cast(tf.equal(tf.argmax(final_logits, 1), data_y), tf.float32)))
print("Final accuracy: %.4f" % final_acc)
