"""A tied-weights autoencoder in the style of pkmital's tutorials (2016): a function builds the graph and returns
its tensors in a dict, another trains it inside a Session, and the script calls that one from its main guard."""
import argparse
import math

import numpy as np
import tensorflow as tf


def autoencoder(dimensions=[64, 32, 16]):
    """Build a deep autoencoder w/ tied weights; returns x, z, y and cost in a dict."""
    x = tf.placeholder(tf.float32, [None, dimensions[0]], name='x')
    current_input = x
    encoder = []
    for layer_i, n_output in enumerate(dimensions[1:]):
        n_input = int(current_input.get_shape()[1])
        W = tf.Variable(tf.random_uniform([n_input, n_output], -1.0 / math.sqrt(n_input), 1.0 / math.sqrt(n_input)))
        b = tf.Variable(tf.zeros([n_output]))
        encoder.append(W)
        current_input = tf.nn.tanh(tf.matmul(current_input, W) + b)
    z = current_input
    encoder.reverse()
    for layer_i, n_output in enumerate(dimensions[:-1][::-1]):
        W = tf.transpose(encoder[layer_i])
        b = tf.Variable(tf.zeros([n_output]))
        current_input = tf.nn.tanh(tf.matmul(current_input, W) + b)
    y = current_input
    cost = tf.reduce_sum(tf.square(y - x))
    return {'x': x, 'z': z, 'y': y, 'cost': cost}


def test_data():
    """Train the autoencoder on random data, print the cost per epoch and reconstruct a few examples."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    data = np.random.RandomState(5).rand(512, 64).astype(np.float32)
    mean_img = np.mean(data, axis=0)
    ae = autoencoder(dimensions=[64, 32, 16])
    optimizer = tf.train.AdamOptimizer(0.001).minimize(ae['cost'])
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    batch_size = 32
    step = 0
    for epoch_i in range(args.steps // 16 + 1):
        for batch_i in range(len(data) // batch_size):
            if step == args.steps:
                break
            batch_xs = data[batch_i * batch_size:(batch_i + 1) * batch_size]
            train = np.array([img - mean_img for img in batch_xs])
            sess.run(optimizer, feed_dict={ae['x']: train})
            step += 1
        print(epoch_i, sess.run(ae['cost'], feed_dict={ae['x']: train}))
    recon = sess.run(ae['y'], feed_dict={ae['x']: data[:4] - mean_img})
    print("reconstructed", recon.shape)


if __name__ == '__main__':
    test_data()
