"""Linear regression with a custom tf.estimator model_fn (TF 1.x)."""
import tempfile

import numpy as np
import tensorflow as tf

tf.logging.set_verbosity(tf.logging.INFO)
np.random.seed(0)

# Synthetic data: y = X . w + b + noise
N = 1000
true_w = np.array([[2.0], [-3.0], [0.5]], dtype=np.float32)
true_b = 1.0
X = np.random.randn(N, 3).astype(np.float32)
Y = (X.dot(true_w) + true_b + 0.1 * np.random.randn(N, 1)).astype(np.float32)


def model_fn(features, labels, mode):
    predictions = tf.layers.dense(features['x'], 1, name='linear')

    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={'y': predictions})

    loss = tf.losses.mean_squared_error(labels=labels, predictions=predictions)
    eval_metric_ops = {
        'rmse': tf.metrics.root_mean_squared_error(labels=labels,
                                                   predictions=predictions),
    }

    optimizer = tf.train.GradientDescentOptimizer(0.05)
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())

    return tf.estimator.EstimatorSpec(
        mode=mode,
        predictions=predictions,
        loss=loss,
        train_op=train_op,
        eval_metric_ops=eval_metric_ops)


estimator = tf.estimator.Estimator(model_fn=model_fn,
                                   model_dir=tempfile.mkdtemp())

train_input_fn = tf.estimator.inputs.numpy_input_fn(
    x={'x': X}, y=Y, batch_size=16, num_epochs=None, shuffle=True)
estimator.train(input_fn=train_input_fn, steps=200)

eval_input_fn = tf.estimator.inputs.numpy_input_fn(
    x={'x': X}, y=Y, batch_size=16, num_epochs=1, shuffle=False)
metrics = estimator.evaluate(input_fn=eval_input_fn)
print('RMSE: %.4f' % metrics['rmse'])
print('loss: %.4f' % metrics['loss'])
