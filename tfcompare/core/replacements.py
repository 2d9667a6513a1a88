"""The TF2 idiom that replaces each TF1 API: one table, read by `tfcompare migrate` (its report) and by the legacy
runtime (what a refused `tf.contrib` symbol says to use instead).

Keys are names relative to `tf` / `tf.compat.v1`; the longest matching prefix wins (`lookup`).
"""

from __future__ import annotations

__all__ = ["IDIOMS", "lookup"]

# relative name (prefix) -> the TF2 idiom that replaces it
IDIOMS = {
    "placeholder": "pass tensors as arguments of a tf.function (input_signature=[tf.TensorSpec([None, ...], tf.float32)])",
    "placeholder_with_default": "a Python default argument of the tf.function",
    "Session": "call the tf.function directly; results are tensors (.numpy())",
    "InteractiveSession": "eager execution: just run the ops",
    "get_variable": "tf.Variable(initial_value, name=...) created once in a tf.Module or keras.layers.Layer",
    "variable_scope": "tf.name_scope, or variables owned by a tf.Module",
    "global_variables_initializer": "nothing: TF2 variables are initialised when created",
    "local_variables_initializer": "nothing: TF2 variables are initialised when created",
    "tables_initializer": "nothing: lookup tables initialise when created",
    "disable_v2_behavior": "remove it once the code runs eagerly (it turns off every TF2 behaviour)",
    "disable_eager_execution": "remove it; wrap the step in tf.function instead",
    "train.AdamOptimizer": "tfcompare.Adam (TF1-exact), or keras.optimizers.Adam(learning_rate, epsilon=1e-8) (close, not equal)",
    "train.GradientDescentOptimizer": "keras.optimizers.SGD(learning_rate), or tfcompare.SGD (TF1-exact)",
    "train.MomentumOptimizer": "keras.optimizers.SGD(learning_rate, momentum=m), or tfcompare.Momentum (TF1-exact)",
    "train.RMSPropOptimizer": "tfcompare.RMSProp (TF1-exact), or keras.optimizers.RMSprop(learning_rate, rho=0.9, epsilon=1e-10)",
    "train.AdagradOptimizer": "tfcompare.Adagrad (TF1-exact), or keras.optimizers.Adagrad(learning_rate, initial_accumulator_value=0.1)",
    "train.Saver": "tf.train.Checkpoint(model=..., optimizer=...).save / .restore",
    "train.MonitoredTrainingSession": "a custom loop over a tf.data.Dataset with tf.train.CheckpointManager",
    "train.start_queue_runners": "tf.data.Dataset pipelines (no queue runners in TF2)",
    "train.Coordinator": "tf.data.Dataset pipelines (no queue runners in TF2)",
    "layers.dense": "keras.layers.Dense(units, activation=...)",
    "layers.conv2d": "keras.layers.Conv2D(filters, kernel_size, ...)",
    "layers.dropout": "keras.layers.Dropout(rate) (called with training=True/False)",
    "layers.batch_normalization": "keras.layers.BatchNormalization() (momentum 0.99, epsilon 1e-3 as TF1's)",
    "layers": "the keras.layers class of the same name",
    "nn.rnn_cell": "keras.layers.LSTMCell / GRUCell inside keras.layers.RNN (weights: kernel + recurrent_kernel)",
    "nn.dynamic_rnn": "keras.layers.RNN(cell, return_sequences=True) or keras.layers.LSTM",
    "nn.dropout": "tf.nn.dropout(x, rate=1 - keep_prob)",
    "losses": "keras.losses.<Name>() (reduction: mean over the batch) or tf.nn.*_with_logits + tf.reduce_mean",
    "summary.FileWriter": "tf.summary.create_file_writer(logdir)",
    "summary.merge_all": "write each summary inside `with writer.as_default():`",
    "summary": "tf.summary.scalar/histogram/... inside `with writer.as_default():`, with step=",
    "app.flags": "absl.flags (from absl import flags)",
    "app.run": "absl.app.run(main)",
    "logging": "absl.logging, or tf.get_logger()",
    "set_random_seed": "tf.random.set_seed(seed) (graph-level and op seeds combine differently in TF2)",
    "random_normal": "tf.random.normal",
    "contrib.slim": "tf_slim (pip install tf-slim), or keras.layers",
    "contrib.rnn": "keras.layers.LSTMCell / GRUCell / RNN",
    "contrib.layers": "keras.layers (fully_connected -> Dense, conv2d -> Conv2D)",
    "contrib.factorization": "keras / scikit-learn for KMeans and GMM; WALS matrix factorisation: an embedding "
                             "model trained with keras (or tensorflow-recommenders)",
    "contrib.tensor_forest": "TensorFlow Decision Forests (pip install tensorflow_decision_forests): "
                             "tfdf.keras.RandomForestModel",
    "contrib.boosted_trees": "TensorFlow Decision Forests: tfdf.keras.GradientBoostedTreesModel",
    "contrib.slim.nets": "keras.applications (ResNet50, VGG16, InceptionV3, MobileNet, ...)",
    "contrib.slim.learning": "keras.Model.fit, or a custom training loop with tf.function",
    "contrib.learn.preprocessing": "keras.layers.TextVectorization(output_sequence_length=max_document_length) "
                                   "(its ids differ: '' is 0, [UNK] 1, then by frequency)",
    "contrib.learn": "keras.Model.fit, and tf.data / keras.datasets for the data",
    "contrib.eager.Network": "keras.Model (subclass it; layers as attributes, call() for the forward pass)",
    "contrib.eager": "TF2 itself: eager is the default; tf.GradientTape for gradients, tf.data iteration",
    "contrib.framework": "tf.compat.v1.train.get_or_create_global_step; variables owned by a tf.Module",
    "contrib.training": "a custom training loop with tf.function; tf.data for input pipelines",
    # TensorFlow Addons (tfa.seq2seq, tfa.text.crf) reached its end of life in 2024 and does not support current
    # TensorFlow: the replacements named are maintained ones
    "contrib.seq2seq": "Keras attention layers (keras.layers.Attention, AdditiveAttention, MultiHeadAttention) with "
                       "the decoder's loop written by hand (a keras.layers.RNN cell stepped in tf.while_loop or a "
                       "Python loop), or KerasHub's sequence-to-sequence models and samplers",
    "contrib.crf": "a CRF written on tf: the log-likelihood by the forward algorithm (tf.math.reduce_logsumexp "
                   "over the transition scores) and Viterbi decoding in a tf.while_loop",
    "contrib.distributions": "TensorFlow Probability (tfp.distributions)",
    "contrib.metrics": "keras.metrics",
    "contrib.losses": "keras.losses",
    "contrib.tpu": "tf.distribute.TPUStrategy",
    "contrib.cudnn_rnn": "keras.layers.LSTM / GRU (they use cuDNN on a GPU)",
    "contrib": "its TF2 replacement (Keras, KerasHub, TensorFlow Probability, or another maintained package)",
    "estimator": "a keras.Model with fit(), or a custom training loop with tf.function",
    "keras": "Keras 3 (import keras); TF1's tf.keras graph-mode behaviour is gone",
    "Print": "tf.print(...)",
    "python": "the public tf.* API (tensorflow.python.* is private and changes without notice)",
}


def lookup(rel: str, table: dict | None = None) -> str | None:
    """The entry for the longest prefix of `rel` (dotted, relative to tf) in `table` (default IDIOMS)."""
    table = IDIOMS if table is None else table
    parts = rel.split(".")
    for n in range(len(parts), 0, -1):
        hit = table.get(".".join(parts[:n]))
        if hit:
            return hit
    return None
