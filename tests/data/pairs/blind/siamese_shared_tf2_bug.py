"""Siamese network (TF2 / Keras 3) with a contrastive loss on the embedding distance.

BUG: the left and right inputs go through two separately built towers, so the
weights are no longer shared as they were with variable_scope(reuse=AUTO_REUSE).
"""
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
N, D, N_CENTERS = 512, 8, 4
HIDDEN, EMB = 16, 4
BATCH = 32
EPOCHS = 3
LR = 0.01
MARGIN = 1.0

# pairs of points drawn around 4 cluster centres; label 1 = same cluster
centers = 2.0 * rng.randn(N_CENTERS, D)
c1 = rng.randint(0, N_CENTERS, size=N)
same = rng.rand(N) < 0.5
c2 = np.where(same, c1, (c1 + rng.randint(1, N_CENTERS, size=N)) % N_CENTERS)
X1 = (centers[c1] + rng.randn(N, D)).astype(np.float32)
X2 = (centers[c2] + rng.randn(N, D)).astype(np.float32)
Y = same.astype(np.float32)


def make_tower():
    # glorot_uniform kernels and zero biases, as tf.get_variable gave in TF1
    return tf.keras.Sequential([
        tf.keras.Input(shape=(D,)),
        tf.keras.layers.Dense(HIDDEN, activation='relu'),
        tf.keras.layers.Dense(EMB),
    ], name='tower')


class Siamese(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.left_tower = make_tower()
        self.right_tower = make_tower()

    def call(self, left, right):
        e1 = self.left_tower(left)
        e2 = self.right_tower(right)
        return tf.sqrt(tf.reduce_sum(tf.square(e1 - e2), axis=1) + 1e-6)


def contrastive_loss(d, y):
    return tf.reduce_mean(y * tf.square(d) + (1.0 - y) * tf.square(tf.maximum(MARGIN - d, 0.0))) / 2.0


model = Siamese()
model(tf.zeros([1, D]), tf.zeros([1, D]))   # build
# TF1 AdamOptimizer defaults: beta1=0.9, beta2=0.999, epsilon=1e-8
optimizer = tf.keras.optimizers.Adam(learning_rate=LR, beta_1=0.9,
                                     beta_2=0.999, epsilon=1e-8)


@tf.function
def train_step(left, right, y):
    with tf.GradientTape() as tape:
        d = model(left, right, training=True)
        loss = contrastive_loss(d, y)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


step = 0
for epoch in range(EPOCHS):
    perm = rng.permutation(N)
    for i in range(0, N, BATCH):
        idx = perm[i:i + BATCH]
        l = train_step(tf.constant(X1[idx]), tf.constant(X2[idx]), tf.constant(Y[idx]))
        if step % 10 == 0:
            print('step %d, loss %.4f' % (step, float(l)))
        step += 1

d = model(tf.constant(X1), tf.constant(X2))
l = contrastive_loss(d, tf.constant(Y))
a = tf.reduce_mean(tf.cast(tf.equal(tf.cast(d < MARGIN / 2.0, tf.float32), Y), tf.float32))
print('full-data loss %.4f, pair accuracy %.4f' % (float(l), float(a)))
