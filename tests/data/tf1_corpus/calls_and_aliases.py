"""TF1 code whose names resolve on TF 2.21 but whose calls break (written for tfcompare's tests)."""
import tensorflow as tf
from tensorflow.python.ops import resources

tfe = tf.contrib.eager
x = tf.placeholder(tf.float32, [None, 3])
total = tf.reduce_sum(x, reduction_indices=1, keep_dims=True)
probs = tf.nn.softmax(x, dim=1)
dropped = tf.nn.dropout(x, 0.8)
dataset = tf.data.Dataset.from_tensor_slices(tf.ones([4, 3]))
iterator = dataset.make_initializable_iterator()
loss_summary = tf.summary.scalar("loss", tf.reduce_mean(total))
merged = tf.summary.merge_all()
noise = tf.log(tf.random_normal([3]))
tf.logging.info("built")
step = tfe.Variable(0)


def assign_to_device(device):
    def _assign(op):
        return device if op.type == "VarHandleOp" else "/cpu:0"
    return _assign


with tf.device(assign_to_device("/cpu:0")):
    weights = tf.Variable(tf.zeros([3, 1]))
with tf.device("/cpu:0"):
    bias = tf.Variable(tf.zeros([1]))
local = resources.shared_resources()
conv = tf.nn.conv2d(tf.ones([1, 4, 4, 1]), tf.ones([2, 2, 1, 1]), [1, 1, 1, 1], "SAME")  # filter -> filters: same
hits = tf.nn.in_top_k(probs, tf.ones([4], tf.int32), 1)  # TF2 takes targets first, then predictions
tf.summary.image("input", tf.reshape(x, [-1, 1, 3, 1]), 10)  # TF1's 3rd argument is max_outputs, not a step
width = x.get_shape()[1].value
FLAGS = tf.app.flags.FLAGS  # a value, not an alias: FLAGS.batch_size is the user's flag
size = FLAGS.batch_size
