"""Which TF1 cells `convert` writes as one call of a helper it puts into the script (`written_cells`): a plain
`BasicLSTMCell` / `LSTMCell` (`basic_lstm`), an `LSTMCell` with peepholes, clipping or a projection (`lstm_cell`), a
`GRUCell` (`gru`), and a `MultiRNNCell` of those (one call per cell); and the call written for one cell.
"""

from __future__ import annotations

from tfcompare.core.generated_code import literal

__all__ = ["HELPERS", "cell_kind", "layer_call"]

# the function written into the script for each cell
HELPERS = {"lstm": "basic_lstm", "lstm_cell": "lstm_cell", "gru": "gru"}


def layer_call(tr, kind: str, weights: list, settings: dict, sequence: str) -> str:
    """`basic_lstm(sequence, self.kernel, self.bias, forget_bias=1.0` (closed by the caller): one cell's helper,
    written into the script once; an LSTMCell's peepholes, projection and clips by keyword."""
    helper, extra = kind, ""
    cell = settings.get("cell") or {}
    if cell:
        helper = "lstm_cell"
        if "peepholes" in cell:
            extra += f", peepholes=({', '.join(f'self.{tr.variables[v.op.name]}' for v in cell['peepholes'])})"
        if "projection" in cell:
            extra += f", projection=self.{tr.variables[cell['projection'].op.name]}"
    tr.helpers.add(helper)
    if kind == "lstm":
        extra += f", forget_bias={literal(settings['forget_bias'])}"
    for clip in ("cell_clip", "proj_clip"):
        if clip in cell:
            extra += f", {clip}={literal(cell[clip])}"
    weights = ", ".join(f"self.{tr.variables[v.op.name]}" for v in weights)
    return f"{HELPERS[helper]}({sequence}, {weights}{extra}"


def _plain_gru(cell) -> bool:
    """A GRUCell with tanh (its default): TF 1.15's formula, the helper `gru` writes."""
    import tensorflow as tf

    return type(cell).__name__ == "GRUCell" and getattr(cell, "_activation", None) in (tf.tanh, tf.math.tanh)


def _lstm_settings(cell) -> dict | None:
    """A BasicLSTMCell or LSTMCell with tanh and its state as a tuple: what the helper needs beyond kernel and bias
    (an LSTMCell's peepholes, projection and clips; {} for a plain one, `basic_lstm`'s), else None."""
    import tensorflow as tf

    if type(cell).__name__ not in ("BasicLSTMCell", "LSTMCell") or not getattr(cell, "_state_is_tuple", False) or \
            getattr(cell, "_activation", None) not in (tf.tanh, tf.math.tanh):
        return None
    extra = {}
    if getattr(cell, "_use_peepholes", False):
        extra["peepholes"] = [cell._w_f_diag, cell._w_i_diag, cell._w_o_diag]
    if getattr(cell, "_num_proj", None) is not None:
        extra["projection"] = cell._proj_kernel
        if cell._proj_clip is not None:
            extra["proj_clip"] = float(cell._proj_clip)
    if getattr(cell, "_cell_clip", None) is not None:
        extra["cell_clip"] = float(cell._cell_clip)
    return extra


def cell_kind(cell) -> tuple[str, list, dict] | None:
    """(kind, the cell's variables in the helper's argument order, helper settings), or None for a cell not written."""
    extra = _lstm_settings(cell)
    if extra is not None:  # an LSTM: its state (c, h), its kernel's gate order; with extras written by `lstm_cell`
        return "lstm", [cell._kernel, cell._bias], {"forget_bias": float(cell._forget_bias),
                                                    **({"cell": extra} if extra else {})}
    if type(cell).__name__ == "MultiRNNCell" and getattr(cell, "_state_is_tuple", False):
        layers = [cell_kind(c) for c in cell._cells]
        if all(layer is not None and layer[0] in ("lstm", "gru") for layer in layers):
            return "stack", [], {"layers": layers}
    if _plain_gru(cell):
        return "gru", [cell._gate_kernel, cell._gate_bias, cell._candidate_kernel, cell._candidate_bias], {}
    return None
