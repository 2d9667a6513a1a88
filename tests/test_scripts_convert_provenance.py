"""convert's provenance, once per block (`convert.provenance.per_block`): trailers become one comment above each
run of statements, what a trailer says beyond the TF1 excerpt (a TODO mark, a reason, the TF1 weights) stays on
its line, text inside strings is never touched, and a long input_signature is one spec per line."""

import ast

from tfcompare.scripts.convert.line_width import MAX_LINE, wrap
from tfcompare.scripts.convert.provenance import per_block

WRITTEN = '''class Model(tf.Module):
    def f(self, x):
        """Doc: # TF1 line 3: not a comment"""
        a = tf.nn.relu(x)  # TF1 line 3: a = tf.nn.relu(x)
        b = a + 1  # TF1 line 4: b = a + 1; not keras.layers.Dropout: keep_prob is fed
        s = "  # TF1 line 9: in a string"
        c = tf.zeros([1])  # TF1 lines 7-8: c = tf.zeros(1); TODO(tfcompare): initializer Foo
        d = c * 2  # TF1 line 10: d = c * 2
        return b

    @tf.function(input_signature=[tf.TensorSpec([None, 32], tf.float32), tf.TensorSpec([None, 4], tf.float32), tf.TensorSpec([None], tf.int64)])
    def g(self, x):
        return x  # TF1 line 12: return x
'''

EXPECTED = '''class Model(tf.Module):
    def f(self, x):
        """Doc: # TF1 line 3: not a comment"""
        # TF1 lines 3-4
        a = tf.nn.relu(x)
        b = a + 1  # not keras.layers.Dropout: keep_prob is fed
        s = "  # TF1 line 9: in a string"
        # TF1 lines 7-8, 10
        c = tf.zeros([1])  # TODO(tfcompare): initializer Foo
        d = c * 2
        return b

    @tf.function(input_signature=[
        tf.TensorSpec([None, 32], tf.float32),
        tf.TensorSpec([None, 4], tf.float32),
        tf.TensorSpec([None], tf.int64),
    ])
    def g(self, x):
        # TF1 line 12
        return x
'''


def test_provenance_is_one_comment_per_block_and_what_matters_stays_on_its_line():
    out = "\n".join(per_block(WRITTEN.splitlines())) + "\n"
    assert out == EXPECTED
    compile(out, "written.py", "exec")
    assert max(len(line) for line in out.splitlines()) <= MAX_LINE
    assert out.count("TODO(tfcompare)") == WRITTEN.count("TODO(tfcompare)")  # the console's list is the file's marks


def test_code_that_does_not_tokenize_is_left_as_it_is():
    broken = ["x = (1,  # TF1 line 3: x = (1,"]
    assert per_block(broken) == broken


def test_an_argument_too_long_for_its_line_is_broken_again():
    line = ("optimizer = Momentum(learning_rate=tf.keras.optimizers.schedules.ExponentialDecay(0.2, decay_steps=2.0, "
            "decay_rate=0.5, staircase=True), momentum=0.9)")
    assert wrap(line) == [
        "optimizer = Momentum(",
        "    learning_rate=tf.keras.optimizers.schedules.ExponentialDecay(",
        "        0.2, decay_steps=2.0, decay_rate=0.5, staircase=True",
        "    ),",
        "    momentum=0.9,",
        ")",
    ]
    assert wrap("x = f(a).y") == ["x = f(a).y"]  # short lines are as they were


def test_a_rewritten_statement_of_the_scripts_own_code_is_filled_within_the_line_where_it_stands():
    """A carried statement that convert rewrote (a `sess.run` in a print) is unparsed on one line; it is broken as
    a person breaks it, its arguments filled after the bracket, at the depth of the block it stands in."""
    from tfcompare.scripts.convert.source import _wrapped

    code = ("print('Epoch:', '%04d' % (epoch + 1), 'cost=', '{:.9f}'.format(c), 'W=', model.W.numpy(), 'b=', "
            "model.b.numpy())")
    written = _wrapped(code, 2)
    assert written.split("\n") == [
        "print('Epoch:', '%04d' % (epoch + 1), 'cost=', '{:.9f}'.format(c), 'W=', model.W.numpy(),",
        "      'b=', model.b.numpy())",
    ]
    assert all(len("        " + line) <= MAX_LINE for line in written.split("\n"))
    compile("if 1:\n    if 1:\n" + "\n".join("        " + line for line in written.split("\n")), "w.py", "exec")
    assert _wrapped(code, 0).split("\n") == [  # filled to the width at column 0 too
        "print('Epoch:', '%04d' % (epoch + 1), 'cost=', '{:.9f}'.format(c), 'W=', model.W.numpy(), 'b=',",
        "      model.b.numpy())",
    ]
    # a bracket far to the right: one argument per line, as generated code is wrapped
    far = "result_of_the_evaluation_of_the_whole_model = model.evaluate_everything_on(" + ", ".join(
        f"argument_{i}" for i in range(8)) + ")"
    assert _wrapped(far, 0).split("\n")[0] == "result_of_the_evaluation_of_the_whole_model = model.evaluate_everything_on("
    docstring = 'def f():\n    """' + "x(a, b)" * 20 + '\n    """\n    return 1'
    assert _wrapped(docstring, 0) == docstring  # a line inside a string is never broken


def test_the_scripts_own_comments_are_carried_above_the_statement_they_were_on():
    """The comment lines just above a TF1 line and the comment at its end go above the statement written from it,
    once each however many statements name that line; a `#` inside a string and the coding line are not
    comments to carry; lines no statement came from carry nothing."""
    from tfcompare.scripts.convert.provenance import script_comments

    tf1 = ('# -*- coding: utf-8 -*-\nimport tensorflow as tf\n# Store layers weight\nw = tf.Variable(1)  # first\n'
           'name = "# not a comment"\n# Convolution Layer\nconv1 = conv2d(x)   # -> (28, 28, 16)\n# unused\n\n')
    comments = script_comments(tf1)
    assert comments == {4: ["# Store layers weight", "# first"], 7: ["# Convolution Layer", "# -> (28, 28, 16)"]}
    written = ["    def f(self, x):", "        c = tf.nn.conv2d(x, self.w)  # TF1 line 7: conv1 = conv2d(x)",
               "        h = tf.nn.relu(c)  # TF1 line 7: conv1 = conv2d(x)", "        return h  # TF1 line 9: x"]
    assert per_block(written, comments) == [
        "    def f(self, x):", "        # TF1 lines 7, 9", "        # Convolution Layer", "        # -> (28, 28, 16)",
        "        c = tf.nn.conv2d(x, self.w)", "        h = tf.nn.relu(c)", "        return h"]
    assert per_block(written) == per_block(written, {})  # without the script's comments: as before
    # a comment holding a character Python reads as a line break would end the written comment there: not carried
    assert script_comments("z = 3  # u\u2028import os\nw = 4  # form\x0cfeed\n") == {}
    # only PEP 263's coding line is not carried: a comment that says "coding" further down is
    assert script_comments("import x\n\n# Decoding layer\ny = 1\n") == {4: ["# Decoding layer"]}


def test_a_call_on_a_call_too_long_for_its_line_breaks_the_first_call():
    """`VarianceScaling(...)([8, 64])` (TF1's `random_normal(stddev=1/sqrt(fan_in/2))`): the second call's
    bracket opens past the width, so the first call's arguments are broken, the second call after them (before,
    the line stayed 113 columns long)."""
    line = ('        self.w = tf.Variable(tf.keras.initializers.VarianceScaling(scale=2.0, mode="fan_in", '
            'distribution="untruncated_normal")([gen_hidden_dim, image_dim]), name=\'Variable_1\')')
    assert wrap(line) == [
        "        self.w = tf.Variable(",
        "            tf.keras.initializers.VarianceScaling(",
        '                scale=2.0, mode="fan_in", distribution="untruncated_normal"',
        "            )([gen_hidden_dim, image_dim]),",
        "            name='Variable_1',",
        "        )",
    ]
    compile("\n".join(x.strip() for x in wrap(line)), "w.py", "exec")
    # a parenthesised lambda called (a Session.run rewritten): not a call's brackets, never broken into a tuple
    lam = ("    _, l, p = (lambda value_0, loss_value: (None, loss_value, value_0))(model.prediction(x).numpy(), "
           "train_step(x, y).numpy())")
    assert wrap(lam) == ["    _, l, p = (lambda value_0, loss_value: (None, loss_value, value_0))(",
                         "        model.prediction(x).numpy(), train_step(x, y).numpy()", "    )"]


def test_a_call_of_a_call_indexed_after_it_breaks_inside_its_arguments():
    """pkmital's ResNet: `train_accuracy += sess.run([optimizer, accuracy], ...)[1]` was written as one line of
    160 columns (the break went inside `[1]`, leaving the head as long as before)."""
    line = ("            train_accuracy += (lambda value_0, loss_value: (None, value_0))(model.accuracy(batch_xs, "
            "batch_ys).numpy(), train_step(batch_xs, batch_ys).numpy())[1]")
    assert wrap(line) == [
        "            train_accuracy += (lambda value_0, loss_value: (None, value_0))(",
        "                model.accuracy(batch_xs, batch_ys).numpy(), train_step(batch_xs, batch_ys).numpy()",
        "            )[1]"]
    assert wrap("x = f(" + ", ".join(f"argument_{i}" for i in range(12)) + ").y[0]")[-1] == ").y[0]"


def test_a_call_read_with_numpy_after_it_breaks_inside_its_own_arguments():
    """`model.model_cost(...).numpy()` inside a summary's dict (MorvanZhou's stateful RNN) stayed one line of 140
    columns: the `()` of `.numpy()` was the last bracket, and empty."""
    line = ("                    model.model_cost(feed_dict['model_xs'], feed_dict['ys'], "
            "feed_dict.get('cell_init_state', cell_init_state)).numpy(),")
    assert wrap(line) == [
        "                    model.model_cost(",
        "                        feed_dict['model_xs'],",
        "                        feed_dict['ys'],",
        "                        feed_dict.get('cell_init_state', cell_init_state),",
        "                    ).numpy(),"]


def test_the_helpers_convert_writes_into_scripts_fit_the_line_width():
    from tfcompare.scripts.convert.written_cells import HELPER_SOURCE, LOADER

    assert [line for text in (LOADER, *HELPER_SOURCE.values()) for line in text.splitlines()
            if len(line) > MAX_LINE] == []


def test_a_long_comprehension_is_broken_without_a_comma_and_a_one_tuple_keeps_its_own():
    """`acc, pred = [value.numpy() for value in train_step(...)]` (a step's values read together) too long for a line
    was broken with a comma after the comprehension, a syntax error in the written script (the cookbook's siamese
    network, whose convert crashed); a 1-tuple's comma is its meaning and stays (it was dropped where the item fit on
    one line: `(x)` is no tuple)."""
    line = ("    train_loss, train_acc = [value.numpy() for value in train_step(address1, address2, "
            "target_similarity, dropout_keep_prob)]")
    lines = wrap(line)
    assert lines == ["    train_loss, train_acc = [",
                     "        value.numpy() for value in train_step(",
                     "            address1, address2, target_similarity, dropout_keep_prob",
                     "        )",
                     "    ]"], lines
    ast.parse("if True:\n" + "\n".join(lines))
    one = "    only = (the_first_tensor_of_the_batch_in_this_epoch + the_offset_of_the_batch_in_the_whole_epoch,)"
    lines = wrap(one)
    assert lines == ["    only = (",
                     "        the_first_tensor_of_the_batch_in_this_epoch + the_offset_of_the_batch_in_the_whole_epoch,",
                     "    )"], lines
    namespace = {"the_first_tensor_of_the_batch_in_this_epoch": 1, "the_offset_of_the_batch_in_the_whole_epoch": 2}
    exec("\n".join(lines).replace("    ", ""), namespace)
    assert namespace["only"] == (3,)


def test_the_models_code_carries_no_comment_of_a_line_that_runs_the_graph():
    """char-rnn's "# instrument for tensorboard" above its training run was also written above the final state the
    model's call returns (that run fetched it): the run's comments go with the run, in the script's loop."""
    import ast as _ast

    from tfcompare.scripts.convert.provenance import model_comments, script_comments

    source = ("import tensorflow as tf\n# the logits\nlogits = tf.matmul(x, w)\nwith tf.Session() as sess:\n"
              "    # instrument for tensorboard\n    summ, state = sess.run([summaries, final_state], feed)\n"
              "    # evaluate\n    acc = accuracy.eval({x: 1})\n")
    assert set(script_comments(source)) == {3, 6, 8}
    assert model_comments(source, _ast.parse(source)) == {3: ["# the logits"]}


def test_a_long_definition_and_a_long_checkpoint_name_fit_the_line_width():
    """char-rnn's sampling model gave a method of 115 columns and restore_tf1_checkpoint's name map items of 130
    (TF1's scope names, `rnnlm/rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel`): the parameters go on the next
    line (one per line where they do not fit), a map's value on a line of its own; both still run."""
    from tfcompare.scripts.convert.tf1_checkpoint import restore_method

    line = "    def sample_model_probs_and_final_state(self, sample_model_input_data, sample_model_initial_state=None):"
    assert wrap(line) == ["    def sample_model_probs_and_final_state(",
                          "            self, sample_model_input_data, sample_model_initial_state=None):"]
    many = "def f(" + ", ".join(f"the_argument_number_{i}" for i in range(6)) + ") -> int:"
    lines = wrap(many)
    assert len(lines) == 7 and lines[-1] == "        the_argument_number_5) -> int:", lines
    namespace: dict = {}
    exec("\n".join(lines) + "\n    return the_argument_number_5\n", namespace)
    assert namespace["f"](*range(6)) == 5
    name = "rnnlm/rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel"
    attr = "rnnlm_rnn_multi_rnn_cell_cell_0_basic_lstm_cell_kernel"
    method = restore_method({name: attr, "w": "w"}, {f"{name}/ExponentialMovingAverage": attr})
    assert [x for x in "\n".join(method).splitlines() if len(x) > MAX_LINE] == [] and f"            {name!r}:" in method
    assert "            'w': self.w," in method and f"                    averages.average(self.{attr})," in method
    ast.parse("class Model:\n" + "\n".join(method))


def test_an_assignment_whose_last_bracket_leaves_it_too_long_breaks_its_first_or_brackets_its_value():
    """A batch norm's moving-average update, `t = (self.<long name> - tf.squeeze(mean)) * (1.0 - 0.9)`, was broken
    at its last bracket only, its first line still 104 columns (the blind bn_moments_ema)."""
    average = "self.bn1_bn1_moments_Squeeze_ExponentialMovingAverage"
    line = f"            t14 = ({average} - tf.squeeze(mean3, axis=[0])) * (1.0 - 0.9)"
    assert wrap(line) == ["            t14 = (", f"                {average} - tf.squeeze(mean3, axis=[0])",
                          "            ) * (1.0 - 0.9)"]
    long = f"t = {average} * {average} + {average} / 2.0"  # no bracket at all: the value in brackets
    assert wrap(long) == ["t = (", f"    {average} * {average} + {average} / 2.0", ")"]
    scope = {"self": type("S", (), {average.split(".")[1]: 3.0})(), "tf": None}
    exec("\n".join(wrap(long)), scope)
    assert scope["t"] == 3.0 * 3.0 + 1.5


def test_a_block_from_the_lines_the_comment_above_names_says_nothing_again():
    """A batch norm's moving-average updates (the blind bn_moments_ema) carried `# TF1 line 53` above each of their
    8 statements: each `t = ...` and the `if is_training:` block of its assign_sub. One comment now covers what
    follows it from the same TF1 lines, through the `if` it holds; another statement between them ends it."""
    lines = ["    def f(self):",
             "        t14 = a * 2  # TF1 line 53: x",
             "        if is_training:  # TF1 ran these in a tf.cond",
             "            self.m.assign_sub(t14)  # TF1 line 53: y",
             "        t15 = b * 2  # TF1 line 53: z",
             "        print(t15)",
             "        t16 = b * 3  # TF1 line 53: z",
             "        return t16  # TF1 line 54: w"]
    assert per_block(lines) == ["    def f(self):", "        # TF1 line 53", "        t14 = a * 2",
                                "        if is_training:  # TF1 ran these in a tf.cond",
                                "            self.m.assign_sub(t14)", "        t15 = b * 2", "        print(t15)",
                                "        # TF1 lines 53-54", "        t16 = b * 3", "        return t16"]


def test_a_variables_attribute_is_the_end_of_its_scoped_name_that_no_other_variable_shares():
    """char-rnn's `rnnlm/rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel` was the attribute
    `rnnlm_rnn_multi_rnn_cell_cell_0_basic_lstm_cell_kernel`, where a reviewer writes `cell_0_kernel`: the end of the
    name no other variable shares, a weight's layer kept (`dense_kernel`, never a bare `kernel`), a cell's own scopes
    dropped unless they are all there is (`lstm_kernel`), a hand-written batch norm's averaged moments named as
    Keras names them; a name two would get keeps its whole path."""
    from tfcompare.scripts.convert.naming import short_names

    char_rnn = ["rnnlm/softmax_w", "embedding"] + [f"rnnlm/rnn/multi_rnn_cell/cell_{i}/basic_lstm_cell/{w}"
                                                   for i in (0, 1) for w in ("kernel", "bias")]
    assert list(short_names(char_rnn).values()) == ["softmax_w", "embedding", "cell_0_kernel", "cell_0_bias",
                                                    "cell_1_kernel", "cell_1_bias"]
    assert short_names(["rnn/lstm_cell/kernel", "rnn/lstm_cell/projection/kernel", "dense/kernel", "dense_1/kernel",
                        "generator/g_h1/w", "discriminator/d_h1/w", "Variable", "Variable_1"]) == {
        "rnn/lstm_cell/kernel": "lstm_kernel", "rnn/lstm_cell/projection/kernel": "projection_kernel",
        "dense/kernel": "dense_kernel", "dense_1/kernel": "dense_1_kernel", "generator/g_h1/w": "g_h1_w",
        "discriminator/d_h1/w": "d_h1_w", "Variable": "Variable", "Variable_1": "Variable_1"}
    stacked = ["rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel", "rnn/multi_rnn_cell/cell_1/gru_cell/gates/kernel",
               "rnn/multi_rnn_cell/cell_1/gru_cell/candidate/kernel"]  # which cell, though `gates_kernel` is unique
    assert list(short_names(stacked).values()) == ["cell_0_kernel", "cell_1_gates_kernel", "cell_1_candidate_kernel"]
    moments = [f"{bn}/{bn}/moments/Squeeze{s}/ExponentialMovingAverage" for bn in ("bn1", "bn2") for s in ("", "_1")]
    assert list(short_names(moments).values()) == ["bn1_moving_mean", "bn1_moving_variance", "bn2_moving_mean",
                                                   "bn2_moving_variance"]
    # both would be `lstm_kernel`: each keeps its whole path
    assert short_names(["net/lstm/kernel", "rnn/lstm_cell/kernel", "out/kernel"]) == {
        "net/lstm/kernel": "net_lstm_kernel", "rnn/lstm_cell/kernel": "rnn_lstm_cell_kernel", "out/kernel": "out_kernel"}


def test_a_comment_block_set_off_by_blank_lines_comes_with_the_statement_below_it():
    """The cookbook's tic-tac-toe documents its board encoding in a comment block between blank lines, after a
    statement the rewrite drops (`ops.reset_default_graph()`): it belonged to no statement and was lost. Carried
    statements take the comment blocks above them back to the code line before, their blank lines kept."""
    from tfcompare.scripts.convert.provenance import script_comments

    source = ("import tensorflow as tf\nops.reset_default_graph()\n\n# X = 1\n# O = -1\n\n\n# the test board\n"
              "response = 6\nbatch_size = 50  # its own\n\nsymmetry = 1\n")
    assert script_comments(source, trailing=False, blocks=True) == {
        9: ["# X = 1", "# O = -1", "", "", "# the test board"]}
    assert script_comments(source, trailing=False) == {9: ["# the test board"]}  # the model's provenance: as before
