"""Queue-based input pipeline (no feed_dict) feeding a small MLP classifier."""
from __future__ import print_function
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

np.random.seed(42)
tf.set_random_seed(42)

# ---- synthetic data: 3 gaussian blobs in 10-D ----
NUM_CLASSES = 3
NUM_FEATURES = 10
N = 1500
centers = np.random.randn(NUM_CLASSES, NUM_FEATURES) * 2.0
labels_np = np.random.randint(0, NUM_CLASSES, size=N).astype(np.int32)
features_np = (centers[labels_np] + np.random.randn(N, NUM_FEATURES)).astype(np.float32)

BATCH_SIZE = 32
HIDDEN = 32
LEARNING_RATE = 0.05
NUM_STEPS = 400

# ---- input pipeline ----
features = tf.convert_to_tensor(features_np, dtype=tf.float32)
labels = tf.convert_to_tensor(labels_np, dtype=tf.int32)
feature, label = tf.train.slice_input_producer([features, labels], shuffle=True, seed=42)
min_after_dequeue = 500
capacity = min_after_dequeue + 3 * BATCH_SIZE
x_batch, y_batch = tf.train.shuffle_batch([feature, label],
                                          batch_size=BATCH_SIZE,
                                          capacity=capacity,
                                          min_after_dequeue=min_after_dequeue,
                                          num_threads=2,
                                          seed=42)


def mlp(x, reuse=False):
    with tf.variable_scope("mlp", reuse=reuse):
        w1 = tf.get_variable("w1", [NUM_FEATURES, HIDDEN],
                             initializer=tf.truncated_normal_initializer(stddev=0.1))
        b1 = tf.get_variable("b1", [HIDDEN], initializer=tf.constant_initializer(0.0))
        w2 = tf.get_variable("w2", [HIDDEN, NUM_CLASSES],
                             initializer=tf.truncated_normal_initializer(stddev=0.1))
        b2 = tf.get_variable("b2", [NUM_CLASSES], initializer=tf.constant_initializer(0.0))
        h1 = tf.nn.relu(tf.matmul(x, w1) + b1)
        return tf.matmul(h1, w2) + b2


logits = mlp(x_batch)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_batch, logits=logits))
train_op = tf.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)
batch_correct = tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), y_batch)
batch_accuracy = tf.reduce_mean(tf.cast(batch_correct, tf.float32))

# separate placeholder-based copy of the network sharing the same weights
x_eval = tf.placeholder(tf.float32, [None, NUM_FEATURES], name="x_eval")
y_eval = tf.placeholder(tf.int32, [None], name="y_eval")
eval_logits = mlp(x_eval, reuse=True)
eval_accuracy = tf.reduce_mean(tf.cast(
    tf.equal(tf.cast(tf.argmax(eval_logits, 1), tf.int32), y_eval), tf.float32))

init = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())

with tf.Session() as sess:
    sess.run(init)
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
        step = 0
        while not coord.should_stop() and step < NUM_STEPS:
            _, loss_val = sess.run([train_op, loss])
            if step % 50 == 0:
                print("Step %d, loss = %.4f" % (step, loss_val))
            step += 1
    except tf.errors.OutOfRangeError:
        print("Done training -- epoch limit reached")
    finally:
        coord.request_stop()

    # batch accuracy a few times, as in the tutorials
    accs = [sess.run(batch_accuracy) for _ in range(5)]
    print("Average batch accuracy: %.4f" % np.mean(accs))
    coord.join(threads)

    acc = sess.run(eval_accuracy, feed_dict={x_eval: features_np, y_eval: labels_np})
    print("Final accuracy on full data: %.4f" % acc)
