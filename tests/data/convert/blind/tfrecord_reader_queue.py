"""Small MLP classifier trained from a TFRecord file via TFRecordReader queues."""
import os
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

np.random.seed(1234)
tf.set_random_seed(1234)

DATA_DIR = os.path.dirname(os.path.abspath(__file__))
record_path = os.path.join(DATA_DIR, 'train.tfrecords')

NUM_EXAMPLES = 1000
NUM_FEATURES = 8
NUM_CLASSES = 2
HIDDEN = 16
BATCH_SIZE = 64
NUM_STEPS = 400
DISPLAY_STEP = 50


def _float_feature(values):
    return tf.train.Feature(float_list=tf.train.FloatList(value=values))


def _int64_feature(value):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))


# ---- write synthetic data to a TFRecord file ----
true_w = np.random.randn(NUM_FEATURES)
xs = np.random.randn(NUM_EXAMPLES, NUM_FEATURES).astype(np.float32)
ys = (xs.dot(true_w) + 0.3 * np.random.randn(NUM_EXAMPLES) > 0).astype(np.int64)

writer = tf.python_io.TFRecordWriter(record_path)
for i in range(NUM_EXAMPLES):
    example = tf.train.Example(features=tf.train.Features(feature={
        'x': _float_feature(xs[i].tolist()),
        'y': _int64_feature(int(ys[i]))}))
    writer.write(example.SerializeToString())
writer.close()
print('Wrote %d examples to %s' % (NUM_EXAMPLES, record_path))


# ---- input pipeline ----
def read_and_decode(filename_queue):
    reader = tf.TFRecordReader()
    _, serialized_example = reader.read(filename_queue)
    features = tf.parse_single_example(
        serialized_example,
        features={
            'x': tf.FixedLenFeature([NUM_FEATURES], tf.float32),
            'y': tf.FixedLenFeature([], tf.int64),
        })
    x = features['x']
    y = tf.cast(features['y'], tf.int32)
    return x, y


filename_queue = tf.train.string_input_producer([record_path], num_epochs=None)
x, y = read_and_decode(filename_queue)
x_batch, y_batch = tf.train.shuffle_batch(
    [x, y], batch_size=BATCH_SIZE, num_threads=2,
    capacity=1000 + 3 * BATCH_SIZE, min_after_dequeue=1000)

# ---- model: one hidden layer MLP ----
with tf.variable_scope('hidden'):
    w1 = tf.get_variable('weights', [NUM_FEATURES, HIDDEN],
                         initializer=tf.truncated_normal_initializer(stddev=0.1))
    b1 = tf.get_variable('biases', [HIDDEN], initializer=tf.constant_initializer(0.0))
    h1 = tf.nn.relu(tf.matmul(x_batch, w1) + b1)
with tf.variable_scope('softmax_linear'):
    w2 = tf.get_variable('weights', [HIDDEN, NUM_CLASSES],
                         initializer=tf.truncated_normal_initializer(stddev=0.1))
    b2 = tf.get_variable('biases', [NUM_CLASSES], initializer=tf.constant_initializer(0.0))
    logits = tf.matmul(h1, w2) + b2

loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
    labels=y_batch, logits=logits), name='xentropy_mean')
global_step = tf.Variable(0, name='global_step', trainable=False)
train_op = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)
accuracy = tf.reduce_mean(tf.cast(tf.nn.in_top_k(logits, y_batch, 1), tf.float32))

init_op = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())

sess = tf.Session()
sess.run(init_op)
coord = tf.train.Coordinator()
threads = tf.train.start_queue_runners(sess=sess, coord=coord)
try:
    step = 0
    while not coord.should_stop() and step < NUM_STEPS:
        _, loss_value, acc_value, step = sess.run([train_op, loss, accuracy, global_step])
        if step % DISPLAY_STEP == 0:
            print('Step %d: loss = %.4f, accuracy = %.3f' % (step, loss_value, acc_value))
except tf.errors.OutOfRangeError:
    print('Done training for %d steps.' % step)
finally:
    coord.request_stop()
coord.join(threads)
sess.close()
