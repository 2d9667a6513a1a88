"""The rewrite's `Model.restore_tf1_checkpoint(path)`: the checkpoints a team's TF1 script wrote with
`tf.train.Saver` (name-based: each variable under its TF1 graph name) loaded into the TF2 model, so the rewrite
starts from the weights the team trained, not from new ones.

The name map is the one `convert` wrote the model from: each TF1 variable it translated (trained ones, and the
moving statistics the step updates) to the model's own variable, which keeps TF1's layout (a fused RNN kernel is
written as TF1's cell reads it, a Dense kernel is TF1's matmul weight). A shape that differs is an error naming
both; optimizer slots are not loaded (TF1's Adam `m`/`v` do not map one to one onto Keras's slot variables).
"""

from __future__ import annotations

from tfcompare.scripts.convert.line_width import MAX_LINE
from tfcompare.scripts.convert.naming import INDENT

__all__ = ["METHOD", "restore_method"]

METHOD = "restore_tf1_checkpoint"


def _pair(depth: int, key: str, value: str) -> list[str]:
    """A dict item, the value on a line of its own where both do not fit in MAX_LINE (long TF1 scope names)."""
    line = f"{INDENT * depth}{key}: {value},"
    return [line] if len(line) <= MAX_LINE else [f"{INDENT * depth}{key}:", f"{INDENT * (depth + 1)}{value},"]


def restore_method(tf1_to_attr: dict[str, str], shadows: dict[str, str] | None = None) -> list[str]:
    """The method's lines, in the Model's class body; `tf1_to_attr` maps a TF1 variable's graph name (its key in
    a Saver checkpoint) to the model's attribute path (`weights_1`, `dense1.kernel`); `shadows` a moving average's
    shadow name (`w1/ExponentialMovingAverage`) to the attribute path of the weight it averages."""
    if not tf1_to_attr:
        return []
    pairs = [line for name, attr in tf1_to_attr.items() for line in _pair(3, repr(name), f"self.{attr}")]
    averaged = [line for name, attr in (shadows or {}).items()
                for line in _pair(4, repr(name), f"averages.average(self.{attr})")]
    doc = ("into this model, each variable by its TF1 name, and the shadows of `averages` (the weights'\n"
           f"{INDENT * 2}ExponentialMovingAverage) where it is given; optimizer slots are not loaded.\"\"\""
           if averaged else "into this model, each variable by its TF1 name; optimizer slots are not loaded.\"\"\"")
    return [f"{INDENT}def {METHOD}(self, path{', averages=None' if averaged else ''}):",
            f'{INDENT * 2}"""Load what the TF1 script\'s tf.train.Saver wrote (a checkpoint prefix, or its '
            'folder)\n'
            f'{INDENT * 2}{doc}',
            f"{INDENT * 2}reader = tf.train.load_checkpoint(path)",
            f"{INDENT * 2}tf1_names = {{",
            *pairs,
            f"{INDENT * 2}}}",
            *([f"{INDENT * 2}if averages is not None:",
               f"{INDENT * 3}tf1_names.update({{",
               *averaged,
               f"{INDENT * 3}}})"] if averaged else []),
            f"{INDENT * 2}# every value read and its shape checked before any is assigned",
            f"{INDENT * 2}values = {{name: reader.get_tensor(name) for name in tf1_names}}",
            f"{INDENT * 2}for name, variable in tf1_names.items():",
            f"{INDENT * 3}if values[name].shape != tuple(variable.shape):",
            f'{INDENT * 4}raise ValueError(f"{{name}} in {{path}} has shape {{values[name].shape}}, "',
            f'{INDENT * 4}                 f"the model\'s {{variable.name}} {{tuple(variable.shape)}}")',
            f"{INDENT * 2}for name, variable in tf1_names.items():",
            f"{INDENT * 3}variable.assign(values[name])",
            ""]
