"""Variables created on the first call, the ways TF2 code does it: a tf.Module that builds lazily under
`if self.w is None`, a Keras 3 layer with build(), and `if not hasattr(self, ...)`. No hazards: later traces create
nothing (the script checks it). Lines are asserted in tests: edit with care."""
import keras
import tensorflow as tf


class Dense(tf.Module):
    def __init__(self, units):
        super().__init__()
        self.units, self.w, self.b = units, None, None

    @tf.function
    def __call__(self, x):
        if self.w is None:
            self.w = tf.Variable(tf.random.normal([x.shape[-1], self.units]), name="w")
        if self.b is None:
            self.b = tf.Variable(tf.zeros([self.units]), name="b")
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)


class Scale(keras.layers.Layer):
    def build(self, input_shape):
        self.scale = self.add_weight(shape=(input_shape[-1],), initializer="ones")

    def call(self, x):
        return x * self.scale


class Counter(tf.Module):
    @tf.function
    def __call__(self, x):
        if not hasattr(self, "count"):
            self.count = tf.Variable(0)
        self.count.assign_add(1)
        return x


dense, scale, counter = Dense(3), Scale(), Counter()
model = keras.Sequential([keras.Input((3,)), scale, keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.1)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(dense(counter(x))) - y) ** 2)
    variables = model.trainable_variables + list(dense.trainable_variables)
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    return loss


for batch in (8, 8, 8):
    train_step(tf.ones([batch, 5]), tf.zeros([batch, 1]))
assert len(dense.trainable_variables) == 2 and int(counter.count) == 3  # created once, updated every call


class FlexibleDense(tf.Module):
    """The TF guide's lazy build (intro_to_modules), with a flag, here under tf.function."""

    def __init__(self, out_features):
        super().__init__()
        self.is_built, self.out_features = False, out_features

    @tf.function
    def __call__(self, x):
        if not self.is_built:
            self.w = tf.Variable(tf.random.normal([x.shape[-1], self.out_features]), name="w")
            self.b = tf.Variable(tf.zeros([self.out_features]), name="b")
            self.is_built = True
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)


flexible = FlexibleDense(2)
for _ in range(3):
    flexible(tf.ones([2, 4]))
assert len(flexible.variables) == 2
