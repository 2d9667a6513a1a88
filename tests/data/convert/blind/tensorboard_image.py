"""Linear regression with TensorBoard summaries, plus a matplotlib plot
logged as an image summary."""
import io

import numpy as np
import tensorflow as tf
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt

np.random.seed(101)

# data: y = 3x + 2 + noise
x_data = np.linspace(0, 10, 200).astype(np.float32)
y_data = (3.0 * x_data + 2.0 + np.random.randn(200) * 1.5).astype(np.float32)

X = tf.placeholder(tf.float32, name='X')
Y = tf.placeholder(tf.float32, name='Y')

W = tf.Variable(np.random.randn(), dtype=tf.float32, name='weight')
b = tf.Variable(np.random.randn(), dtype=tf.float32, name='bias')

pred = W * X + b
cost = tf.reduce_mean(tf.square(pred - Y))

optimizer = tf.train.GradientDescentOptimizer(0.01).minimize(cost)

tf.summary.scalar('loss', cost)
tf.summary.scalar('weight', W)
tf.summary.scalar('bias', b)
merged = tf.summary.merge_all()

training_steps = 500

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    writer = tf.summary.FileWriter('logs_blind', sess.graph)

    for step in range(training_steps):
        _, c, summary = sess.run([optimizer, cost, merged],
                                 feed_dict={X: x_data, Y: y_data})
        writer.add_summary(summary, step)
        if (step + 1) % 50 == 0:
            print('Step: %04d cost= %.6f W= %.4f b= %.4f'
                  % (step + 1, c, sess.run(W), sess.run(b)))

    w_val, b_val = sess.run([W, b])
    print('Training finished. W = %.4f, b = %.4f' % (w_val, b_val))

    # draw the fit and log it as an image summary
    fig = plt.figure(figsize=(6, 4))
    plt.plot(x_data, y_data, 'ro', markersize=3, label='data')
    plt.plot(x_data, w_val * x_data + b_val, 'b-', label='fitted line')
    plt.legend()
    plt.title('Linear regression fit')
    buf = io.BytesIO()
    plt.savefig(buf, format='png')
    plt.close(fig)
    buf.seek(0)

    image = tf.image.decode_png(buf.getvalue(), channels=4)
    image = tf.expand_dims(image, 0)
    image_summary_op = tf.summary.image('fit_plot', image)
    image_summary = sess.run(image_summary_op)
    writer.add_summary(image_summary, training_steps)

    # residual statistics computed with plain tf ops on numpy values
    residuals = y_data - (w_val * x_data + b_val)
    mean_abs_res = tf.reduce_mean(tf.abs(tf.constant(residuals)))
    res_std = tf.sqrt(tf.reduce_mean(tf.square(tf.constant(residuals))))
    print('Mean absolute residual: %.4f' % sess.run(mean_abs_res))
    print('RMS residual: %.4f' % sess.run(res_std))

    writer.close()
print('Summaries written to ./logs_blind (run: tensorboard --logdir=logs_blind)')
