"""Keras layers used as plain functions inside a TensorFlow graph (2018 style).

No Model.fit: we build the graph with tf.keras.layers, compute the loss with
tf.losses and train with a regular tf.Session loop. Dropout is switched on by
feeding a boolean placeholder that defaults to False (inference).
"""
import numpy as np
import tensorflow as tf

np.random.seed(0)
tf.set_random_seed(0)

NUM_FEATURES = 20
NUM_CLASSES = 4
BATCH_SIZE = 64
NUM_STEPS = 400

# Synthetic data: labels from a random linear teacher
W_true = np.random.randn(NUM_FEATURES, NUM_CLASSES)
X_train = np.random.randn(4000, NUM_FEATURES).astype(np.float32)
y_train = np.argmax(X_train.dot(W_true), axis=1).astype(np.int32)
X_test = np.random.randn(1000, NUM_FEATURES).astype(np.float32)
y_test = np.argmax(X_test.dot(W_true), axis=1).astype(np.int32)

# Graph
x = tf.placeholder(tf.float32, shape=[None, NUM_FEATURES], name='x')
y = tf.placeholder(tf.int32, shape=[None], name='y')
is_training = tf.placeholder_with_default(False, shape=(), name='is_training')

net = tf.keras.layers.Dense(64, activation='relu')(x)
net = tf.keras.layers.Dropout(0.3)(net, training=is_training)
net = tf.keras.layers.Dense(64, activation='relu')(net)
net = tf.keras.layers.Dropout(0.3)(net, training=is_training)
logits = tf.keras.layers.Dense(NUM_CLASSES)(net)

loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
train_op = tf.train.AdamOptimizer(learning_rate=0.001).minimize(loss)

predictions = tf.argmax(logits, axis=1, output_type=tf.int32)
accuracy = tf.reduce_mean(tf.cast(tf.equal(predictions, y), tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())

    for step in range(1, NUM_STEPS + 1):
        idx = np.random.randint(0, X_train.shape[0], size=BATCH_SIZE)
        _, loss_val = sess.run([train_op, loss],
                               feed_dict={x: X_train[idx], y: y_train[idx],
                                          is_training: True})
        if step % 50 == 0:
            print('Step %d, loss = %.4f' % (step, loss_val))

    # is_training falls back to its default (False): dropout disabled
    test_acc = sess.run(accuracy, feed_dict={x: X_test, y: y_test})
    print('Test accuracy: %.4f' % test_acc)
