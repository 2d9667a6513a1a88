"""TF2 rewrite of tf1_mlp_public.py, written by `tfcompare convert` from the graph the TF1 script built (kept as written).

The model is a tf.Module with the TF1 variables (same shapes and initializers); its methods are the
TF1 forward pass and loss, op by op, each line naming the TF1 line it came from. Training runs in a
@tf.function step with a Keras optimizer carrying TF1's settings."""

from __future__ import print_function
import tensorflow as tf
import types
import numpy as np

class _DataSet:
    """One split as TF1's input_data.DataSet gave it: images float32 in [0, 1] (flattened unless reshape=False),
    labels one-hot on request; next_batch hands out batches in order."""

    def __init__(self, images, labels, one_hot, reshape):
        images = images.astype(np.float32) / 255.0
        self.images = images.reshape(len(images), -1) if reshape else images[..., np.newaxis]
        self.labels = np.eye(10, dtype=np.float32)[labels] if one_hot else labels.astype(np.uint8)
        self.num_examples = len(images)
        self.epochs_completed = 0
        self._index = 0

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        if self._index + batch_size > self.num_examples:
            self.epochs_completed += 1
            self._index = 0
        start, self._index = self._index, self._index + batch_size
        return self.images[start:self._index], self.labels[start:self._index]


def read_data_sets(train_dir=None, fake_data=False, one_hot=False, dtype=None, reshape=True, validation_size=0,
                   seed=None, source_url=None):
    """TF1's tensorflow.examples.tutorials.mnist.input_data.read_data_sets (gone from TF 2), on
    tf.keras.datasets.mnist: no validation split is held out and batches are not shuffled."""
    (x, y), (test_x, test_y) = tf.keras.datasets.mnist.load_data()
    test = _DataSet(test_x, test_y, one_hot, reshape)
    return types.SimpleNamespace(train=_DataSet(x, y, one_hot, reshape), test=test, validation=test)


mnist = read_data_sets('/tmp/data/', one_hot=True)

learning_rate = 0.1
num_steps = 500
batch_size = 128
display_step = 100
n_hidden_1 = 256
n_hidden_2 = 256
num_input = 784
num_classes = 10


class Model(tf.Module):
    """The TF1 graph of mlp_tf1.py: its trained variables, and one method per tensor the script fetches."""

    def __init__(self):
        super().__init__(name="model")
        self.weights_h1 = tf.Variable(tf.random.normal([784, 256], stddev=1.0), name='weights_h1')  # TF1 line 19: 'h1': tf.Variable(tf.random_normal([num_input, n_hidden_1]))
        self.weights_h2 = tf.Variable(tf.random.normal([256, 256], stddev=1.0), name='weights_h2')  # TF1 line 20: 'h2': tf.Variable(tf.random_normal([n_hidden_1, n_hidden_2])
        self.weights_out = tf.Variable(tf.random.normal([256, 10], stddev=1.0), name='weights_out')  # TF1 line 21: 'out': tf.Variable(tf.random_normal([n_hidden_2, num_classes
        self.biases_b1 = tf.Variable(tf.random.normal([256], stddev=1.0), name='biases_b1')  # TF1 line 24: 'b1': tf.Variable(tf.random_normal([n_hidden_1])),
        self.biases_b2 = tf.Variable(tf.random.normal([256], stddev=1.0), name='biases_b2')  # TF1 line 25: 'b2': tf.Variable(tf.random_normal([n_hidden_2])),
        self.biases_out = tf.Variable(tf.random.normal([10], stddev=1.0), name='biases_out')  # TF1 line 26: 'out': tf.Variable(tf.random_normal([num_classes]))

    def loss_op(self, X, Y):
        t1 = tf.matmul(tf.matmul(X, self.weights_h1) + self.biases_b1, self.weights_h2) + self.biases_b2  # TF1 line 31: layer_2 = tf.add(tf.matmul(layer_1, weights['h2']), biases['b...
        logits = tf.matmul(t1, self.weights_out) + self.biases_out  # TF1 line 32: out_layer = tf.matmul(layer_2, weights['out']) + biases['out']
        loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=Y, logits=logits))  # TF1 line 37: loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_log...
        return loss_op

    def accuracy(self, X, Y):
        t1 = tf.matmul(tf.matmul(X, self.weights_h1) + self.biases_b1, self.weights_h2) + self.biases_b2  # TF1 line 31: layer_2 = tf.add(tf.matmul(layer_1, weights['h2']), biases['b...
        logits = tf.matmul(t1, self.weights_out) + self.biases_out  # TF1 line 32: out_layer = tf.matmul(layer_2, weights['out']) + biases['out']
        prediction = tf.nn.softmax(logits)  # TF1 line 36: prediction = tf.nn.softmax(logits)
        correct_pred = tf.equal(tf.argmax(prediction, 1), tf.argmax(Y, 1))  # TF1 line 40: correct_pred = tf.equal(tf.argmax(prediction, 1), tf.argmax(Y...
        accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))  # TF1 line 41: accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))
        return accuracy


model = Model()
optimizer = tf.keras.optimizers.Adam(learning_rate=0.1, beta_1=0.9, beta_2=0.999, epsilon=1e-08)  # TF1 line 39: train_op = optimizer.minimize(loss_op)


@tf.function
def train_step(X, Y):
    with tf.GradientTape() as tape:
        loss_value = model.loss_op(X, Y)
    gradients = tape.gradient(loss_value, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return loss_value


for step in range(1, num_steps+1):
    batch_x, batch_y = mnist.train.next_batch(batch_size)
    train_step(batch_x, batch_y)
    if step % display_step == 0 or step == 1:
        loss, acc = [model.loss_op(batch_x, batch_y).numpy(), model.accuracy(batch_x, batch_y).numpy()]
        print("Step " + str(step) + ", Minibatch Loss= " + "{:.4f}".format(loss) + ", Training Accuracy= " + "{:.3f}".format(acc))
print("Optimization Finished!")
