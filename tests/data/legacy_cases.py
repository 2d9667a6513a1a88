"""TF1 code as most of it was written: `tf.compat.v1.layers.dense`, which needs tf-keras under Keras 3 (the
`legacy` extra), against a Keras 3 model. Written for tfcompare's tests."""

import keras

from tfcompare import Case, InputSpec, KerasStep, graph_parts, placeholders, tf1


def build_graph(specs):
    inputs = placeholders(specs)
    hidden = tf1.layers.dense(inputs["x"], 8, activation=tf1.nn.tanh, name="hidden")
    out = tf1.layers.dense(hidden, 1, name="out")
    loss = tf1.losses.mean_squared_error(inputs["y"], out)
    return graph_parts(inputs, out, loss, tf1.train.GradientDescentOptimizer(0.1), tf1.trainable_variables())


def make_model(weights):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)])
    return KerasStep(model, keras.optimizers.SGD(0.1), keras.losses.MeanSquaredError(), weights)


CASES = [Case("legacy-layers", "tf.compat.v1.layers.dense vs keras.layers.Dense",
              (InputSpec("x", (4,)), InputSpec("y", (1,))), build_graph=build_graph, make_model=make_model)]
