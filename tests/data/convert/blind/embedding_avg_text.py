"""
Bag-of-words (averaged embeddings) text classifier on a synthetic
"sentiment" corpus.

Vocabulary: id 0 = <PAD>, ids 1-10 "positive" words, ids 11-20 "negative"
words, ids 21-49 neutral filler words. Sentences have random length and are
padded with 0 to MAX_LEN.
"""
from __future__ import print_function

import numpy as np
import tensorflow as tf

np.random.seed(2018)
tf.set_random_seed(2018)

VOCAB_SIZE = 50
PAD_ID = 0
MAX_LEN = 20
EMBED_DIM = 16
NUM_CLASSES = 2
BATCH_SIZE = 64
NUM_STEPS = 300
LEARNING_RATE = 0.01

POS_WORDS = np.arange(1, 11)
NEG_WORDS = np.arange(11, 21)
NEUTRAL_WORDS = np.arange(21, VOCAB_SIZE)


def make_corpus(n):
    x = np.full((n, MAX_LEN), PAD_ID, dtype=np.int32)
    y = np.random.randint(0, NUM_CLASSES, size=n).astype(np.int32)
    for i in range(n):
        length = np.random.randint(5, MAX_LEN + 1)
        tokens = []
        for _ in range(length):
            r = np.random.rand()
            if r < 0.6:
                tokens.append(np.random.choice(NEUTRAL_WORDS))
            else:
                # sentiment word, agrees with the label 75% of the time
                agree = np.random.rand() < 0.75
                if (y[i] == 1) == agree:
                    tokens.append(np.random.choice(POS_WORDS))
                else:
                    tokens.append(np.random.choice(NEG_WORDS))
        x[i, :length] = tokens
    return x, y


train_x, train_y = make_corpus(3000)
test_x, test_y = make_corpus(500)

# ---- model ----
input_x = tf.placeholder(tf.int32, [None, MAX_LEN], name='input_x')
input_y = tf.placeholder(tf.int32, [None], name='input_y')

with tf.name_scope('embedding'):
    embeddings = tf.Variable(
        tf.random_uniform([VOCAB_SIZE, EMBED_DIM], -1.0, 1.0), name='W')
    embedded = tf.nn.embedding_lookup(embeddings, input_x)  # [B, T, E]

# mean over non-padding tokens
mask = tf.cast(tf.not_equal(input_x, PAD_ID), tf.float32)          # [B, T]
lengths = tf.reduce_sum(mask, axis=1, keep_dims=True)               # [B, 1]
summed = tf.reduce_sum(embedded * tf.expand_dims(mask, -1), axis=1)  # [B, E]
sentence_vec = summed / tf.maximum(lengths, 1.0)

logits = tf.layers.dense(sentence_vec, NUM_CLASSES, name='output')

loss = tf.reduce_mean(
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=input_y, logits=logits))
predictions = tf.argmax(logits, 1, output_type=tf.int32)
accuracy = tf.reduce_mean(tf.cast(tf.equal(predictions, input_y), tf.float32))

train_op = tf.train.AdamOptimizer(LEARNING_RATE).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, NUM_STEPS + 1):
        idx = np.random.randint(0, len(train_x), BATCH_SIZE)
        feed = {input_x: train_x[idx], input_y: train_y[idx]}
        _, l, acc = sess.run([train_op, loss, accuracy], feed_dict=feed)
        if step % 50 == 0:
            print('step {:3d}  loss {:.4f}  acc {:.3f}'.format(step, l, acc))

    test_acc = sess.run(accuracy, feed_dict={input_x: test_x, input_y: test_y})
    print('Test accuracy: {:.4f}'.format(test_acc))
