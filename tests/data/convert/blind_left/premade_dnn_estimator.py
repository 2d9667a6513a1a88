"""Premade DNNClassifier estimator on synthetic iris-like data."""
from __future__ import print_function
import tempfile
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

np.random.seed(2018)
tf.set_random_seed(2018)
tf.logging.set_verbosity(tf.logging.INFO)

# ---- synthetic iris-like data: 3 classes, 4 features (sepal/petal length/width) ----
class_means = np.array([[5.0, 3.4, 1.5, 0.2],
                        [5.9, 2.8, 4.3, 1.3],
                        [6.6, 3.0, 5.6, 2.0]], dtype=np.float32)
class_stds = np.array([[0.35, 0.38, 0.17, 0.10],
                       [0.51, 0.31, 0.47, 0.20],
                       [0.63, 0.32, 0.55, 0.27]], dtype=np.float32)


def make_data(n_per_class):
    xs, ys = [], []
    for k in range(3):
        xs.append(class_means[k] + class_stds[k] * np.random.randn(n_per_class, 4))
        ys.append(np.full(n_per_class, k))
    X = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys).astype(np.int32)
    perm = np.random.permutation(len(y))
    return X[perm], y[perm]


X_train, y_train = make_data(40)
X_test, y_test = make_data(10)

feature_columns = [tf.feature_column.numeric_column('x', shape=[4])]
model_dir = tempfile.mkdtemp(prefix="iris_dnn_")

classifier = tf.estimator.DNNClassifier(
    feature_columns=feature_columns,
    hidden_units=[10, 10],
    n_classes=3,
    model_dir=model_dir,
    optimizer=tf.train.AdamOptimizer(0.01))

train_input_fn = tf.estimator.inputs.numpy_input_fn(
    x={'x': X_train},
    y=y_train,
    batch_size=32,
    num_epochs=None,
    shuffle=True)

classifier.train(input_fn=train_input_fn, steps=300)

test_input_fn = tf.estimator.inputs.numpy_input_fn(
    x={'x': X_test},
    y=y_test,
    num_epochs=1,
    shuffle=False)

eval_result = classifier.evaluate(input_fn=test_input_fn)
print("\nTest set accuracy: {accuracy:0.3f}\n".format(**eval_result))

# predict a couple of new samples
new_samples = np.array([[5.1, 3.5, 1.4, 0.2],
                        [6.4, 3.2, 4.5, 1.5],
                        [6.9, 3.1, 5.8, 2.1]], dtype=np.float32)
predict_input_fn = tf.estimator.inputs.numpy_input_fn(
    x={'x': new_samples}, num_epochs=1, shuffle=False)
predictions = list(classifier.predict(input_fn=predict_input_fn))
predicted_classes = [int(p["class_ids"][0]) for p in predictions]
print("New Samples, Class Predictions: {}".format(predicted_classes))
