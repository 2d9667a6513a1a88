"""A convolutional network as a tf.estimator in the style of the public TF1 examples: a model_fn built from
tf.contrib.layers, numpy_input_fn over MNIST, train, evaluate with tf.metrics.accuracy, predict."""
import numpy as np
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=False)
learning_rate = 0.01
num_steps = 5
batch_size = 32


def conv_net(x, n_classes, is_training):
    x = tf.reshape(x, shape=[-1, 28, 28, 1])
    conv1 = tf.contrib.layers.conv2d(x, 8, 5)
    conv1 = tf.contrib.layers.max_pool2d(conv1, 2)
    fc1 = tf.contrib.layers.flatten(conv1)
    fc1 = tf.contrib.layers.fully_connected(fc1, 32)
    return tf.contrib.layers.fully_connected(fc1, n_classes, activation_fn=None)


def model_fn(features, labels, mode):
    logits = conv_net(features["images"], 10, mode == tf.estimator.ModeKeys.TRAIN)
    pred_classes = tf.argmax(logits, axis=1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=pred_classes)
    loss_op = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(logits=logits,
                                                                            labels=tf.cast(labels, tf.int32)))
    optimizer = tf.train.GradientDescentOptimizer(learning_rate=learning_rate)
    train_op = optimizer.minimize(loss_op, global_step=tf.train.get_global_step())
    acc_op = tf.metrics.accuracy(labels=labels, predictions=pred_classes)
    return tf.estimator.EstimatorSpec(mode=mode, predictions=pred_classes, loss=loss_op, train_op=train_op,
                                      eval_metric_ops={"accuracy": acc_op})


model = tf.estimator.Estimator(model_fn)
input_fn = tf.estimator.inputs.numpy_input_fn(x={"images": mnist.train.images}, y=mnist.train.labels,
                                              batch_size=batch_size, num_epochs=None, shuffle=True)
model.train(input_fn, steps=num_steps)
input_fn = tf.estimator.inputs.numpy_input_fn(x={"images": mnist.test.images[:64]}, y=mnist.test.labels[:64],
                                              batch_size=batch_size, shuffle=False)
e = model.evaluate(input_fn)
print("Testing Accuracy:", e["accuracy"], "after", e["global_step"], "steps")
input_fn = tf.estimator.inputs.numpy_input_fn(x={"images": mnist.test.images[:4]}, shuffle=False)
print("Predictions:", list(model.predict(input_fn)))
