"""What the legacy runtime provides and what it refuses (with the TF2 replacement), without importing TensorFlow.

One registry: each namespace (relative to `tf`) -> the module and function that list its contents. `migrate`
reads it to say which removed APIs still run under `tfcompare run-tf1` / `pair`; the runtime builds its modules
from it; the README's coverage table is printed from it (`python -m tfcompare.scripts.legacy.coverage`).
"""

from __future__ import annotations

import importlib

from tfcompare.core.replacements import lookup

__all__ = ["NAMESPACES", "REFUSED", "REFUSAL_MARK", "provided", "is_provided", "refusal", "table_lines"]

_PKG = "tfcompare.scripts.legacy"
# namespace relative to tf -> (module, function returning {name: object})
NAMESPACES = {
    "contrib.rnn": (f"{_PKG}.rnn", "contents"),
    "contrib.layers": (f"{_PKG}.layers", "layers_contents"),
    "contrib.framework": (f"{_PKG}.layers", "framework_contents"),
    "contrib.slim": (f"{_PKG}.layers", "slim_contents"),
    "contrib.eager": (f"{_PKG}.eager", "contents"),
    "contrib.legacy_seq2seq": (f"{_PKG}.seq2seq", "contents"),
    "contrib.learn.datasets": (f"{_PKG}.runtime", "learn_datasets_contents"),
    "contrib.learn.datasets.mnist": (f"{_PKG}.runtime", "mnist_contents"),
    "contrib.learn.preprocessing": (f"{_PKG}.preprocessing", "contents"),
    "estimator": (f"{_PKG}.estimator", "contents"),
    "estimator.inputs": (f"{_PKG}.estimator", "inputs_contents"),
    # tf.nn.rnn_cell and tf.layers need tf-keras under Keras 3; without it the runtime serves the same cells and
    # layers
    "nn.rnn_cell": (f"{_PKG}.rnn", "cell_contents"),
    "layers": (f"{_PKG}.tf_layers", "contents"),
}
# removed namespaces a TF1 script commonly uses that the runtime does not implement (anything else under
# tf.contrib is refused the same way)
REFUSED = ("contrib.slim.nets", "contrib.slim.learning", "contrib.factorization", "contrib.tensor_forest",
           "contrib.boosted_trees", "contrib.seq2seq", "contrib.crf", "contrib.distributions", "contrib.training",
           "contrib.metrics", "contrib.losses", "contrib.tpu", "contrib.cudnn_rnn")

REFUSAL_MARK = "is not provided: TensorFlow 2 removed it"  # in every refusal's message


def provided(namespace: str) -> dict:
    """{name: object} the runtime serves under `namespace` (imports TensorFlow)."""
    module, function = NAMESPACES[namespace]
    return getattr(importlib.import_module(module), function)()


def _relative(symbol: str) -> str:
    for prefix in ("tensorflow.compat.v1.", "tensorflow.", "tf.compat.v1.", "tf."):
        if symbol.startswith(prefix):
            return symbol[len(prefix):]
    return symbol


def is_provided(symbol: str) -> bool:
    """Whether `symbol` (tf.contrib.rnn.LSTMCell, tensorflow.contrib.rnn, estimator.Estimator.train...) is served."""
    rel = _relative(symbol).replace("contrib.learn.python.learn.", "contrib.learn.")
    parts = rel.split(".")
    if rel in ("contrib", "contrib.learn") or any(n.startswith(rel + ".") or n == rel for n in NAMESPACES):
        return True
    for n in range(len(parts) - 1, 0, -1):
        namespace = ".".join(parts[:n])
        if namespace in NAMESPACES:
            return parts[n] in provided(namespace)
    return False


def refusal(symbol: str, script: str | None = None) -> str:
    """The one message for a removed API the runtime does not provide: the symbol, that it is not provided, the
    TF2 replacement (the migrate table's), and the `tfcompare migrate` line for the script."""
    rel = _relative(symbol)
    replacement = lookup(rel) or "see `tfcompare migrate`"
    text = f"tf.{rel} {REFUSAL_MARK} and tfcompare's legacy runtime does not implement it; the TF2 replacement: " \
        f"{replacement}"
    if script:
        text += f". `tfcompare migrate {script}` lists every removed API the script uses, with its replacement"
    return text


def table_lines() -> list[str]:
    """The README's coverage table (Markdown)."""
    out = ["| namespace | provided (TF 1.15 definitions) |", "|---|---|"]
    for namespace in NAMESPACES:
        out.append(f"| `tf.{namespace}` | {', '.join(sorted(provided(namespace)))} |")
    out += ["", "| refused namespace | the TF2 replacement the message names |", "|---|---|"]
    out += [f"| `tf.{namespace}` | {lookup(namespace)} |" for namespace in REFUSED]
    return out


if __name__ == "__main__":
    print("\n".join(table_lines()))
