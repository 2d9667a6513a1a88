"""The legacy runtime: the TF 1.x APIs TensorFlow 2 removed that real TF1 scripts use (`tf.contrib.rnn`,
`tf.contrib.layers`, `tf.contrib.framework`, `tf.contrib.eager`, `tf.contrib.learn` datasets, `tf.estimator`, and
`tf.nn.rnn_cell` without tf-keras), written here on `tf.compat.v1` with TF 1.15's definitions.

Installed only in a child process that runs a user's TF1 script (`pair`'s TF1 side, `tfcompare run-tf1`);
importing this package changes nothing in `tensorflow`. What it provides and refuses: `coverage`.
"""

from tfcompare.scripts.legacy.runtime import NotProvided, install, is_refusal

__all__ = ["install", "NotProvided", "is_refusal"]
