"""`tf.contrib.legacy_seq2seq`: the decoder loop and the per-timestep losses char-rnn and MorvanZhou's RNN
regression build their models with, on tf.compat.v1.

Source checked: TF 1.15 `tensorflow/contrib/legacy_seq2seq/python/ops/seq2seq.py` (`rnn_decoder`,
`sequence_loss_by_example`, `sequence_loss`): the same ops in the same order, the same variable scopes
(`rnn_decoder`, its `loop_function` scope reused), the same 1e-12 added to the weights' sum, and
`softmax_loss_function(labels=..., logits=...)` called by keyword as TF 1.15 did.
"""

from __future__ import annotations

import tensorflow as tf

__all__ = ["rnn_decoder", "sequence_loss_by_example", "sequence_loss", "contents"]

_v1 = tf.compat.v1


def rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """Run `cell` over `decoder_inputs` (a list of [batch, input] tensors) from `initial_state`; with
    `loop_function`, each input after the first is made from the previous output. Returns (outputs, state)."""
    with _v1.variable_scope(scope or "rnn_decoder"):
        state, outputs, prev = initial_state, [], None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with _v1.variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            if i > 0:
                _v1.get_variable_scope().reuse_variables()
            output, state = cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
    return outputs, state


def sequence_loss_by_example(logits, targets, weights, average_across_timesteps=True, softmax_loss_function=None,
                             name=None):
    """The weighted loss of each example, summed over the timesteps (lists of tensors, one per timestep) and, by
    default, divided by the sum of the weights."""
    if len(targets) != len(logits) or len(weights) != len(logits):
        raise ValueError("Lengths of logits, weights, and targets must be the same "
                         f"{len(logits)}, {len(weights)}, {len(targets)}.")
    with tf.name_scope(name or "sequence_loss_by_example"):
        log_perp_list = []
        for logit, target, weight in zip(logits, targets, weights):
            if softmax_loss_function is None:
                target = tf.reshape(target, [-1])
                crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=logit)
            else:
                crossent = softmax_loss_function(labels=target, logits=logit)
            log_perp_list.append(crossent * weight)
        log_perps = tf.add_n(log_perp_list)
        if average_across_timesteps:
            total_size = tf.add_n(weights)
            total_size += 1e-12  # to avoid a division by 0 for all-0 weights
            log_perps /= total_size
    return log_perps


def sequence_loss(logits, targets, weights, average_across_timesteps=True, average_across_batch=True,
                  softmax_loss_function=None, name=None):
    """`sequence_loss_by_example` summed over the batch, and by default divided by the batch size."""
    with tf.name_scope(name or "sequence_loss"):
        cost = tf.reduce_sum(sequence_loss_by_example(logits, targets, weights,
                                                      average_across_timesteps=average_across_timesteps,
                                                      softmax_loss_function=softmax_loss_function))
        if average_across_batch:
            batch_size = tf.shape(targets[0])[0]
            return cost / tf.cast(batch_size, cost.dtype)
        return cost


def contents() -> dict:
    """The names `tf.contrib.legacy_seq2seq` provides."""
    return {name: globals()[name] for name in __all__ if name != "contents"}
