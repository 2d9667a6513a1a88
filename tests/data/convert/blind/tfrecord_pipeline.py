"""Write a synthetic dataset to TFRecord, read it back with tf.data, train logistic regression."""
from __future__ import print_function

import os
import numpy as np
import tensorflow as tf

np.random.seed(123)
tf.set_random_seed(123)

N = 2000
N_FEATURES = 10
BATCH_SIZE = 32
N_STEPS = 400
RECORD_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'synthetic.tfrecord')

# ---- 1. generate data and write it to a TFRecord file ----
true_w = np.random.randn(N_FEATURES)
X = np.random.randn(N, N_FEATURES).astype(np.float32)
Y = (X.dot(true_w) + 0.5 * np.random.randn(N) > 0).astype(np.float32)

writer = tf.python_io.TFRecordWriter(RECORD_PATH)
for i in range(N):
    example = tf.train.Example(features=tf.train.Features(feature={
        'x': tf.train.Feature(float_list=tf.train.FloatList(value=X[i].tolist())),
        'y': tf.train.Feature(float_list=tf.train.FloatList(value=[float(Y[i])])),
    }))
    writer.write(example.SerializeToString())
writer.close()
print('wrote %d examples to %s' % (N, RECORD_PATH))


# ---- 2. input pipeline ----
def parse_fn(serialized):
    parsed = tf.parse_single_example(serialized, features={
        'x': tf.FixedLenFeature([N_FEATURES], tf.float32),
        'y': tf.FixedLenFeature([1], tf.float32),
    })
    return parsed['x'], parsed['y']


dataset = tf.data.TFRecordDataset(RECORD_PATH)
dataset = dataset.map(parse_fn).shuffle(1000, seed=123).batch(BATCH_SIZE).repeat()
iterator = dataset.make_one_shot_iterator()
features, labels = iterator.get_next()

# ---- 3. logistic regression ----
W = tf.Variable(tf.zeros([N_FEATURES, 1]), name='weights')
b = tf.Variable(tf.zeros([1]), name='bias')
logits = tf.matmul(features, W) + b

loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss)

predictions = tf.cast(tf.sigmoid(logits) > 0.5, tf.float32)
accuracy = tf.reduce_mean(tf.cast(tf.equal(predictions, labels), tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, N_STEPS + 1):
        _, loss_val = sess.run([train_op, loss])
        if step % 50 == 0:
            print('step %d, loss %.4f' % (step, loss_val))

    # evaluate on a few batches pulled from the same pipeline
    accs = [sess.run(accuracy) for _ in range(20)]
    print('final accuracy (20 batches): %.4f' % np.mean(accs))
    learned_w = sess.run(W).ravel()
    cos = learned_w.dot(true_w) / (np.linalg.norm(learned_w) * np.linalg.norm(true_w))
    print('cosine(learned w, true w): %.4f' % cos)
