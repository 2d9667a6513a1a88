"""Fused RNN layouts: a TF1 cell's variables seen in the layout of the Keras layer that computes the same.

TF1's `GRUCell` keeps `gates/kernel` (columns r | u) and `candidate/kernel`, each over [x; h]; Keras's `GRU` keeps
`kernel` (x) and `recurrent_kernel` (h), columns z | r | h, with z = TF1's u. TF1's `LSTMCell`, `BasicLSTMCell` and
`LSTMBlockCell` keep one `kernel` over [x; h], gates i | j | f | o, and add `forget_bias` to f when they run;
Keras's `LSTM` keeps i | f | c | o and has that constant in its bias. No shape matches one to one, so pairing by
shape alone cannot see them. `find_cells` (TF1 child) names the cells from their variables and graph;
`virtualise` rewrites a TF1 record so each cell's variables are replaced by virtual ones in the Keras layout (every
initial value, weight, gradient and noise-floor entry transformed: a permutation, plus the forget bias on the
weights); from there the pairing and every comparison run unchanged. A Keras `GRU(reset_after=True)` has a bias of
two rows (input and recurrent): its variant puts TF1's bias in the input row and zeros in the recurrent one, and
the pair says that Keras computes another thing.
"""

from __future__ import annotations

import copy
import dataclasses
import re

import numpy as np

from tfcompare.core.graphs import static_value
from tfcompare.scripts.child.record import SideRecord, Variable, stats

__all__ = ["find_cells", "virtualise", "variant_for", "layout_findings", "tried", "KERAS", "RESET_AFTER"]

KERAS, RESET_AFTER = "keras", "reset_after"  # a cell seen in Keras's layout; a Keras GRU(reset_after=True)
# an array of a variable: its kind (with the step) and the variable's key; an optimizer's slot (see slots) is
# transformed like a gradient (a permutation of its elements, no forget_bias moved into it)
_ARRAY_KINDS = re.compile(r"^(init/|(?:before|after|grad)/\d+/|slot:\w+/(?:init|\d+)/)(.+)$")
_LSTM_ORDER = [0, 2, 1, 3]  # TF1 i | j | f | o -> Keras i | f | c(j) | o


def find_cells(variables: list[Variable], graph=None) -> list[dict]:
    """The GRU and LSTM cells among a TF1 step's trained variables, by their names and shapes (TF's cells, the
    contrib and legacy ones, and hand-written cells that name their variables the same way)."""
    by_name = {v.name: v for v in variables}
    cells = []
    for v in variables:
        if v.name.endswith("/gates/kernel") and len(v.shape) == 2 and v.shape[1] % 2 == 0:
            prefix, units = v.name.removesuffix("/gates/kernel"), v.shape[1] // 2
            parts = {"gates_kernel": v, "gates_bias": by_name.get(f"{prefix}/gates/bias"),
                     "candidate_kernel": by_name.get(f"{prefix}/candidate/kernel"),
                     "candidate_bias": by_name.get(f"{prefix}/candidate/bias")}
            shapes = {"gates_bias": [2 * units], "candidate_kernel": [v.shape[0], units], "candidate_bias": [units]}
            if all(parts[k] is not None and parts[k].shape == s for k, s in shapes.items()) and v.shape[0] > units:
                cells.append({"kind": "gru", "prefix": prefix, "units": units, "input": v.shape[0] - units,
                              "members": {k: p.key for k, p in parts.items()}, "forget_bias": None})
        elif v.name.endswith("/kernel") and "lstm" in v.name.rsplit("/", 2)[-2].lower() and len(v.shape) == 2 \
                and v.shape[1] % 4 == 0:
            prefix, units = v.name.removesuffix("/kernel"), v.shape[1] // 4
            bias = by_name.get(f"{prefix}/bias")
            if bias is not None and bias.shape == [4 * units] and v.shape[0] > units:
                cells.append({"kind": "lstm", "prefix": prefix, "units": units, "input": v.shape[0] - units,
                              "members": {"kernel": v.key, "bias": bias.key},
                              "forget_bias": _forget_bias(graph, v.key) if graph is not None else 1.0})
    return cells


def _forget_bias(graph, kernel_name: str) -> float:
    """The constant TF1's LSTM adds to its forget gate when it runs: a fused `LSTMBlockCell`'s attribute, or the
    constant added to the third of the four gate blocks split from the kernel's matmul (0 when none is added).
    Followed from the kernel through the graph (TF1's loops hold their body in it); a loop body kept as a
    function (control flow v2) is searched as a whole. TF1's default, 1, when neither finds it."""
    try:
        start = graph.get_operation_by_name(kernel_name)
    except (KeyError, ValueError):
        return 1.0
    seen, frontier = {start}, [start]
    for _ in range(8):
        nxt = []
        for op in frontier:
            for user in (u for out in op.outputs for u in out.consumers()):
                found = _added_to_forget_gate(user)
                if found is not None:
                    return found
                if user not in seen:
                    seen.add(user)
                    nxt.append(user)
        frontier = nxt
    bodies = [f.graph for f in getattr(graph, "_functions", {}).values() if getattr(f, "graph", None) is not None]
    found = {v for body in bodies for op in body.get_operations() if (v := _added_to_forget_gate(op)) is not None}
    return found.pop() if len(found) == 1 else 1.0


def _added_to_forget_gate(op) -> float | None:
    if op.type in ("LSTMBlockCell", "BlockLSTM", "BlockLSTMV2"):
        return float(op.get_attr("forget_bias"))
    if op.type != "Split" or op.get_attr("num_split") != 4:
        return None
    for user in op.outputs[2].consumers():
        if user.type in ("Add", "AddV2"):
            for t in user.inputs:
                value = static_value(t)
                if value is not None and np.ndim(value) == 0:
                    return float(value)
    return 0.0


def _virtual(cell: dict, variant: str | None):
    """(suffix, shape, function of the members' arrays and whether they are weights) for each virtual variable."""
    i, h = cell["input"], cell["units"]
    if cell["kind"] == "gru":
        def cols(m, rows):  # z (TF1's u) | r | candidate
            return np.concatenate([m["gates_kernel"][rows, h:], m["gates_kernel"][rows, :h],
                                   m["candidate_kernel"][rows]], axis=1)

        def bias(m, weights):
            one = np.concatenate([m["gates_bias"][h:], m["gates_bias"][:h], m["candidate_bias"]])
            return np.stack([one, np.zeros_like(one)]) if variant == RESET_AFTER else one
        return [("kernel", [i, 3 * h], lambda m, w: cols(m, slice(0, i))),
                ("recurrent_kernel", [h, 3 * h], lambda m, w: cols(m, slice(i, None))),
                ("bias", [2, 3 * h] if variant == RESET_AFTER else [3 * h], bias)]
    fb = cell.get("forget_bias") or 0.0

    def blocks(x):
        return np.concatenate([np.split(x, 4, axis=-1)[k] for k in _LSTM_ORDER], axis=-1)

    def lstm_bias(m, weights):
        out = blocks(m["bias"]).copy()
        if weights and fb:
            out[h:2 * h] = (out[h:2 * h] + np.asarray(fb, out.dtype)).astype(out.dtype)
        return out
    return [("kernel", [i, 4 * h], lambda m, w: blocks(m["kernel"][:i])),
            ("recurrent_kernel", [h, 4 * h], lambda m, w: blocks(m["kernel"][i:])),
            ("bias", [4 * h], lstm_bias)]


def describe(cell: dict, variant: str | None = None) -> str:
    """The layout in words, for the pairing lines."""
    if cell["kind"] == "gru":
        return ("layout: TF1 GRUCell gates/kernel [r|u] and candidate/kernel over [x; h] as Keras GRU kernel, "
                "recurrent_kernel, bias [z|r|h]" + (" (reset_after=True: TF1's bias in its input row, the "
                                                    "recurrent row 0)" if variant == RESET_AFTER else ""))
    return (f"layout: TF1 LSTMCell kernel [i|j|f|o] over [x; h] as Keras LSTM kernel, recurrent_kernel, bias "
            f"[i|f|c|o], forget_bias {cell.get('forget_bias') or 0:g} moved into the bias")


def virtualise(record: SideRecord, variants: dict[str, str] | None = None) -> SideRecord:
    """A copy of a TF1 record with the cells named in `variants` (prefix -> KERAS or RESET_AFTER) seen in the
    Keras layout (see the module's docstring); the other cells stay as TF1 wrote them (a TF2 rewrite that keeps
    TF1's layout pairs with them by shape)."""
    variants = variants or {}
    if not any(c["prefix"] in variants for c in record.cells):
        return record
    out = copy.copy(record)
    out.arrays = dict(record.arrays)
    out.variables = list(record.variables)
    out.floor = copy.deepcopy(record.floor)
    for cell in record.cells:
        if cell["prefix"] not in variants:
            continue
        variant = variants[cell["prefix"]]
        members = cell["members"]
        parts = [next(v for v in record.variables if v.key == k) for k in members.values()]
        groups: dict[str, dict[str, np.ndarray]] = {}
        for key, value in record.arrays.items():
            match = _ARRAY_KINDS.match(key)
            if match and match.group(2) in members.values():
                role = next(r for r, k in members.items() if k == match.group(2))
                groups.setdefault(match.group(1), {})[role] = value
                del out.arrays[key]
        first = min(parts, key=lambda p: p.created)
        used = [p.used for p in parts if p.used is not None]
        out.variables = [v for v in out.variables if v.key not in members.values()]
        for n, (suffix, shape, make) in enumerate(_virtual(cell, variant)):
            key = f"{cell['prefix']}:{suffix}"
            for kind, arrays in groups.items():
                if len(arrays) == len(members):
                    out.arrays[f"{kind}{key}"] = make(arrays, not kind.startswith(("grad/", "slot:")))
            out.variables.append(dataclasses.replace(
                first, key=key, name=f"{cell['prefix']}:{suffix}", shape=shape, created=first.created + n / 10,
                used=min(used) + n / 10 if used else None, init=stats(out.arrays.get(f"init/{key}", np.zeros(0))),
                scheme=None, layout=describe(cell, variant)))
        for step in out.floor:  # a virtual variable's floor: the largest of its members'
            for what in ("gradients", "weights"):
                if what in step:
                    worst = max((step[what].pop(k, 0.0) for k in members.values()), default=0.0)
                    for suffix, _, _ in _virtual(cell, variant):
                        step[what][f"{cell['prefix']}:{suffix}"] = worst
            for name in {k.split("/", 1)[0] for k in step.get("slots", {})}:  # slot floors: name/variable key
                worst = max((step["slots"].pop(f"{name}/{k}", 0.0) for k in members.values()), default=0.0)
                for suffix, _, _ in _virtual(cell, variant):
                    step["slots"][f"{name}/{cell['prefix']}:{suffix}"] = worst
            _virtual_squares(step.get("squares", {}), cell, variant)
    out.variables.sort(key=lambda v: v.created)
    ranked = sorted((v for v in out.variables if v.used is not None), key=lambda v: v.used)
    use = {v.key: n for n, v in enumerate(ranked)}
    out.variables = [dataclasses.replace(v, created=n, used=use.get(v.key)) for n, v in enumerate(out.variables)]
    return out


def _virtual_squares(squares: dict, cell: dict, variant: str) -> None:
    """Each replay's squared gaps (`noise.whole`) of a cell's members, summed into its first virtual variable (the
    others 0): the same elements laid out otherwise, so any state holding the whole cell sums to the same gap."""
    suffixes = [suffix for suffix, _, _ in _virtual(cell, variant)]
    for what, per_tensor in squares.items():
        prefixes = {k.split("/", 1)[0] + "/" if what == "slots" else "" for k in per_tensor}
        for prefix in prefixes:
            lists = [per_tensor.pop(f"{prefix}{k}") for k in cell["members"].values() if f"{prefix}{k}" in per_tensor]
            if len(lists) != len(cell["members"]):
                continue
            total = [sum(values) for values in zip(*lists)]
            for n, suffix in enumerate(suffixes):
                per_tensor[f"{prefix}{cell['prefix']}:{suffix}"] = total if n == 0 else [0.0] * len(total)


def variant_for(record: SideRecord, shape: list[int], variants: dict[str, str], made: dict) -> tuple | None:
    """(cell prefix, variant) that a TF2 variable of `shape`, which no TF1 variable as written matches, stands for:
    a Keras `GRU(reset_after=True)` bias (2, 3h) is the n-th GRU cell of that size, n the GRU biases of that size
    TF2 made before it (`made`: shape -> count; a stack whose second layer alone has reset_after=True maps to the
    second cell); any other shape of a Keras layout is the first cell not yet seen in one."""
    shape = list(shape)
    if len(shape) == 2 and shape[0] == 2:
        cells = [c for c in record.cells if c["kind"] == "gru" and 3 * c["units"] == shape[1]]
        n = made.get((shape[1],), 0) + made.get(tuple(shape), 0)
        if n < len(cells) and variants.get(cells[n]["prefix"]) != RESET_AFTER:
            return cells[n]["prefix"], RESET_AFTER
        # else (2, k) may be a kernel of a 2-feature input: the general case below
    for cell in record.cells:
        if cell["prefix"] not in variants and shape in [s for _, s, _ in _virtual(cell, KERAS)]:
            return cell["prefix"], KERAS
    return None


def layout_findings(variants: dict[str, str]) -> list[tuple[str, bool]]:
    """(text, decisive) for each layout variant that computes another thing than TF1's cell."""
    return [(f"Keras GRU(reset_after=True) (the Keras default) applies the reset gate after the recurrent matmul "
             f"and adds a second bias; TF1's GRUCell ({prefix}) applies it before: reset_after=False computes what "
             "TF1 does", True) for prefix, variant in variants.items() if variant == RESET_AFTER]


def tried(record: SideRecord) -> str:
    """For a pairing that failed: the layouts tried, or that no TF1 cell was recognised."""
    if not record.cells:
        return ""
    return "layouts tried: " + "; ".join(
        f"{c['prefix']} as Keras {'GRU (reset_after False and True)' if c['kind'] == 'gru' else 'LSTM'}, input "
        f"{c['input']}, units {c['units']}" for c in record.cells)
