"""Softmax regression on a CSV file read through a TF input queue."""
import os
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

np.random.seed(42)
tf.set_random_seed(42)

DATA_DIR = os.path.dirname(os.path.abspath(__file__))
csv_path = os.path.join(DATA_DIR, 'iris_like.csv')

NUM_ROWS = 600
NUM_CLASSES = 3
BATCH_SIZE = 32
LEARNING_RATE = 0.1
NUM_STEPS = 300
DISPLAY_STEP = 50

# ---- write a synthetic CSV file: 4 float features + int label ----
centers = np.array([[1.0, 1.0, 0.0, 0.0],
                    [-1.0, 0.0, 1.0, 0.0],
                    [0.0, -1.0, -1.0, 1.0]])
labels = np.random.randint(0, NUM_CLASSES, size=NUM_ROWS)
data = centers[labels] + 0.5 * np.random.randn(NUM_ROWS, 4)
with open(csv_path, 'w') as f:
    f.write('f1,f2,f3,f4,label\n')
    for row, lab in zip(data, labels):
        f.write('%.5f,%.5f,%.5f,%.5f,%d\n' % (row[0], row[1], row[2], row[3], lab))
print('Wrote %d rows to %s' % (NUM_ROWS, csv_path))

# ---- input pipeline ----
filename_queue = tf.train.string_input_producer([csv_path], shuffle=True)
reader = tf.TextLineReader(skip_header_lines=1)
_, value = reader.read(filename_queue)
record_defaults = [[0.], [0.], [0.], [0.], [0]]
col1, col2, col3, col4, label = tf.decode_csv(value, record_defaults=record_defaults)
features = tf.stack([col1, col2, col3, col4])

min_after_dequeue = 200
capacity = min_after_dequeue + 3 * BATCH_SIZE
feature_batch, label_batch = tf.train.shuffle_batch(
    [features, label], batch_size=BATCH_SIZE, capacity=capacity,
    min_after_dequeue=min_after_dequeue, num_threads=2)

# ---- model: softmax regression ----
W = tf.Variable(tf.zeros([4, NUM_CLASSES]), name='weights')
b = tf.Variable(tf.zeros([NUM_CLASSES]), name='bias')
logits = tf.matmul(feature_batch, W) + b

loss = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=label_batch, logits=logits))
train_op = tf.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)

correct = tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), label_batch)
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
        for step in range(1, NUM_STEPS + 1):
            if coord.should_stop():
                break
            _, loss_val, acc_val = sess.run([train_op, loss, accuracy])
            if step % DISPLAY_STEP == 0 or step == 1:
                print('Step %d, loss = %.4f, batch accuracy = %.3f' % (step, loss_val, acc_val))
    except tf.errors.OutOfRangeError:
        print('Done training -- epoch limit reached')
    finally:
        coord.request_stop()
    coord.join(threads)
    print('Final weights:\n', sess.run(W))
