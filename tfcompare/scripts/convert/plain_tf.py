"""TensorFlow code that builds no graph, kept as code in TF2's names: a TFRecord file written with
`tf.python_io.TFRecordWriter` and `tf.train.Example` protos, `tf.gfile` file calls, and a function a `tf.data`
pipeline maps (`dataset.map(parse_fn)`, `parse_fn` calling `tf.parse_single_example` and `tf.FixedLenFeature`).

TF2 runs these as TF1 did; only their names moved (`tf.python_io.TFRecordWriter` is `tf.io.TFRecordWriter`, as
TensorFlow's own `tf_upgrade_v2` renames it). A name that moved to `tf.compat.v1`, a call whose keywords or argument
order TF2 changed, or any other TF1 code leaves the statement to the rules that were there before (graph code, or a
TODO): a rename is written only where it is TensorFlow's own and exact.
"""

from __future__ import annotations

import ast
import functools

from tfcompare.scripts.convert.rewrite_state import RewriteState

__all__ = ["PlainCalls", "tf2_path"]

# TF1 calls that make no graph op (files, protos): a statement of only these is program code, not the model's
_PLAIN = ("python_io.TFRecordWriter", "python_io.TFRecordOptions", "io.TFRecordWriter", "train.Example",
          "train.Features", "train.Feature", "train.FloatList", "train.Int64List", "train.BytesList",
          "train.SequenceExample", "train.FeatureList", "train.FeatureLists", "gfile.", "io.gfile.",
          "train.latest_checkpoint")
_PIPELINE_METHODS = {"map", "filter", "flat_map", "interleave"}


@functools.lru_cache(maxsize=None)
def _change_spec():
    from tensorflow.tools.compatibility import all_renames_v2, tf_upgrade_v2

    spec = tf_upgrade_v2.TFAPIChangeSpec()
    return all_renames_v2.symbol_renames, spec.function_keyword_renames, spec.function_reorders


def tf2_path(path: str) -> str | None:
    """The TF2 name (without `tf.`) of the TF1 `tf.<path>`: TensorFlow's own rename, or the same name where TF2 has
    it; None where it moved to `tf.compat.v1` or TF2 has no such name."""
    import tensorflow as tf

    renames = _change_spec()[0]
    new = renames.get(f"tf.{path}", f"tf.{path}")
    if new.startswith("tf.compat."):
        return None
    value = tf
    for part in new.split(".")[1:]:
        value = getattr(value, part, None)
        if value is None:
            return None
    return new.removeprefix("tf.")


class PlainCalls(RewriteState):
    """The rewriter's part for TF code that builds no graph (`_plain`, `_plain_function`, `_mapped_function`)."""

    def _renamed(self, node, plain_only: bool):
        """`node` with each TensorFlow reference in TF2's name, or None where one has none (or, `plain_only`, is a
        call that is not a file or proto call)."""
        _, keywords, reorders = _change_spec()
        calls = {id(n.func): n for n in ast.walk(node) if isinstance(n, ast.Call)}
        outer = [n for n in ast.walk(node) if isinstance(n, ast.Attribute) and self._path(n) is not None]
        inner = {id(a) for n in outer for a in ast.walk(n.value)}
        changes = []
        for n in (n for n in outer if id(n) not in inner):  # the whole chain `tf.train.Example`, not `tf.train`
            path = self._path(n)
            new = tf2_path(path)
            call = calls.get(id(n))
            if new is None or (plain_only and call is not None and not path.startswith(_PLAIN)) or \
                    (plain_only and call is None):
                return None
            if call is not None and (f"tf.{path}" in reorders and len(call.args) > 1 or
                                     any(k.arg in keywords.get(f"tf.{path}", {}) for k in call.keywords)):
                return None  # TF2 reads its arguments otherwise
            changes.append((n, new))
        if any(isinstance(n, ast.Name) and n.id in self.plan.tf_names for n in ast.walk(node)
               if not any(n is a for c, _ in changes for a in ast.walk(c))):
            return None  # TensorFlow itself as a value
        for n, new in changes:
            root = n
            while isinstance(root, ast.Attribute):
                root = root.value
            renamed = ast.parse(f"{root.id}.{new}", mode="eval").body
            n.value, n.attr = renamed.value, renamed.attr
        return node

    def _plain(self, s) -> list | None:
        """A statement whose TensorFlow calls are file and proto calls only (`writer = tf.python_io.
        TFRecordWriter(path)`, `example = tf.train.Example(...)`), reading no graph value: kept, renamed."""
        if not self._uses_tf(s) or self._loads(s) & (self.tainted | self.sessions):
            return None
        kept = self._renamed(s, plain_only=True)
        if kept is None:
            return None
        self.tainted -= self._stores(s) if not isinstance(s, ast.Expr) else set()
        return [kept]

    def _plain_function(self, s) -> list | None:
        """A function whose TensorFlow calls are file and proto calls only (`def _float_feature(values): return
        tf.train.Feature(float_list=tf.train.FloatList(value=values))`), reading no graph value: kept, renamed."""
        if self._free_loads(s) & (self.tainted | self.sessions):
            return None
        kept = self._renamed(s, plain_only=True)
        if kept is None:
            return None
        self.tainted.discard(s.name)
        return [kept]

    def _mapped_function(self, s) -> list | None:
        """A function the script uses only as what a tf.data pipeline maps (`dataset.map(parse_fn)`): TF2 traces
        it as TF1 did, inside the dataset; kept, in TF2's names, where every name it reads has one."""
        uses = [n for n in ast.walk(self.tree) if isinstance(n, ast.Name) and n.id == s.name
                and isinstance(n.ctx, ast.Load)]
        mapped = [c for c in ast.walk(self.tree) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                  and c.func.attr in _PIPELINE_METHODS and any(isinstance(a, ast.Name) and a.id == s.name
                                                              for a in c.args)]
        if not uses or len(uses) != len(mapped) or self._free_loads(s) & (self.tainted | self.sessions):
            return None
        kept = self._renamed(s, plain_only=False)
        return None if kept is None else [kept]
