"""Bag-of-embeddings text classifier trained with Adam.

Token ids -> tf.nn.embedding_lookup -> mean over the (padded) sequence -> dense
-> sparse softmax cross-entropy. The embedding gradient is an IndexedSlices.
"""
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
N = 640
SEQ_LEN = 12
VOCAB = 50
EMB_DIM = 16
N_CLASSES = 3
BATCH = 32
EPOCHS = 2
LR = 0.01

# synthetic "documents": each class prefers its own block of 16 token ids
labels = rng.randint(0, N_CLASSES, size=N)
lengths = rng.randint(4, SEQ_LEN + 1, size=N)
on_topic = rng.rand(N, SEQ_LEN) < 0.6
random_tok = rng.randint(1, VOCAB, size=(N, SEQ_LEN))
class_tok = 1 + labels[:, None] * 16 + rng.randint(0, 16, size=(N, SEQ_LEN))
tokens = np.where(on_topic, class_tok, random_tok)
tokens[np.arange(SEQ_LEN)[None, :] >= lengths[:, None]] = 0   # 0 = padding
tokens = tokens.astype(np.int32)
labels = labels.astype(np.int32)

input_ids = tf.placeholder(tf.int32, [None, SEQ_LEN], name='input_ids')
y = tf.placeholder(tf.int32, [None], name='labels')

embedding = tf.get_variable('embedding', [VOCAB, EMB_DIM],
                            initializer=tf.random_uniform_initializer(-1.0, 1.0))
embedded = tf.nn.embedding_lookup(embedding, input_ids)   # (B, T, E)
doc = tf.reduce_mean(embedded, axis=1)                    # (B, E)

with tf.variable_scope('output'):
    W = tf.get_variable('W', [EMB_DIM, N_CLASSES])
    b = tf.get_variable('b', [N_CLASSES], initializer=tf.zeros_initializer())
logits = tf.matmul(doc, W) + b

loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), y), tf.float32))
train_op = tf.train.AdamOptimizer(learning_rate=LR).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    step = 0
    for epoch in range(EPOCHS):
        perm = rng.permutation(N)
        for i in range(0, N, BATCH):
            idx = perm[i:i + BATCH]
            _, l = sess.run([train_op, loss], feed_dict={input_ids: tokens[idx], y: labels[idx]})
            if step % 10 == 0:
                print('step %d, loss %.4f' % (step, l))
            step += 1
    l, acc = sess.run([loss, accuracy], feed_dict={input_ids: tokens, y: labels})
    print('train loss %.4f, accuracy %.4f' % (l, acc))
