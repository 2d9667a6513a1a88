"""The Model's `__init__`: its variables with TF1's initializers (the module style's tf.Variable lines), or the
Keras style's weights no layer owns and its Keras layers, built for their input shapes; each naming the TF1 line
it came from.
"""

from __future__ import annotations

import ast
import functools
import textwrap

import numpy as np

from tfcompare.scripts.child import initialisation
from tfcompare.scripts.convert import keras_layers
from tfcompare.scripts.convert.initializers import named
from tfcompare.scripts.convert.line_width import MAX_LINE
from tfcompare.scripts.convert.naming import INDENT
from tfcompare.scripts.convert.ops import Translator, number
from tfcompare.scripts.convert.tf1_lines import provenance_line, source_line
from tfcompare.scripts.convert.script_numbers import script_array, script_constant

__all__ = ["keras_init_lines", "variable_line", "metric_lines"]


@functools.lru_cache(maxsize=4)
def _module_variable_calls(source: str) -> dict[int, list[ast.Call]]:
    """Line -> the module-level `Variable(...)` calls on it (a call inside a function reads its locals); parsed
    once per script, not once per variable."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    inside = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.Lambda, ast.ClassDef))
              for n in ast.walk(f)}
    calls: dict[int, list[ast.Call]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in inside and \
                getattr(node.func, "attr", getattr(node.func, "id", None)) == "Variable":
            calls.setdefault(node.lineno, []).append(node)
    return calls


def _python_initial(v, tr: Translator) -> str | None:
    """The script's own Python expression a variable was made from (`tf.Variable(rng.randn(), ...)`,
    `tf.Variable(np.zeros((3, 4)))`): TF1 turned its value into a constant, a draw of the run's; the rewrite
    evaluates the same expression, so it draws as the script does. None when the value came from TF ops."""
    if v.initial_value.op.type != "Const":
        return None
    line = source_line(v.op, tr.script, tr.source)
    if not line:
        return None
    for node in _module_variable_calls("\n".join(tr.source)).get(line[0], []):
        value = node.args[0] if node.args else next((k.value for k in node.keywords
                                                     if k.arg == "initial_value"), None)
        if value is None or isinstance(value, ast.Constant):
            return None  # a literal: the constant written is the same number
        roots = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
        if roots & {"tf", "tensorflow"} or any(isinstance(n, ast.Lambda) for n in ast.walk(value)):
            return None
        return ast.unparse(value)
    return None


def _shape_text(v, shape: list, tr: Translator) -> str:
    """The variable's shape as the script wrote it (`[num_input, n_hidden_1]`, its module-level numbers bound once
    before the graph, read again when the model is built), else as numbers."""
    line = source_line(v.op, tr.script, tr.source) if tr.script_numbers is not None and shape else None
    written = tr.script_numbers.expression(line[0], np.asarray(shape, np.int64)) if line else None
    return written if written is not None and written.startswith("[") else str(shape)


def _initializer(v, sess, attr: str, tr: Translator) -> str:
    shape = list(v.shape.as_list())
    dtype = v.dtype.base_dtype
    dt = "" if dtype.name == "float32" else f", dtype=tf.{dtype.name}"
    python = _python_initial(v, tr)
    if python is not None:
        return f"tf.constant({python}, dtype=tf.{dtype.name})"
    python = script_constant(v, tr)
    if python is not None:  # Keras's Constant broadcasts a number as TF1's did, and takes an array of the shape
        return f"tf.keras.initializers.Constant({python})({shape}{dt})"
    scheme = initialisation.tf1_scheme(v, sess)
    kind = (scheme or {}).get("scheme")
    keras_name = named(scheme, shape)
    shape_text = _shape_text(v, shape, tr)
    if keras_name:
        return f"tf.keras.initializers.{keras_name}({shape_text}{dt})"
    if kind in ("normal", "truncated_normal"):
        fn = "tf.random.normal" if kind == "normal" else "tf.random.truncated_normal"
        mean = f", mean={number(np.float32(scheme['mean']))}" if scheme["mean"] else ""
        return f"{fn}({shape_text}{mean}, stddev={number(np.float32(scheme['stddev']))}{dt})"
    if kind == "uniform":
        low, high = (number(np.float32(scheme[k])) for k in ("low", "high"))
        return f"tf.random.uniform({shape_text}, {low}, {high}{dt})"
    if kind == "constant":
        value = float(scheme["value"])
        if value == 0:
            return f"tf.zeros({shape_text}{dt})"
        if value == 1:
            return f"tf.ones({shape_text}{dt})"
        filled = number(np.asarray(value, dtype.as_numpy_dtype))
        return f"tf.fill({shape_text}, {filled})" if not dt else f"tf.fill({shape_text}, tf.constant({filled}{dt}))"
    array = script_array(v, tr)
    if array is not None:
        return array[0] if array[1] else f"tf.constant({array[0]}, dtype=tf.{dtype.name})"
    line = source_line(v.op, tr.script, tr.source)
    where = f"TF1 line {line[0]}" if line else "the TF1 graph"
    tr.todos.append(f"the initializer of {attr} ({v.initial_value.op.type}) from {where}")
    return f"tf.zeros({shape}{dt})  # TODO(tfcompare): initializer {v.initial_value.op.type} from {where}"


def _comment_lines(comment: str) -> list[str]:
    """`# comment` above a statement, its "; "-separated parts packed into lines within MAX_LINE."""
    indent, lines, line = INDENT * 2, [], ""
    for part in comment.split("; "):
        joined = f"{line}; {part}" if line else part
        if line and len(f"{indent}# {joined}") > MAX_LINE:
            lines.append(line)
            joined = part
        line = joined
    lines.append(line)
    return [piece for text in lines
            for piece in textwrap.wrap(text, MAX_LINE - len(indent) - 2, initial_indent=f"{indent}# ",
                                       subsequent_indent=f"{indent}#   ", break_long_words=False,
                                       break_on_hyphens=False)]


def _wrapped(head: str, args: list[str], comment: str) -> list[str]:
    """`head(args)  # comment` within MAX_LINE; when long, the comment on lines of its own above and the
    arguments packed, each line within MAX_LINE."""
    one = f"{INDENT * 2}{head}({', '.join(args)})"
    if len(one) + (len(comment) + 4 if comment else 0) <= MAX_LINE:
        return [one + (f"  # {comment}" if comment else "")]
    out = _comment_lines(comment) if comment else []
    if len(one) <= MAX_LINE:
        return out + [one]
    out, line = out + [f"{INDENT * 2}{head}("], ""
    for i, arg in enumerate(args):
        piece = arg + (")" if i == len(args) - 1 else ",")
        if line and len(INDENT * 3 + line + " " + piece) > MAX_LINE:
            out.append(INDENT * 3 + line)
            line = ""
        line = f"{line} {piece}" if line else piece
    return out + [INDENT * 3 + line]


def keras_init_lines(layers: list, loose: dict, tf1_names: dict, sess, tr: Translator) -> list[str]:
    """The Keras model's __init__ body: the weights no layer owns (add_weight with TF1's initializer), then each
    layer in the order of the forward pass, built for its input shape so its weights exist before the first step."""
    out = []
    for attr, v in loose.items():
        line = provenance_line(v.op, tr.script, tr.source)
        comment = (f"TF1 line {line[0]}: {line[1][:60]}" if line else "") + "; not in a Keras layer"
        init = keras_layers.keras_initializer(v, sess, tr)
        if init is None:
            init = '"zeros"'
            comment += f"; TODO(tfcompare): initializer {v.initial_value.op.type}"
            tr.todos.append(f"the initializer of {attr} ({v.initial_value.op.type}) from "
                            f"{f'TF1 line {line[0]}' if line else 'the TF1 graph'}")
        dtype = v.dtype.base_dtype.name
        args = [f"shape={tuple(v.shape.as_list())}", f"initializer={init}",
                *([] if dtype == "float32" else [f'dtype="{dtype}"']), f'name="{attr}"']
        out += _wrapped(f"self.{attr} = self.add_weight", args, comment.lstrip("; "))
    for layer in sorted(layers, key=lambda x: x.op._id):
        first, line = (provenance_line(op, tr.script, tr.source) for op in (layer.first or layer.op, layer.op))
        comment = ""
        if first and line:
            span = f" {first[0]}" if first[0] == line[0] else f"s {first[0]}-{line[0]}"
            comment = f"TF1 line{span}: {first[1] if len(first[1]) <= 60 else first[1][:57] + '...'}"
        if layer.weights:
            comment += "; TF1's " + ", ".join(tf1_names[v.op.name] for v in layer.weights.values())
        for role, v in layer.unread:
            comment += f"; TODO(tfcompare): {role} initializer {v.initial_value.op.type}"
            tr.todos.append(f"the initializer of {layer.attr}.{role} ({v.initial_value.op.type}) from "
                            f"{f'TF1 line {line[0]}' if line else 'the TF1 graph'}")
        out += _wrapped(f"self.{layer.attr} = {layer.cls}", layer.arguments(), comment.lstrip("; "))
        if layer.build:
            out.append(f"{INDENT * 2}self.{layer.attr}.build({layer.build})")
    return out


def variable_line(attr: str, v, sess, tr: Translator, trainable: bool = True) -> str:
    """`self.attr = tf.Variable(TF1's initializer, name=TF1's name)`, naming the TF1 line that made it (the TF1 name
    is what its checkpoint holds, and what pair confirms a pairing by where the order of use cannot)."""
    line = provenance_line(v.op, tr.script, tr.source)
    comment = f"  # TF1 line {line[0]}: {line[1][:60]}" if line else ""
    init = _initializer(v, sess, attr, tr)
    flag = "" if trainable else ", trainable=False"
    if "#" in init:
        return (f"{INDENT * 2}self.{attr} = tf.Variable({init.split('  #')[0]}{flag}, name={v.op.name!r})"
                f"  #{init.split('  #', 1)[1]}")
    return f"{INDENT * 2}self.{attr} = tf.Variable({init}{flag}, name={v.op.name!r}){comment}"



def metric_lines(attr: str, constructor: str, op, tr: Translator, style: str) -> list[str]:
    """`self.attr = tf.keras.metrics.X()`: the state a TF1 streaming metric kept in local variables. A tf.Module
    (nor does TensorFlow's SavedModel into a keras.Model's): its variables are also held in a list, so
    `tf.saved_model.save` reaches the total and count the methods update."""
    line = provenance_line(op, tr.script, tr.source)
    comment = f"  # TF1 line {line[0]}: {line[1][:60]}" if line else ""
    return [f"{INDENT * 2}self.{attr} = {constructor}{comment}",
            f"{INDENT * 2}self.{attr}_state = self.{attr}.variables  # saved with the model"]
