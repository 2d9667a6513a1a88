"""tf2_logreg.py with tf1_diverges.py's learning rate of 1e38: a faithful rewrite of a training that diverges."""
import tensorflow as tf

(x_train, y_train), _ = tf.keras.datasets.mnist.load_data()
x_train = x_train.reshape(-1, 784).astype("float32") / 255.0
dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train.astype("int64"))).shuffle(10000).batch(100)

W = tf.Variable(tf.zeros([784, 10]))
b = tf.Variable(tf.zeros([10]))
optimizer = tf.keras.optimizers.SGD(learning_rate=1e38)


@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        logits = images @ W + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    grads = tape.gradient(loss, [W, b])
    optimizer.apply_gradients(zip(grads, [W, b]))
    return loss


for epoch in range(5):
    for images, labels in dataset:
        loss = train_step(images, labels)
    print("epoch", epoch, "loss", float(loss))
