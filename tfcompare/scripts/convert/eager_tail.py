"""TensorFlow code after training that reads none of the graph's values: the cookbook's TensorBoard tutorial plots
its fit with matplotlib, then `image = tf.image.decode_png(buf.getvalue(), channels=4)`, `image =
tf.expand_dims(image, 0)`, `image_summary_op = tf.summary.image("Linear_Plot", image)`,
`image_summary = sess.run(image_summary_op)`, `log_writer.add_summary(image_summary, i)`.

TF2 runs such ops eagerly as written when they mean the same in both APIs (`_SAME`: each reads its arguments as
TF1's did); a TF1 summary op of such a value becomes the summary dict the written `add_summary` helper writes
(`{tag: (tf.summary.image, value)}`), and running either in a Session is its value. Anything else stays a TODO.
"""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.rewrite_state import RewriteState

__all__ = ["EagerTail"]

# TF1 functions whose TF2 namesake takes the same positional arguments and computes the same value
_SAME = {
    "image.decode_png", "image.decode_jpeg", "image.decode_image", "image.encode_png", "image.convert_image_dtype",
    "image.rgb_to_grayscale", "image.flip_left_right", "image.flip_up_down",
    "expand_dims", "squeeze", "reshape", "concat", "stack", "transpose", "cast", "constant", "convert_to_tensor",
    "zeros", "ones", "one_hot", "range", "identity", "gather", "tile", "shape",
    "add", "subtract", "multiply", "divide", "matmul", "exp", "sqrt", "square", "abs", "sigmoid", "tanh",
    "maximum", "minimum", "argmax", "argmin", "equal", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
    "nn.softmax", "nn.relu", "nn.sigmoid", "math.log", "math.exp",
}
# keywords those functions share between the two APIs (TF1's `keep_dims`, `dim`, `squeeze_dims` are not)
_KEYWORDS = {"axis", "dtype", "name", "channels", "shape", "depth", "perm", "values", "value", "keepdims"}
_SUMMARIES = {"image", "scalar", "histogram"}
_DTYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool", "string"}


class EagerTail(RewriteState):
    """The eager rewrites of `statements.Rewriter`; `eager`: names bound to such values, `eager_summaries`: to
    such summaries."""

    def _eager(self, s) -> list | None:
        """The statement as TF2 runs it, or None when it is not one of these (`statements._simple` goes on)."""
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
            return None
        target, value = s.targets[0].id, s.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "run" and \
                isinstance(value.func.value, ast.Name) and value.func.value.id in self.sessions and \
                len(value.args) == 1 and not value.keywords and isinstance(value.args[0], ast.Name) and \
                value.args[0].id in self.eager_summaries:  # `image_summary = sess.run(image_summary_op)`
            s.value = ast.copy_location(ast.Name(value.args[0].id, ast.Load()), value)
            self.eager_summaries.add(target)
            self.eager.discard(target)
            return [s]
        if self._loads(s) & (self.tainted | self.sessions | self.eager_summaries):
            return None
        if isinstance(value, ast.Call) and self._path(value.func) in {f"summary.{k}" for k in _SUMMARIES} and \
                len(value.args) == 2 and not value.keywords and not self._path_calls(value.args[1]) - _SAME:
            kind = self._path(value.func).split(".", 1)[1]
            s.value = ast.copy_location(ast.Dict([value.args[0]], [ast.Tuple(
                [ast.parse(f"tf.summary.{kind}", mode="eval").body, value.args[1]], ast.Load())]), value)
            self.eager_summaries.add(target)
            self.eager.discard(target)
            return [s]
        calls = self._path_calls(value)
        if not calls or calls - _SAME or any(k.arg not in _KEYWORDS for n in ast.walk(value)
                                             if isinstance(n, ast.Call) and self._path(n.func) for k in n.keywords):
            return None
        self.eager.add(target)
        self.eager_summaries.discard(target)
        return [s]

    def _path_calls(self, node) -> set:
        """The TensorFlow functions `node` calls, as `_path` names them; "" where it reads TensorFlow otherwise
        (`tf.float32`, a module as a value): not a call this knows."""
        funcs = [n.func for n in ast.walk(node) if isinstance(n, ast.Call) and self._path(n.func) is not None]
        roots = {id(n) for f in funcs for n in ast.walk(f) if isinstance(n, ast.Name)}
        roots |= {id(n.value) for n in ast.walk(node) if isinstance(n, ast.Attribute) and n.attr in _DTYPES}
        out = {self._path(f) for f in funcs}
        if any(isinstance(n, ast.Name) and n.id in self.plan.tf_names and id(n) not in roots for n in ast.walk(node)):
            out.add("")
        return out

    def _eager_run(self, names: list, feed: dict, single: bool):
        """`sess.run(image)` of such values: the value itself (a summary's dict) or its NumPy array; None when a
        fetch is not one or anything is fed."""
        if feed or not names or any(n not in self.eager | self.eager_summaries for n in names):
            return None
        parts = [ast.Name(n, ast.Load()) if n in self.eager_summaries else
                 ast.parse(f"{n}.numpy()", mode="eval").body for n in names]
        return parts[0] if single else ast.List(parts, ast.Load())
