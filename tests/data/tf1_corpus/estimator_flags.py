"""An Estimator with tf.app.flags (written for tfcompare's tests)."""
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_integer("steps", 100, "training steps")


def model_fn(features, labels, mode):
    logits = tf.layers.dense(features["x"], 10)
    loss = tf.losses.softmax_cross_entropy(labels, logits)
    return tf.estimator.EstimatorSpec(mode, loss=loss)


estimator = tf.estimator.Estimator(model_fn=model_fn)
