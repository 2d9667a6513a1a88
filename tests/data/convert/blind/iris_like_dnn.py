"""Custom tf.estimator DNN classifier on a synthetic iris-like dataset (TF 1.x)."""
import tempfile

import numpy as np
import tensorflow as tf

tf.logging.set_verbosity(tf.logging.INFO)
np.random.seed(42)

# Synthetic data: three 4-D Gaussian blobs, 200 examples each.
centers = np.array([[5.0, 3.4, 1.5, 0.2],
                    [5.9, 2.8, 4.3, 1.3],
                    [6.6, 3.0, 5.5, 2.0]])
X = np.concatenate([c + 0.35 * np.random.randn(200, 4) for c in centers])
X = X.astype(np.float32)
y = np.repeat(np.arange(3), 200).astype(np.int32)
perm = np.random.permutation(len(X))
X, y = X[perm], y[perm]
X_train, y_train = X[:480], y[:480]
X_test, y_test = X[480:], y[480:]


def model_fn(features, labels, mode, params):
    net = features['x']
    for units in params['hidden_units']:
        net = tf.layers.dense(net, units=units, activation=tf.nn.relu)
    logits = tf.layers.dense(net, units=params['n_classes'])
    predicted_classes = tf.argmax(logits, axis=1)

    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {
            'class_ids': predicted_classes,
            'probabilities': tf.nn.softmax(logits),
            'logits': logits,
        }
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)

    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    accuracy = tf.metrics.accuracy(labels=labels, predictions=predicted_classes,
                                   name='acc_op')
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, eval_metric_ops={'accuracy': accuracy})

    assert mode == tf.estimator.ModeKeys.TRAIN
    optimizer = tf.train.AdamOptimizer(learning_rate=params['learning_rate'])
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


classifier = tf.estimator.Estimator(
    model_fn=model_fn,
    model_dir=tempfile.mkdtemp(),
    params={'hidden_units': [16, 16], 'n_classes': 3, 'learning_rate': 0.01})

train_input_fn = tf.estimator.inputs.numpy_input_fn(
    x={'x': X_train}, y=y_train, batch_size=32, num_epochs=None, shuffle=True)
classifier.train(input_fn=train_input_fn, steps=300)

eval_input_fn = tf.estimator.inputs.numpy_input_fn(
    x={'x': X_test}, y=y_test, num_epochs=1, shuffle=False)
eval_result = classifier.evaluate(input_fn=eval_input_fn)
print('\nTest set accuracy: {accuracy:0.3f}\n'.format(**eval_result))
