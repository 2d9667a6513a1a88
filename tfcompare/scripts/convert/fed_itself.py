"""Tensors the script feeds itself (`tf_x = tf.placeholder(...) / 255.` fed `{tf_x: b_x}`): the ops that computed
them never ran in TF1, and the rewrite says so where a reviewer would look for them. And the other way round: a
`tf.placeholder_with_default` a run leaves unfed takes its default, which the rewrite passes."""

from __future__ import annotations

import io
import tokenize

from tfcompare.core.graphs import static_value
from tfcompare.scripts.convert.naming import fed_key
from tfcompare.scripts.convert.plan import ITERATOR_OUTPUTS
from tfcompare.scripts.convert.tf1_lines import source_line

__all__ = ["fed_itself_notes", "unfed_defaults"]


def fed_itself_notes(feed_tensors: list, arguments: dict, script: str, lines: list[str]) -> dict[str, str]:
    """argument -> why it is not what its TF1 line computes, for a tensor the script feeds itself
    (`tf_x = tf.placeholder(tf.float32, [None, 784]) / 255.` fed `{tf_x: b_x}`): TF1 replaced the tensor by the
    fed value, so the ops that computed it (the division) never ran, and the rewrite, rightly, has none. Said, so a
    reviewer does not read their absence as a dropped line."""
    out = {}
    for t in feed_tensors:
        if t.op.type in ("Placeholder", "PlaceholderWithDefault", *ITERATOR_OUTPUTS):  # a pipeline's batch: pulled
            continue
        where = source_line(t.op, script, lines)
        line = f" (TF1 line {where[0]}: {_without_comment(where[1])})" if where else ""
        out[arguments[fed_key(t)]] = (f"TF1 fed this tensor itself{line}, so the ops that computed it never ran: "
                                      "the TF2 code takes the fed value as it is, as TF1 did")
    return out


def _without_comment(text: str) -> str:
    """A source line without its trailing `# comment` (tokenized, as provenance reads the script's comments: a `#`
    in a string is not one; a line that opens a bracket it does not close is read up to where tokenize stops)."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                return text[:token.start[1]].rstrip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return text


def unfed_defaults(module_dict: dict, tf) -> dict[str, str]:
    """{global name: the default as code} of each `tf.placeholder_with_default(False, shape=())` (a scalar bool or
    number constant): a Session.run that does not feed it computed with that value (`is_training` left to its
    default in an evaluation), and the rewrite's call passes it."""
    out = {}
    for key, value in module_dict.items():
        if not (isinstance(value, tf.Tensor) and value.op.type == "PlaceholderWithDefault" and key.isidentifier()):
            continue
        default = static_value(value.op.inputs[0])
        if default is not None and getattr(default, "ndim", 1) == 0 and default.dtype.kind in "bif":
            out[key] = repr(default.item())
    return out
