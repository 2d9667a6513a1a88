"""`convert` on TF1 scripts written outside the project (tests/data/convert/blind, by helpers who had not seen
tfcompare) of the kinds the rewrites are for: a fetch with a computed tensor fed, fetched lists of tensors,
TensorFlow code on plain values after training, a GAN's gradient penalty, several graphs, stateful RNNs,
Estimators. Each is proven by pair, has no TODO and runs on its own."""

from __future__ import annotations

import concurrent.futures
import importlib.util
import shutil
from pathlib import Path

import pytest

from tfcompare.scripts.convert import WRITTEN_AGREES, ConvertOptions, convert_script
from tfcompare.scripts.convert.line_width import MAX_LINE

BLIND = Path(__file__).parent / "data" / "convert" / "blind"
# script -> what the rewrite of its kind must say
EXPECTED = {
    # the decoder's provenance is the script's two decoder lines, not its `dense` helper's (called from five); the
    # script's dict is named `model`, as the rewrite's instance: its members are the instance's (not model_recon)
    "vae_latent_grid": ["decoded = model.recon_from_z(grid).numpy()", "codes = model.z_mean(sample).numpy()",
                        "def train_step(x):\n",
                        # the printed terms TF1 fetched with the train op: from the step's one forward pass (one
                        # noise draw), as TF1's run computed them; before, each method drew its own
                        "        loss_value, recon_loss, kl_loss = model.loss_and_recon_loss_and_kl_loss(x)\n",
                        "    l, rl, kl = [value.numpy() for value in train_step(batch)]\n",
                        # the script's docstring kept (its authors' words), the rewrite's note below it; a call
                        # between imports stays between them (pyplot after the backend is chosen)
                        'decode a regular grid of latent points and encode some of the data.\n"""\n\n'
                        "# TF2 rewrite of vae_latent_grid.py, written by `tfcompare convert`",
                        "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n",
                        'what computed it does not run."""\n        # TF1 lines 51-52\n'],
    "activations_lists": ["acts_val = [value.numpy() for value in model.net_acts(X_test)]",
                          "pre_val = [value.numpy() for value in model.net_pre(X_test)]"],
    "tensorboard_image": ["image = tf.image.decode_png(buf.getvalue(), channels=4)",
                          "image_summary_op = {'fit_plot': (tf.summary.image, image)}",
                          "add_summary(writer, image_summary, training_steps)"],
    # the critic's gradient at the interpolates (tf.gradients in the loss): its ReluGrad ops, as TF1 computed them
    # two graphs (reset_default_graph() between them): each its own model, both parts' data drawn once, at the top
    # batch norms under an `is_training` placeholder: the rewrite's own bool argument, turned False with TF1's in
    # pair's inference-mode read (read as True it was a false DIFFER: the batch's statistics against TF1's moving)
    "bn_is_training": ["def train_step(x, y, is_training):\n",
                       "loss_value = model.loss(x, y, is_training, update_moving_averages=True)"],
    # int32 token ids and labels: the argmax keeps TF1's `output_type=tf.int32` (dropped, tf.equal failed on int64)
    "embedding_avg_text": ["tf.argmax(logits, 1, output_type=tf.int32)"],
    "two_regressions": ["class Model2(tf.Module):", "model = Model2()\n", "print('\\nLinear regression final MSE",
                        # the loss and the accuracy TF1 fetched in one run: one forward pass
                        "loss_val, acc_val = [value.numpy() for value in model.loss_and_accuracy(x_blobs, y_blobs)]",
                        "    def loss_and_accuracy(self, x, y):\n        logits = self(x)\n"],
    # a stateful RNN (truncated BPTT): the state an argument of the methods that read the RNN, an LSTM's c and h
    # stacked; the global the script fed is the zero state; a run that does not feed it passes that
    # a carried line keeps its own trailing comment (stop 71; before: dropped)
    "sine_lstm": ["num_steps = 20        # truncated BPTT length\n", "init_state = tf.zeros([2, 8, 32], tf.float32)", "    def __call__(self, x, init_state):\n",
                  "        feed['init_state'] = state_val\n",
                  "            feed['x'], feed['y'], feed.get('init_state', init_state)\n",
                  "            initial_state=init_state,\n", "        tf.TensorSpec([2, 8, 32], tf.float32),\n",
                  "        final_state = tf.stack(state1, axis=0)\n        return pred, final_state\n",
                  "        pred, final_state = self(x, init_state)\n"],
    # a GRU's state is one tensor; `sess.run(model.initial_state)` is the zero state's value
    # TF1's graph seed, then NumPy's: Keras's unseeded initializers seeded too (from Python's `random`)
    "char_gru": ["tf.keras.utils.set_random_seed(1234)\nnp.random.seed(1234)\n",
                 "initial_state = tf.zeros([4, 64], tf.float32)", "    state = initial_state.numpy()\n",
                 "    def __call__(self, input_data, initial_state):\n"],
    # an Estimator: numpy_input_fn as its tf.data pipeline, train(steps=N) a loop over N batches calling the step,
    # evaluate() the TRAIN spec's streaming metric as a Keras metric and its loss as the batches' mean
    "linear_regression_est": ["train_input_fn = tf.data.Dataset.from_tensor_slices(({'x': X}, Y))\n"
                              "train_input_fn = train_input_fn.shuffle(1000).repeat().batch(16)\n"
                              "for features, labels in train_input_fn.take(200):\n"
                              "    train_step(features['x'], labels)\n",
                              "rmse_metric = tf.keras.metrics.RootMeanSquaredError()\n",
                              # the metric's predictions are the forward pass itself
                              "    rmse_metric.update_state(labels, model(features['x']))\n"
                              "    loss_mean.update_state(model.loss(features['x'], labels))\n",
                              "metrics = {'rmse': rmse_metric.result().numpy(), 'loss': loss_mean.result().numpy(),"],
    # the guide's style: accuracy built before `if mode == EVAL`, named only by the EVAL spec's eval_metric_ops; the
    # model_fn's forward pass once, from the Estimator's batches (its labels are no placeholder)
    "iris_like_dnn": ["for features, labels in train_input_fn.take(300):\n    train_step(features['x'], labels)\n",
                      "accuracy_metric = tf.keras.metrics.Accuracy()\n",
                      "    accuracy_metric.update_state(labels, model.predictions(features['x']))\n",
                      "eval_result = {'accuracy': accuracy_metric.result().numpy(), 'loss': loss_mean.result()",
                      "    def __call__(self, x):\n", "        predictions = tf.argmax(self(x), 1)\n",
                      # the model_fn's own names, though the Estimator, not the script, calls it
                      "        logits = tf.matmul(net, self.dense_2_kernel) + self.dense_2_bias\n"
                      "        return logits\n",
                      "SparseCategoricalCrossentropy(from_logits=True)(labels, self(x))\n"],
    # a class built four times, each instance trained by its own optimizer in one loop over them: the TF2 class
    # kept, each instance with its optimizer (TF1's settings) and its step; the variables under the instance's name
    # as TF1's variable_scope(name) put them; the loop as written (before: 3 TODOs, no training step)
    "two_nets_compared": ["class Net(tf.Module):",
                          "    def __init__(self, optimizer, name):\n        super().__init__(name=name)\n"
                          "        self.optimizer = optimizer\n        with self.name_scope:",
                          "net_SGD = Net(tf.keras.optimizers.SGD(learning_rate=LR), 'SGD')\n",
                          "net_Momentum = Net(Momentum(learning_rate=LR, momentum=0.9), 'Momentum')\n",
                          "nets = [net_SGD, net_Momentum, net_RMSprop, net_Adam]\n",
                          "    for net, l_his in zip(nets, losses_his):\n        l = net.train(b_x, b_y).numpy()\n",
                          "    full_loss = net.loss(x, y).numpy()\n", "    def train(self, x, y):\n"],
    # the same kind, the instances in a list, each under `variable_scope(name)`, the optimizer bound to an attribute
    # first (`self.optimizer = opt_class(LR, **opt_kwargs)`); the loss's softmax reshape inside that scope is the
    # cross-entropy's, not the forward pass (before, `__call__` returned the reshape and no method called it)
    "optimizer_scope_compare": ["    Net(Momentum(learning_rate=LR, momentum=0.9), 'momentum'),\n",
                                "        l = net.train_op(b_x, b_y).numpy()\n",
                                "        logits = tf.matmul(l3, self.logits_kernel) + self.logits_bias\n"
                                "        return logits\n",
                                "    def accuracy(self, x, y):\n        logits = self(x)\n"],
    # the same kind, the instances differing by their constructor's arguments: an activation (each instance's op
    # there is its own argument's) and a width (the variables' shapes); pair compares one step per instance; its
    # learning rate a parameter of the class, as written (`GradientDescentOptimizer(lr)`), with its default
    "activation_compare": ["    def __init__(self, activation, name, n_hidden=30, lr=0.05):\n",
                           "        self.optimizer = tf.keras.optimizers.SGD(learning_rate=lr)\n"
                           "        self.activation = activation\n",
                           "self.b1 = tf.Variable(tf.fill([n_hidden], 0.1), name='b1')",
                           "tf.Variable(tf.random.normal([1, n_hidden], stddev=0.5), name='w1')",
                           "tf.Variable(tf.random.normal([n_hidden, 1], stddev=0.5), name='w2')",
                           "        hidden = self.activation(tf.matmul(x, self.w1) + self.b1)\n",
                           "        Net(tf.nn.tanh, 'tanh_wide', n_hidden=100)]\n"],
    # gradient statistics fetched with the train op (`tf.global_norm` of compute_gradients' raw gradients, the
    # largest, the share clipped) and the global step: the step computes them from its tape's gradients in TF1's
    # variable order, before the clip, and returns them; the global step is the optimizer's iteration count (before:
    # the run a TODO, the global step too without a schedule, and the rewrite took no step)
    "grad_transform": ["    gradients = tape.gradient(loss_value, variables)\n",
                       "    flat_grads = tf.concat([flat1, flat2, flat3, flat4, flat5, flat6], 0)\n",
                       "    max_abs_grad = tf.reduce_max(tf.abs(flat_grads))\n"
                       "    # as TF1 clipped them before apply_gradients\n"
                       "    gradients = [tf.clip_by_value(g, -0.02, 0.02) for g in gradients]\n",
                       "    return loss_value, frac_clipped, grad_norm, max_abs_grad\n",
                       "    loss_val, fclip, gnorm, gmax = (\n"
                       "        value.numpy() for value in train_step(train_x[idx], train_y[idx])\n    )\n"
                       "    step = optimizer.iterations.numpy()\n"],
    # an ExponentialMovingAverage of the weights in the train op's group (CIFAR-10's `ema.apply(tf.trainable_
    # variables())` under the update's control dependency, `num_updates=global_step`), the test accuracy also with
    # the averages (`ema.average(v)`): TF2's own ExponentialMovingAverage, the same shadow names, which pair compares
    # as state (before: 8 TODOs, the rewrite took no step)
    "ema_weights": ["ema = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY, num_updates=optimizer.iterations)\n"
                    "ema.apply(model.trainable_variables)  # the averages start at the initial weights, as TF1's did\n",
                    "    optimizer.apply_gradients(zip(gradients, model.trainable_variables))\n"
                    "    ema.apply(model.trainable_variables)  # after the update, as TF1's control dependency "
                    "ran it\n",
                    "        h1 = tf.nn.relu(tf.matmul(x, ema.average(self.params_w1)) + "
                    "ema.average(self.params_b1))\n"],
    # a hand-written batch norm: `ema.apply([batch_mean, batch_var])` under `tf.cond(is_training, ...)`, read back with
    # `ema.average` at inference: the moving moments assigned where the flag says training (before: 6 TODOs and a
    # DIFFER, true, on the unwritten updates; then a false DIFFER on a moment Adam moves by a rounding-sized gradient)
    # stop 64's second batch: `tf.train.piecewise_constant` on `get_or_create_global_step()`, its rate fetched and
    # printed (before: Keras's constant 0.1, a true DIFFER: "only TF1 has a schedule"); AdadeltaOptimizer (before:
    # SGD and a TODO, a true DIFFER); weights with a `regularizer=` and `tf.losses.get_regularization_loss()`
    # (proven at the first try)
    "piecewise_lr": ["    learning_rate=tf.keras.optimizers.schedules.PiecewiseConstantDecay(\n"
                     "        boundaries=[100, 200], values=[0.1, 0.05, 0.01]\n    ),\n",
                     "    idx = np.random.choice(len(X_train), BATCH_SIZE, replace=False)\n"
                     "    lr_val = optimizer.learning_rate.numpy()\n"
                     "    loss_val = train_step(X_train[idx], Y_train[idx]).numpy()\n"
                     "    step = optimizer.iterations.numpy()\n"],
    "adadelta_cnn": ["optimizer = tf.keras.optimizers.Adadelta(learning_rate=1.0, rho=0.95, epsilon=1e-06)\n"],
    "l2_regularizer": ["        total_loss = mse + reg_loss\n"],
    # a TFRecord file written with tf.python_io and tf.train.Example, read back by TFRecordDataset.map(parse_fn) with
    # tf.parse_single_example, no feed: the writing and parse_fn kept in TF2's names; the evaluation's 20 runs in a
    # comprehension each pull a batch (before: 9 TODOs, no step; then one batch evaluated twenty times)
    "tfrecord_pipeline": ["writer = tf.io.TFRecordWriter(RECORD_PATH)\n",
                          "    writer.write(example.SerializeToString())\n",
                          "    parsed = tf.io.parse_single_example(\n",
                          "            'x': tf.io.FixedLenFeature([N_FEATURES], tf.float32),\n",
                          "dataset = dataset.map(parse_fn).shuffle(1000, seed=123).batch(BATCH_SIZE).repeat()\n"
                          "iterator = iter(dataset)\n",
                          "accs = [model.accuracy(*iterator.get_next()).numpy() for _ in range(20)]\n"],
    "bn_moments_ema": ["            if is_training:  # TF1 ran these in a tf.cond\n",
                       # TF1's names ended `bn1/bn1/moments/Squeeze/ExponentialMovingAverage`
                       "                self.bn1_moving_mean.assign_sub(\n"
                       "                    (self.bn1_moving_mean - tf.squeeze(mean3, axis=[0])) * (1.0 - 0.9)\n"],
    # stop 65: an LSTMCell with peepholes, cell_clip and a projection through dynamic_rnn (before: written op by op, a
    # TensorArray TODO and no step)
    "peephole_lstm": ["        outputs1, state1 = lstm_cell(\n",
                      "            projection=self.projection_kernel,\n",
                      "            cell_clip=10.0,\n",
                      "def lstm_cell(inputs, kernel, bias, peepholes=None, projection=None, forget_bias=1.0,\n"],
    # stop 65: slice_input_producer + shuffle_batch under a Coordinator, no feed (before: the dequeue untranslated,
    # 6 TODOs, no step; then a DIFFER on the inputs: TF1's queue shuffled where pair had turned tf.data's off)
    "queue_shuffle_batch": ["dataset = tf.data.Dataset.from_tensor_slices((features, labels))\n"
                            "dataset = dataset.shuffle(dataset.cardinality(), seed=42).repeat()\n"
                            "dataset = dataset.shuffle(min_after_dequeue, seed=42).batch(BATCH_SIZE, "
                            "drop_remainder=True)\nbatches = iter(dataset)\ntry:\n    step = 0\n"
                            "    while step < NUM_STEPS:\n        x_batch, y_batch = batches.get_next()\n",
                            "accs = [model.batch_accuracy(*batches.get_next()).numpy() for _ in range(5)]\n"],
    # stop 65's second batch: a CSV read by string_input_producer + TextLineReader + decode_csv at module level, a
    # TFRecord file read in the script's read_and_decode(filename_queue) (before: 3 and 6 TODOs, no step); a
    # MultiRNNCell of two GRUCells through dynamic_rnn with sequence_length (proven at the first try once stacks were
    # written)
    "csv_reader_queue": ["def parse_line(value):\n",
                         "dataset = dataset.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))\n"
                         "dataset = dataset.map(parse_line)\n"],
    "tfrecord_reader_queue": ["def read_and_decode(serialized_example):\n",
                              "dataset = dataset.flat_map(tf.data.TFRecordDataset)\n"
                              "dataset = dataset.map(read_and_decode)\n",
                              "tf.math.in_top_k(targets=y_batch, predictions=logits, k=1)",
                              "    writer.write(example.SerializeToString())\n"],
    "stacked_gru_classifier": ["        outputs2, state2 = gru(\n            outputs1,\n",
                               "logits = tf.matmul(state2, self.weights_out) + self.biases_out\n"],
    # stop 66: char-rnn's state fed back cell by cell (`for i, (c, h) in enumerate(model.initial_state): feed[c] =
    # state[i].c`) is the whole state fed, one tensor of every cell's c and h; its learning-rate variable set per epoch
    # by `sess.run(tf.assign(model.lr, ...))` is the Keras optimizer's; sampling from a reuse=True copy at batch 1
    # starts from `sess.run(cell.zero_state(1, tf.float32))`, the zeros (before: 12 TODOs, no step)
    "stacked_lstm_state": ["initial_state = tf.zeros([2, 2, 16, 64], tf.float32)",
                           "            value.numpy() for value in train_step(x_batches[b], y_batches[b], state)\n",
                           "            initial_state=initial_state[1],\n",
                           "    optimizer.learning_rate.assign(base_lr * decay_rate ** e)\n",
                           "state = np.zeros([2, 2, 1, 64], np.float32)\n",
                           "model.sample_model_probs_and_sample_model_final_state(x, state)\n"],
    # stop 66: char-rnn's own model.py and train.py in one file: legacy_seq2seq.rnn_decoder is static_rnn from the
    # fed state, [tf.squeeze(x, [1]) for x in tf.split(inputs, 20, 1)] its steps (one tf.unstack), the training in a
    # function called by main(); the step returns the loss and the final state from one forward pass (the state's
    # own method ran the RNN again: twice the forward ops); stop 67: the model's call returns the final state beside
    # the logits, and the loss's method reads both from that one call (it wrote the forward pass out again)
    "charrnn_seq2seq": ["tf.unstack(tf.gather(self.embedding, input_data), num=20, axis=1)",
                        "tf.reshape(tf.concat(outputs2, 1), [-1, 64])",
                        "        return logits, final_state\n",
                        "        logits, final_state = self(input_data, initial_state)\n"
                        "        # TF1 lines 126, 129, 131\n"
                        "        xent1 = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=flat2, logits=logits)\n",
                        "    return loss_value, final_state\n",
                        "            train_loss, state = [value.numpy() for value in train_step(x, y, state)]\n"],
    "wgan_gp_toy": ["tf.where(h3 > 0, tf.matmul(flat1, self.critic_out_W, transpose_b=True), 0.0),",
                    "gradients = tf.matmul(t2, self.critic_fc1_W, transpose_b=True)"],
}


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("blind")
    for name in EXPECTED:  # run where they may write (a FileWriter's logs), not in the repository
        shutil.copy(BLIND / f"{name}.py", out)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        futures = {name: pool.submit(convert_script, out / f"{name}.py", out / f"{name}_tf2.py",
                                     ConvertOptions(levers=())) for name in EXPECTED}
    return out, {name: f.result() for name, f in futures.items()}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_a_blind_script_of_this_kind_is_proven_with_no_todo_and_runs_on_its_own(converted, name):
    out, results = converted
    result = results[name]
    assert result.status == WRITTEN_AGREES, "\n".join(result.lines())
    text = (out / f"{name}_tf2.py").read_text()
    assert result.todos == [] and "TODO" not in text, result.todos
    assert [line for line in EXPECTED[name] if line not in text] == [], text
    own = {line.strip() for line in (BLIND / f"{name}.py").read_text().splitlines()}  # the script's, kept as written
    assert [line for line in text.splitlines() if len(line) > MAX_LINE and line.strip() not in own] == []
    # one step per instance of a class the loop trains in turn (four networks: four steps), else pair's default 3
    steps = 4 if name in ("activation_compare", "two_nets_compared", "optimizer_scope_compare") else 3
    assert len(result.pair.checks) == steps and all(c.ok for c in result.pair.checks)
    assert result.alone["error"] == "" and result.alone["steps"] == steps, result.alone
    if name in ("charrnn_seq2seq", "sine_lstm"):  # the forward pass written once: the helper's definition, then one
        # call per cell in the model's call, none in the loss's method (it reads the call's final state)
        assert text.count("basic_lstm(") == {"charrnn_seq2seq": 3, "sine_lstm": 2}[name], text
    if name == "bn_is_training":  # compared in inference mode too, with the flag switched on both sides
        [note] = [n for n in result.pair.notes if n.startswith("inference mode compared")]
        assert "TF1: is_training fed False; TF2: " in note and "its 1 bool argument(s) True made False" in note
    if name in ("ema_weights", "bn_moments_ema"):  # every moving average compared as state, after every step
        assert len(result.pair.state) == 6 and all(s["tf1"] == s["tf2"] for s in result.pair.state), result.pair.state
        assert all(s["tf1"].endswith("/ExponentialMovingAverage") for s in result.pair.state)
    if name == "queue_shuffle_batch":  # both sides' batches in the data's order: the same examples
        assert "TF1 queues unshuffled and single-threaded (slice_input_producer, string_input_producer, " \
               "shuffle_batch as batch), so both scripts take the same examples in the same order" in result.pair.notes
        assert not any(f.kind == "inputs" for f in result.pair.findings), result.pair.findings
    if name == "adadelta_cnn":  # TF1's accum and accum_update against Keras's, after every step
        assert [(x["slot"], x["variables"]) for x in result.pair.slots] == [("accum", 8), ("accum_update", 8)]
    if name == "bn_moments_ema":
        [note] = [n for n in result.pair.notes if n.startswith("inference mode compared")]
        assert "TF1: is_training fed False" in note
    if name == "activation_compare":
        assert "pair compares 4 steps, not 3: one per instance of the class the script builds 4 times, where its " \
               "loop trains them in turn" in result.notes
    if name == "two_nets_compared":  # one class, written once; its optimizers' steps in TF1's order
        assert text.count("class Net(") == 1 and text.count("tf.Variable(") == 4
        assert [p["how"] for p in result.pair.pairing].count("creation order and names agree") == 16
    if name in ("charrnn_seq2seq", "stacked_lstm_state"):  # the rate each step used compared; no second RNN
        assert [f.decisive for f in result.pair.findings if f.kind == "learning_rate"] == [False]
        loops = [f.text for f in result.pair.findings if f.kind == "extra_op"]  # dynamic_rnn: TF1's while loop
        assert len(loops) == (0 if name == "charrnn_seq2seq" else 1), loops
        assert all(text.startswith("forward ops: the same kinds on both sides, in other numbers because TF1 runs a "
                                   "loop whose body holds them once") and "MatMul x3 in TF1, x51 in TF2" in text
                   for text in loops), loops
    for graph in result.graphs:  # a later graph of the script: proven by its own pair
        assert graph.pair.status == "agree" and len(graph.pair.checks) == 3 and all(c.ok for c in graph.pair.checks)


def test_a_later_graph_keeps_the_data_drawn_above_the_first_and_draws_it_once(converted):
    out, results = converted
    result = results["two_regressions"]
    assert [g.lines for g in result.graphs] == ["80-124"]
    assert result.pair.tf1_script.endswith("two_regressions.py lines 1-79")
    text = (out / "two_regressions_tf2.py").read_text()
    assert text.count("x_blobs = np.vstack") == 1 and text.count("import numpy as np") == 1
    # the accuracy was fetched only with the loss: its own method, which nothing would call, is not written
    assert "    def loss_and_accuracy(self, x, y):" in text and "    def accuracy(self" not in text
    assert text.count('"""The TF1 graph of two_regressions.py') == 2  # the hidden file's name never shows
    assert not list(out.glob(".tfcompare-*"))  # each graph's own script, gone
    # each graph's variables named by their lines in the joined script (the later graph's were its own rewrite's)
    lines = text.splitlines()
    for pair, shapes in ((result.pair, {"W": "[1, 1]", "b": "[1]"}), (result.graphs[0].pair, {"W": "[2, 1]",
                                                                                             "b": "[1]"})):
        for entry in pair.pairing:
            line = lines[int(entry["tf2_site"].split()[-1]) - 1]
            assert f"self.{entry['tf2']} = tf.Variable(" in line and shapes[entry["tf2"]] in line, (entry, line)


def test_a_clipped_step_keeps_tf1s_clip_returns_its_norm_and_a_numpy_helper_named_like_the_placeholders_stays(
        tmp_path):
    """clip_global_norm.py (blind): `tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)` before
    `apply_gradients` is written into the step (before, dropped without a mark: a clip that does not bind in pair's
    steps would pass the proof), and `generate_batch`, a NumPy helper whose locals are named `inputs` and `targets`
    like the graph's placeholders, is kept (before, dropped as graph code: the rewrite never trained). The global
    norm it fetches with the loss, the learning rate and the global step is the step's second value (before stop
    62, a TODO): no TODO left."""
    shutil.copy(BLIND / "clip_global_norm.py", tmp_path)
    result = convert_script(tmp_path / "clip_global_norm.py", tmp_path / "new.py", ConvertOptions(levers=()))
    text = (tmp_path / "new.py").read_text()
    assert result.status == WRITTEN_AGREES, "\n".join(result.lines())
    assert "    gradients, global_norm = tf.clip_by_global_norm(gradients, 5.0)\n    optimizer.apply_gradients(" in text
    assert "    return loss_value, global_norm\n" in text
    # the run's five values, one statement each in the order TF1 computed them (before: an immediately-called lambda)
    assert "    lr = optimizer.learning_rate.numpy()\n" \
           "    l, gn = (value.numpy() for value in train_step(batch_x, batch_y))\n" \
           "    step = optimizer.iterations.numpy()\n" in text and "lambda" not in text
    assert "def generate_batch(batch_size, seq_len):" in text and \
        "    batch_x, batch_y = generate_batch(BATCH_SIZE, SEQ_LEN)\n" in text
    assert result.todos == [] and "TODO" not in text, result.todos
    assert result.alone["error"] == "" and result.alone["steps"] == 3, result.alone


def test_a_moving_moment_with_another_decay_differs_beyond_tf1s_own_noise_floor_for_that_state(converted):
    """The state floor (TF1's replays, the loss's own update of the moments made once) must not hide a true
    difference: bn_moments_ema's rewrite with 0.99 in place of TF1's decay of 0.9 for the input layer's moments
    DIFFERs on exactly those two, at step 1, with a floor far below the error; the rewrite as written agrees
    (above), though a moment of the next layer, fed by a weight Adam moves by the sign of a rounding-sized
    gradient, differs by 0.7 relative from step 2 on, as much as TF1's own replays do."""
    from tfcompare.scripts.pair import DIFFER, pair_scripts

    out, _ = converted
    text = (out / "bn_moments_ema_tf2.py").read_text()
    head, updates = text.split("if update_moving_averages:", 1)  # the first two: the input layer's mean, variance
    planted = head + "if update_moving_averages:" + updates.replace("* (1.0 - 0.9)", "* (1.0 - 0.99)", 2)
    assert planted.count("(1.0 - 0.99)") == 2 and "self.bn_input_moving_variance.assign_sub" in updates
    (out / "bn_planted_tf2.py").write_text(planted)
    result = pair_scripts(out / "bn_moments_ema.py", out / "bn_planted_tf2.py")
    assert result.status == DIFFER
    state = [f.text for f in result.findings if f.kind == "state"]
    assert len(state) == 2 and all("bn_input/bn_input/moments/Squeeze" in t and "after step 1: rel err 0.9 " in t
                                   for t in state), state
    floors = [float(t.split("floor ")[1].split(")")[0]) for t in state]
    assert all(f < 1e-5 for f in floors), floors


@pytest.mark.legacy
@pytest.mark.skipif(importlib.util.find_spec("tf_keras") is None, reason="needs the legacy extra (tf-keras)")
def test_keras_layers_on_placeholders_in_a_session_pass_the_flags_default_where_a_run_leaves_it_unfed(tmp_path):
    """keras_layers_in_session.py (blind, stop 64): `tf.keras.layers.Dense` and `Dropout(0.3)(net,
    training=is_training)` on placeholders, `is_training = tf.placeholder_with_default(False, shape=())` fed True to
    train and left unfed to evaluate. TF1's side needs tf-keras (Keras 3's Dropout refuses a tensor flag in a
    graph). The evaluation's run passes the default (before: 2 TODOs, the run not written)."""
    shutil.copy(BLIND / "keras_layers_in_session.py", tmp_path)
    result = convert_script(tmp_path / "keras_layers_in_session.py", tmp_path / "new.py", ConvertOptions(levers=()))
    text = (tmp_path / "new.py").read_text()
    assert result.status == WRITTEN_AGREES, "\n".join(result.lines())
    assert result.todos == [] and "TODO" not in text, result.todos
    assert "    loss_val = train_step(X_train[idx], y_train[idx], True).numpy()\n" in text
    assert "test_acc = model.accuracy(X_test, y_test, False).numpy()\n" in text
    assert len(result.pair.checks) == 3 and all(c.ok for c in result.pair.checks)
