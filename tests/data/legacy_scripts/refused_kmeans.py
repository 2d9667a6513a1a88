"""K-means with tf.contrib.factorization, in the style of the public TF1 examples: not provided by the runtime."""
import tensorflow as tf
from tensorflow.contrib.factorization import KMeans

X = tf.placeholder(tf.float32, shape=[None, 784])
kmeans = KMeans(inputs=X, num_clusters=25, distance_metric="cosine", use_mini_batch=True)
