"""`feed_dicts.inline_feed_dicts`: a feed dict the next reading statements alone read is inlined into them, past
plain statements that change none of its values (stop 64: a value read before the step, `lr_val = ...`, had kept
`feed['x']` in the rewrite), and only then."""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.feed_dicts import inline_feed_dicts


def _inlined(source: str) -> str:
    body = ast.parse(source).body
    inline_feed_dicts([body], {"feed"})
    return ast.unparse(ast.Module(body, []))


def test_a_feed_dict_is_inlined_past_a_statement_that_changes_none_of_its_values():
    out = _inlined("feed = {'x': X[idx], 'y': Y[idx]}\nlr_val = optimizer.learning_rate.numpy()\n"
                   "loss = train_step(feed['x'], feed['y']).numpy()\n")
    assert out == "lr_val = optimizer.learning_rate.numpy()\nloss = train_step(X[idx], Y[idx]).numpy()"


def test_a_statement_between_that_rebinds_a_value_or_a_dict_read_elsewhere_keeps_the_dict():
    rebinds = ("feed = {'x': X[idx], 'y': Y[idx]}\nidx = idx + 1\n"
               "loss = train_step(feed['x'], feed['y']).numpy()\n")
    assert _inlined(rebinds) == ast.unparse(ast.parse(rebinds))  # X[idx] would read the new idx: kept
    shuffles = ("feed = {'x': X[idx], 'y': Y[idx]}\nnp.random.shuffle(X)\n"
                "loss = train_step(feed['x'], feed['y']).numpy()\n")
    assert _inlined(shuffles) == ast.unparse(ast.parse(shuffles))  # X changed in place, not rebound: kept
    later = ("feed = {'x': X[idx], 'y': Y[idx]}\nlr_val = 0.1\nloss = train_step(feed['x'], feed['y']).numpy()\n"
             "print(len(feed))\n")
    assert _inlined(later) == ast.unparse(ast.parse(later))  # read as a dict below: kept


def test_keys_set_right_after_the_dict_fold_into_it_and_get_reads_the_value_or_the_default():
    """char-rnn's `feed = {...}` then `feed['initial_state'] = state` (its state fed back cell by cell, one
    statement once rewritten): folded, then inlined; `feed.get(key, default)` reads the dict's value or, where
    the dict has no such key, the default (before stop 68 both kept the dict)."""
    out = _inlined("feed = {'input_data': x, 'targets': y}\nfeed['initial_state'] = state\n"
                   "loss, state = train_step(feed['input_data'], feed['targets'], feed.get('initial_state', zero))\n")
    assert out == "loss, state = train_step(x, y, state)"
    assert _inlined("feed = {'x': x}\nl = train_step(feed['x'], feed.get('init_s', init_s))\n") == \
        "l = train_step(x, init_s)"
    # a key set again replaces a value that computed nothing; a value computed (a call) stops the folding there
    assert _inlined("feed = {'x': a}\nfeed['x'] = b\nl = train_step(feed['x'])\n") == "l = train_step(b)"
    kept = "feed = {'x': f()}\nfeed['x'] = b\nl = train_step(feed['x'])\n"
    assert _inlined(kept) == ast.unparse(ast.parse(kept))
    # a value reading the dict itself is not folded; a default that computes something keeps the get
    reads = "feed = {'x': a}\nfeed['y'] = feed['x'] + 1\nl = train_step(feed['x'], feed['y'])\n"
    assert _inlined(reads) == ast.unparse(ast.parse(reads))
    called = "feed = {'x': a}\nl = train_step(feed['x'], feed.get('s', zeros()))\n"
    assert _inlined(called) == ast.unparse(ast.parse(called))
    # char-rnn's summaries and step read the dict together, each key more than once: a name's value goes into each
    both = ("feed = {'input_data': x, 'targets': y, 'initial_state': state}\n"
            "summ = model.summary_logits(feed['input_data'], feed.get('initial_state', zero))\n"
            "loss, state = train_step(feed['input_data'], feed['targets'], feed.get('initial_state', zero))\n")
    assert _inlined(both) == "summ = model.summary_logits(x, state)\nloss, state = train_step(x, y, state)"
    twice = "feed = {'x': X[i]}\nl = f(feed['x'], feed['x'])\n"  # a subscript, not a name: computed once, kept
    assert _inlined(twice) == ast.unparse(ast.parse(twice))


def test_a_placeholder_with_default_left_unfed_passes_its_default_and_only_a_scalar_constant_one():
    import tensorflow as tf

    from tfcompare.scripts.convert.fed_itself import unfed_defaults

    with tf.compat.v1.Graph().as_default():
        v1 = tf.compat.v1
        scope = {"is_training": v1.placeholder_with_default(False, shape=()),
                 "keep_prob": v1.placeholder_with_default(1.0, shape=()),
                 "state": v1.placeholder_with_default(tf.zeros([2, 3]), shape=[None, 3]),  # not a scalar
                 "x": v1.placeholder(tf.float32, [None, 3])}
        assert unfed_defaults(scope, tf) == {"is_training": "False", "keep_prob": "1.0"}


def test_the_statement_taking_the_dicts_values_keeps_its_own_comment_when_the_dict_had_none():
    """char-rnn's "# instrument for tensorboard" above its run: the uncommented dict above it took its place (the
    dict's comments go with its values only where there are some)."""
    body = ast.parse("feed = {'x': x}\n# instrument\nl = train_step(feed['x'])\n").body
    inline_feed_dicts([body], {"feed"}, frozenset({3}))
    assert len(body) == 1 and getattr(body[0], "comments_from", body[0].lineno) == 3
    body = ast.parse("# the batch\nfeed = {'x': x}\n# instrument\nl = train_step(feed['x'])\n").body
    inline_feed_dicts([body], {"feed"}, frozenset({2, 4}))
    assert body[0].comments_from == 2  # one anchor: the dict's comment, as before
