"""Regression MLP with a custom tf.estimator.Estimator (TF 1.x style)."""
import tempfile
import numpy as np
import tensorflow as tf

tf.logging.set_verbosity(tf.logging.INFO)
np.random.seed(0)

N, D, H = 512, 8, 16
BATCH_SIZE = 32
TRAIN_STEPS = 40
LEARNING_RATE = 0.05

X = np.random.randn(N, D).astype(np.float32)
w_true = np.random.randn(D, 1).astype(np.float32)
Y = (np.tanh(X.dot(w_true)) + 0.05 * np.random.randn(N, 1)).astype(np.float32)


def train_input_fn():
    dataset = tf.data.Dataset.from_tensor_slices(({"x": X}, Y))
    return dataset.repeat().batch(BATCH_SIZE)


def model_fn(features, labels, mode, params):
    x = features["x"]
    W1 = tf.get_variable("W1", [D, params["hidden"]])
    b1 = tf.get_variable("b1", [params["hidden"]], initializer=tf.zeros_initializer())
    W2 = tf.get_variable("W2", [params["hidden"], 1])
    b2 = tf.get_variable("b2", [1], initializer=tf.zeros_initializer())
    hidden = tf.nn.tanh(tf.matmul(x, W1) + b1)
    predictions = tf.matmul(hidden, W2) + b2

    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": predictions})

    loss = tf.reduce_mean(tf.square(predictions - labels))
    optimizer = tf.train.GradientDescentOptimizer(params["learning_rate"])
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    logging_hook = tf.train.LoggingTensorHook(
        {"loss": loss, "step": tf.train.get_global_step()}, every_n_iter=5)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      training_hooks=[logging_hook])


config = tf.estimator.RunConfig(tf_random_seed=0, log_step_count_steps=10,
                                save_summary_steps=10)
estimator = tf.estimator.Estimator(
    model_fn=model_fn, model_dir=tempfile.mkdtemp(), config=config,
    params={"hidden": H, "learning_rate": LEARNING_RATE})
estimator.train(input_fn=train_input_fn, steps=TRAIN_STEPS)
print("final global step:", estimator.get_variable_value("global_step"))
