"""Bag-of-embeddings text classifier trained with Adam (TF2 / Keras 3).

Token ids -> Embedding -> mean over the (padded) sequence -> Dense -> sparse
softmax cross-entropy. The embedding gradient is an IndexedSlices.
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

model = tf.keras.Sequential([
    tf.keras.Input(shape=(SEQ_LEN,), dtype='int32'),
    tf.keras.layers.Embedding(
        VOCAB, EMB_DIM,
        embeddings_initializer=tf.keras.initializers.RandomUniform(-1.0, 1.0)),
    tf.keras.layers.GlobalAveragePooling1D(),   # plain mean over all SEQ_LEN positions
    tf.keras.layers.Dense(N_CLASSES),           # glorot_uniform kernel, zero bias
])
# TF1 AdamOptimizer defaults: beta1=0.9, beta2=0.999, epsilon=1e-8
optimizer = tf.keras.optimizers.Adam(learning_rate=LR, beta_1=0.9,
                                     beta_2=0.999, epsilon=1e-8)


def compute_loss(logits, y):
    return tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = compute_loss(logits, y)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


step = 0
for epoch in range(EPOCHS):
    perm = rng.permutation(N)
    for i in range(0, N, BATCH):
        idx = perm[i:i + BATCH]
        l = train_step(tf.constant(tokens[idx]), tf.constant(labels[idx]))
        if step % 10 == 0:
            print('step %d, loss %.4f' % (step, float(l)))
        step += 1

logits = model(tf.constant(tokens), training=False)
l = compute_loss(logits, tf.constant(labels))
acc = tf.reduce_mean(tf.cast(tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), labels), tf.float32))
print('train loss %.4f, accuracy %.4f' % (float(l), float(acc)))
