"""An L2-regularised MLP in the style of the Udacity deep-learning assignments: the model inside `graph =
tf.Graph()` / `with graph.as_default():`, `tf.Session(graph=graph)`, TensorBoard summaries (two scalars and a
histogram) collected by merge_all and fetched in the training run, a FileWriter given `session.graph`, and a
Saver that saves and restores the variables at the end."""
import argparse
import os
import tempfile

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=301)
parser.add_argument("--logdir", default=os.path.join(tempfile.mkdtemp(), "logs", "l2_mlp"))
parser.add_argument("--ckpt_dir", default=os.path.join(tempfile.mkdtemp(), "checkpoints"))
args = parser.parse_args()

rng = np.random.RandomState(3)
train_dataset = rng.rand(1024, 48).astype(np.float32)
train_labels = np.eye(6, dtype=np.float32)[(train_dataset[:, :6] - train_dataset[:, 6:12]).argmax(1)]
batch_size = 64
num_hidden = 32
beta = 0.01


def accuracy(predictions, labels):
    return (100.0 * np.sum(np.argmax(predictions, 1) == np.argmax(labels, 1)) / predictions.shape[0])


graph = tf.Graph()
with graph.as_default():
    tf_train_dataset = tf.placeholder(tf.float32, shape=(None, 48))
    tf_train_labels = tf.placeholder(tf.float32, shape=(None, 6))

    weights_1 = tf.Variable(tf.truncated_normal([48, num_hidden], stddev=0.1))
    biases_1 = tf.Variable(tf.zeros([num_hidden]))
    weights_2 = tf.Variable(tf.truncated_normal([num_hidden, 6], stddev=0.1))
    biases_2 = tf.Variable(tf.zeros([6]))

    hidden = tf.nn.relu(tf.matmul(tf_train_dataset, weights_1) + biases_1)
    logits = tf.matmul(hidden, weights_2) + biases_2
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=tf_train_labels, logits=logits))
    regularizer = tf.nn.l2_loss(weights_1) + tf.nn.l2_loss(weights_2)
    loss = tf.reduce_mean(loss + beta * regularizer)

    optimizer = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    prediction = tf.nn.softmax(logits)

    tf.summary.scalar('loss', loss)
    tf.summary.scalar('l2_penalty', beta * regularizer)
    tf.summary.histogram('weights_1', weights_1)
    merged = tf.summary.merge_all()

    saver = tf.train.Saver()

with tf.Session(graph=graph) as session:
    tf.global_variables_initializer().run()
    writer = tf.summary.FileWriter(args.logdir, graph=session.graph)
    print("Initialized")
    for step in range(args.steps):
        offset = (step * batch_size) % (train_labels.shape[0] - batch_size)
        batch_data = train_dataset[offset:offset + batch_size]
        batch_labels = train_labels[offset:offset + batch_size]
        feed_dict = {tf_train_dataset: batch_data, tf_train_labels: batch_labels}
        _, l, predictions, summary = session.run([optimizer, loss, prediction, merged], feed_dict=feed_dict)
        writer.add_summary(summary, step)
        if step % 100 == 0:
            print("Minibatch loss at step %d: %f" % (step, l))
            print("Minibatch accuracy: %.1f%%" % accuracy(predictions, batch_labels))
    writer.close()
    if not os.path.exists(args.ckpt_dir):
        os.makedirs(args.ckpt_dir)
    save_path = saver.save(session, os.path.join(args.ckpt_dir, 'model.ckpt'))
    print("Model saved in file: %s" % save_path)
    saver.restore(session, save_path)
    print("Restored, accuracy: %.1f%%" % accuracy(prediction.eval(feed_dict={tf_train_dataset: train_dataset}),
                                                   train_labels))
