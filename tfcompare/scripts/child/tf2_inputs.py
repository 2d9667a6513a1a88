"""The TF2 probe's inputs: TF1's batches in the format of TF2's step arguments, and the step's first call with them.

Each TF2 leaf shaped like a batch takes the TF1 feed that converts to it (shape, dtype, label format: see
`batches`); TF2's own first batch is kept for comparison. If the step fails on TF1's batch, it runs once more
with its own (nothing recorded, every variable put back) to say whether tfcompare's substitution or the script
failed: the former is a `SubstitutionError`.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tfcompare.scripts.child import batches
from tfcompare.scripts.child.probe_tf1 import Stop
from tfcompare.scripts.child.tf2_tape import _Probe

__all__ = ["InputSubstitution", "SubstitutionError", "example_feeds"]


def _is_batch(leaf) -> bool:
    return isinstance(leaf, (np.ndarray, tf.Tensor)) and len(leaf.shape) >= 1


def _is_example(leaf) -> bool:
    """A rank-0 number (NumPy scalar, 0-d array or tensor): one example, where TF1 feeds one value per step."""
    if isinstance(leaf, np.generic):
        return np.issubdtype(leaf.dtype, np.number)
    if isinstance(leaf, (np.ndarray, tf.Tensor)) and len(leaf.shape) == 0:
        return np.issubdtype(np.dtype(getattr(leaf.dtype, "as_numpy_dtype", leaf.dtype)), np.number)
    return False


def example_feeds(feeds: list[dict], values: list[dict]) -> list[str]:
    """TF1's feeds that are its data one value at a time (`for x, y in zip(X, Y): feed_dict={X: x, Y: y}`): only
    when every feed of the step is a number of rank 0 that changes from step to step (a fed keep_prob or learning
    rate stays the same), and at least two steps were recorded to tell them apart."""
    if len(values) < 2 or not feeds or any(f["kind"] != "scalar" or f["dtype"] == "bool" for f in feeds):
        return []
    names = [f["name"] for f in feeds]
    if any(n not in v for n in names for v in values):
        return []
    varying = [n for n in names if len({float(np.asarray(v[n])) for v in values}) > 1]
    return names if varying == names else []


class SubstitutionError(Exception):
    """TF1's batch, put into TF2's step by tfcompare, made the step fail where its own batch does not."""


class InputSubstitution:
    """`TF2Probe`'s part that replaces the step's inputs by TF1's batches."""

    def _tf1_batch(self, step: int) -> list[tuple[dict, np.ndarray]]:
        """TF1's fed arrays of `step`: the first step's feeds in their order, then those only a later step feeds
        (a GAN's discriminator step feeding its noise `z` where the first optimizer's step fed only `X`)."""
        values = self.tf1.batch(step)
        listed = {f["name"] for f in self.tf1.feeds}
        later = [{"name": name, "kind": batches.kind(value)} for name, value in values.items() if name not in listed]
        return [(f, values[f["name"]]) for f in [*self.tf1.feeds, *later]
                if f["kind"] != "scalar" and f["name"] in values]

    def _tf1_examples(self, step: int) -> list[tuple[dict, np.ndarray]]:
        """TF1's feeds of `step` when they are one example of rank-0 values (`example_feeds`), else []."""
        if not hasattr(self, "_example_names"):
            values = [self.tf1.batch(k) for k in range(self.tf1.steps)]
            self._example_names = example_feeds(self.tf1.feeds, values)
        values = self.tf1.batch(step)
        return [(f, values[f["name"]]) for f in self.tf1.feeds if f["name"] in self._example_names]

    def _convert_examples(self, leaves: list, step: int, notes, specs) -> list | None:
        """TF1's rank-0 feeds of `step` in place of the step's rank-0 leaves, in order, when there are as many of
        each; None when they do not correspond (then the leaves are not TF1's batch)."""
        mine = [i for i, leaf in enumerate(leaves) if _is_example(leaf)]
        if not mine or any(_is_batch(leaf) for leaf in leaves):
            return None
        feeds = self._tf1_examples(step)
        if len(mine) != len(feeds):
            return None
        out = [None] * len(leaves)
        for i, (feed, value) in zip(mine, feeds):
            leaf = leaves[i]
            dtype = np.dtype(getattr(leaf.dtype, "as_numpy_dtype", leaf.dtype))
            found = np.asarray(value).astype(dtype)
            out[i] = found[()] if isinstance(leaf, np.generic) else (
                found if isinstance(leaf, np.ndarray) else tf.constant(found))
            if specs is not None:
                specs.append({"feed": feed["name"], "convert": "same", "shape": [], "dtype": dtype.name})
        _add(notes, f"TF1 feeds one example per step as rank-0 values ({', '.join(f['name'] for f, _ in feeds)}); "
                    "TF2's rank-0 arguments took them in order")
        return out

    def _convert(self, leaves: list, step: int, notes: list[str] | None = None, batch: int | None = None,
                 specs: list | None = None, names: list | None = None) -> list:
        """TF1's batch of `step` in the format of each TF2 leaf (shape, dtype, label format); None where unmatched.
        `specs` gets, per leaf, the TF1 feed it came from and how it was converted (for a generated case). `names`:
        each leaf's parameter name, where known: of TF1's feeds that fit a leaf, the one its placeholder's name
        (`tf.placeholder(..., name='z')`) names is taken first (a GAN's real points and its noise, both (64, 2)),
        else the first in TF1's order."""
        examples = self._convert_examples(leaves, step, notes, specs)
        if examples is not None:
            return examples
        feeds = self._tf1_batch(step)
        used, out = set(), []
        for i, leaf in enumerate(leaves):
            found, spec = None, None
            if _is_batch(leaf):
                kind, shape = batches.kind(leaf), tuple(leaf.shape)
                dtype = np.dtype(leaf.dtype.as_numpy_dtype if hasattr(leaf.dtype, "as_numpy_dtype") else leaf.dtype)
                name = names[i] if names and i < len(names) else None
                order = sorted(range(len(feeds)), key=lambda j: name is None or
                               feeds[j][0]["name"].rpartition("/")[2] != name)
                for j in order:
                    feed, value = feeds[j]
                    if j in used:
                        continue
                    how = batches.how(value, feed["kind"], kind, shape[1:])
                    if how:
                        found = batches.apply(value, how, shape[1:], dtype)
                        used.add(j)
                        spec = {"feed": feed["name"], "convert": how, "shape": list(shape[1:]), "dtype": dtype.name}
                        if how == "argmax":
                            _add(notes, f"labels: one-hot {tuple(value.shape[1:])} per example in TF1, integer class "
                                        "ids in TF2; TF1's labels were given to TF2 as ids (argmax)")
                        elif how == "onehot":
                            _add(notes, "labels: integer class ids in TF1, one-hot in TF2; TF1's labels were given to "
                                        "TF2 one-hot")
                        if len(value) != (batch or shape[0]):
                            _add(notes, f"TF2's batch of {batch or shape[0]} replaced by TF1's batch of {len(value)}")
                        if not isinstance(leaf, np.ndarray):
                            found = tf.constant(found)
                        break
            out.append(found)
            if specs is not None:
                specs.append(spec)
        return out

    def _fit_inputs(self, x, y, batch_size, kwargs):
        """TF1's first K batches, in the format the script gave `fit`; validation is left out."""
        notes = self.record.substitution
        for key in ("validation_data", "validation_split"):
            if kwargs.pop(key, None):
                notes.append(f"fit's {key} dropped (only training steps are compared)")
        kwargs["shuffle"] = False
        if isinstance(x, tf.data.Dataset):
            template = next(iter(x))
            template = template if isinstance(template, tuple) else (template,)
            leaves = [t for t in template[:2]]
            batch_size = len(leaves[0]) if _is_batch(leaves[0]) else batch_size
            self._own(leaves)
        elif isinstance(x, (np.ndarray, tf.Tensor)) and y is not None:
            self._own([x[:batch_size or 32], y[:batch_size or 32]])
            leaves = [x[:2], y[:2]]
        else:
            notes.append("fit's inputs are neither arrays nor a dataset of (x, y): not substituted")
            return x, y, batch_size
        specs: list = []
        batches = [self._convert(leaves, k, notes if k == 0 else None, batch_size or 32, specs if k == 0 else None)
                   for k in range(min(self.steps, self.tf1.steps))]
        self.record.inputs = [dict(s, leaf=i) for i, s in enumerate(specs) if s is not None]
        if not batches or any(b is None for b in batches[0]):
            notes.append("fit's inputs do not match TF1's feeds: not substituted")
            return x, y, batch_size
        xs, ys = (np.concatenate([np.asarray(b[i]) for b in batches]) for i in (0, 1))
        self.record.step_function = "keras.Model.fit"
        self.step_args = (xs[:len(batches[0][0])], ys[:len(batches[0][1])])
        notes.append("fit's inputs were replaced by TF1's batches, in order, without shuffling")
        if isinstance(x, tf.data.Dataset):
            notes.append("fit was given a dataset; it was replaced by arrays of TF1's batches")
        return xs, ys, len(batches[0][0])

    def _first_call(self, call, substituted, original):
        """The step's first call with TF1's batch; if it fails, the step once more with its own arguments (nothing
        recorded, every variable put back), to say whether tfcompare's substitution or the script failed."""
        self._restart_activations()  # the first step's layer outputs are those of this call (TF1's batch)
        try:
            return call(*substituted)
        except (Stop, _Probe):
            raise
        except Exception as exc:
            saved = self._save_all()
            self.busy = True
            try:
                call(*original)
                own = ""
            except Exception as again:
                own = f"{type(again).__name__}: {str(again).splitlines()[0][:200] if str(again) else ''}"
            finally:
                self.busy = False
                self._restore_all(saved)
            if own:  # it fails with its own batch too: the script's own failure
                self.record.substitution.append(f"run again with its own batch (without tfcompare's substitution) "
                                                f"the step fails too ({own}): the failure is the script's own")
                raise
            first = tf.nest.flatten(substituted)
            mine = [np.shape(leaf) for leaf in tf.nest.flatten(original) if _is_batch(leaf)]
            given = [np.shape(leaf) for leaf in first if _is_batch(leaf)]
            self.record.status, self.record.tfcompare_caused = "crashed", True
            raise SubstitutionError(
                f"tfcompare's substitution broke the TF2 step, not the script: given TF1's batch (shapes {given}) it "
                f"fails with {type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}; run again "
                f"with its own batch (shapes {mine}) it works" + _size_hint(given, mine)) from exc

    def _own(self, leaves: list) -> None:
        """TF2's own first batch, before TF1's replaces it (compared by `inputs`)."""
        for i, leaf in enumerate(leaves):
            if _is_batch(leaf) or _is_example(leaf):
                self.record.arrays[f"own/{i}"] = np.asarray(leaf)


def _size_hint(given: list, mine: list) -> str:
    one = {s[0] for s in given if s}
    two = {s[0] for s in mine if s}
    if one and two and one != two:
        return (f": the step depends on its own batch size ({', '.join(map(str, sorted(two)))} in TF2, "
                f"{', '.join(map(str, sorted(one)))} in TF1), so give both scripts the same batch size to compare them")
    return ""


def _add(notes, text) -> None:
    if notes is not None and text not in notes:
        notes.append(text)
