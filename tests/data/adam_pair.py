"""The most common real pair: a TF1 script's graph trained with AdamOptimizer, and its TF2 rewrite as a Keras 3
`Model` subclass trained with `keras.optimizers.Adam`. The two sections marked below are the user's code as it
was; the adapter section is all tfcompare needs (the README counts its lines against the model's)."""

import dataclasses

import keras
import numpy as np
import tensorflow as tf

from tfcompare import Case, InputSpec, KerasStep, graph_parts, placeholders, tf1

# --- TF1 model (as the TF1 script had it) ---


def tf1_classifier(x, labels, learning_rate=0.1):
    with tf1.variable_scope("hidden"):
        w1 = tf1.get_variable("kernel", shape=[10, 32])
        b1 = tf1.get_variable("bias", shape=[32], initializer=tf1.zeros_initializer())
    with tf1.variable_scope("logits"):
        w2 = tf1.get_variable("kernel", shape=[32, 3])
        b2 = tf1.get_variable("bias", shape=[3], initializer=tf1.zeros_initializer())
    hidden = tf1.nn.relu(tf1.matmul(x, w1) + b1)
    logits = tf1.matmul(hidden, w2) + b2
    loss = tf1.reduce_mean(tf1.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    train_op = tf1.train.AdamOptimizer(learning_rate).minimize(loss)
    return logits, loss, train_op, [w1, b1, w2, b2]


# --- TF2 model (the rewrite) ---


class Classifier(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(32, activation="relu")
        self.logits = keras.layers.Dense(3)

    def call(self, x):
        return self.logits(self.hidden(x))


def compiled_classifier(epsilon=1e-8):
    model = Classifier()
    model.compile(optimizer=keras.optimizers.Adam(0.1, epsilon=epsilon),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


# --- adapter (what tfcompare needs) ---


def build_graph(specs):
    inputs = placeholders(specs)
    logits, loss, train_op, variables = tf1_classifier(inputs["x"], inputs["label"])
    return graph_parts(inputs, logits, loss, train_op, variables)


def make_model(weights, epsilon=1e-8):
    model = compiled_classifier(epsilon)
    model(np.zeros((1, 10), np.float32))  # a subclassed Keras model makes its weights at its first call
    return KerasStep(model, weights=weights, target="label")


PAIR = Case("adam-pair", "TF1 AdamOptimizer vs Keras Adam, epsilon matched (1e-8)",
            (InputSpec("x", (10,)), InputSpec("label", (), "int32", high=3)), build_graph=build_graph,
            make_model=make_model)

# --- end ---

# Keras's default epsilon (1e-7) instead of TF1's (1e-8): the diagnosis the README shows
DEFAULT = dataclasses.replace(PAIR, name="adam-pair-default", make_model=lambda w: make_model(w, 1e-7),
                              description="TF1 AdamOptimizer vs Keras Adam with its default epsilon (1e-7)")
CASES = [PAIR, DEFAULT]
_ = tf  # the user's TF2 script imports TensorFlow too
