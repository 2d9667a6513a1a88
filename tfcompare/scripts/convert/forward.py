"""The model's one forward pass: the tensor of TF1's graph where the model ends and the loss begins (the logits a
cross-entropy takes, the prediction a squared error compares with its targets), written once as the model's
`__call__` (a tf.Module) or `call` (a keras.Model), so the loss, the metrics and the predictions share it instead
of each writing the forward pass out again.

Found from the loss's graph, not from names: the model's output is computed from trained variables and fed
inputs, and enters an op of the loss whose other input comes from a fed placeholder and no variable (the labels,
or an autoencoder's own input). A guard the loss puts on it (`tf.log(pred + 1e-10)`, a clip) is the loss's, not the
model's. Of several such tensors the last is the output (a residual `relu(x @ w) + x` meets its input first); none,
or several not one after another (a GAN's two, a loss over two heads), leave the methods as they were.
"""

from __future__ import annotations

import textwrap

from tfcompare.core.graphs import ancestors, read_tensors
from tfcompare.scripts.convert.line_width import MAX_LINE
from tfcompare.scripts.convert.naming import INDENT, fed_key
from tfcompare.scripts.convert.train_step import input_signature
from tfcompare.scripts.convert.written_line import return_lines

__all__ = ["model_output", "fed_inputs", "call_lines", "returned_beside", "LEAVES"]

# applied to the output by the loss: a guard (`tf.log(pred + 1e-10)`, a clip) or its arithmetic (`1 - pred`)
_GUARDS = {"Log", "ClipByValue", "Maximum", "Minimum", "Add", "AddV2", "Sub"}
# ops that draw: a forward pass holding one is written once only if nothing else in the loss reads the draw
_RANDOM = {"RandomStandardNormal", "RandomUniform", "RandomUniformInt", "TruncatedNormal", "Multinomial",
           "RandomGamma", "RandomPoisson", "RandomPoissonV2", "RandomShuffle"}
_SKIP = {"Identity", "ReadVariableOp", "Snapshot", "StopGradient"}


def _reach(loss, variable_ops: set, fed_names: frozenset = frozenset()) -> tuple[dict, dict]:
    """tensor name -> whether it reads a trained variable, and -> the placeholders (or the other fed tensors named in
    `fed_names`: an input pipeline's batches) it is computed from; iterative (an unrolled RNN is deeper than Python's
    recursion), a cycle (a while loop's back edge) read as neither."""
    uses_vars: dict = {}
    feeds: dict = {}
    stack, open_ = [(loss, False)], set()
    while stack:
        t, done = stack.pop()
        if t.name in uses_vars and not done:
            continue
        if not done:
            if t.name in open_:
                continue
            open_.add(t.name)
            stack.append((t, True))
            stack.extend((i, False) for i in t.op.inputs if i.name not in uses_vars and i.name not in open_)
            continue
        op = t.op
        var = op.name in variable_ops
        fed = {op.name} if op.type in ("Placeholder", "PlaceholderWithDefault") else \
            {t.name} if t.name in fed_names else set()
        for i in op.inputs:
            var = var or uses_vars.get(i.name, False)
            fed |= feeds.get(i.name, frozenset())
        uses_vars[t.name], feeds[t.name] = var, frozenset(fed)
    return uses_vars, feeds


def model_output(loss, trained: list, feed_tensors: list = ()):
    """The one tensor that is the model's output in `loss`'s graph, or None. The step's inputs are the placeholders,
    and `feed_tensors` (an Estimator's or a tf.data iterator's batches, its labels among them)."""
    uses_vars, feeds = _reach(loss, {v.op.name for v in trained}, frozenset(t.name for t in feed_tensors))

    def reach(t):
        return uses_vars.get(t.name, False), feeds.get(t.name, frozenset())

    candidates, seen, stack = {}, set(), [loss.op]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        parts = [(t, *reach(t)) for t in op.inputs]
        labels = [t for t, var, fed in parts if fed and not var]
        for t, var, fed in parts:
            if var and fed and labels:
                t = _outside(t, op, uses_vars)
                candidates[t.name] = t
            if var:
                stack.append(t.op)
    outputs = {t.name: t for t in (_unguarded(c, uses_vars) for c in candidates.values())}
    # the last of them: a residual `relu(x @ w) + x` also meets its input, before the logits meet the labels
    last = [t for t in outputs.values()
            if set(outputs) - {t.name} <= {o.name for op in ancestors([t]) for o in op.outputs}]
    if len(last) != 1 or last[0] is loss or _drawn_twice(loss, last[0]):
        return None
    return last[0]


def _drawn_twice(loss, out) -> bool:
    """Whether the loss reads a random draw of the forward pass other than through its output (a VAE's loss reads
    z, its decoder's output reads z too): the loss written with `self(x)` would draw it a second time."""
    drawn = {op for op in ancestors([out]) if op.type in _RANDOM}
    if not drawn:
        return False
    seen, todo = set(), [loss.op]
    while todo:
        op = todo.pop()
        if op in seen or op is out.op:
            continue
        seen.add(op)
        todo.extend(t.op for t in op.inputs if t is not out)
        todo.extend(op.control_inputs)
    return bool(drawn & seen)


def _outside(t, consumer, uses_vars):
    """Out of the loss function's own name scope: the logits a cross-entropy reshapes inside
    `softmax_cross_entropy_with_logits/` are the ones it was given."""
    own = consumer.name + "/"  # the op named as its function's scope (`sgd/softmax_cross_entropy_with_logits_sg`,
    # its reshapes below it): that scope, not the variable scope around it, which holds the logits too
    scope = own if "/" not in consumer.name or any(i.op.name.startswith(own) for i in consumer.inputs) else \
        consumer.name.rsplit("/", 1)[0] + "/"
    while t.op.name.startswith(scope):
        inner = [i for i in t.op.inputs if uses_vars.get(i.name) and not i.op.name.startswith(scope)]
        if len(inner) != 1:
            break
        t = inner[0]
    return t


def _unguarded(t, uses_vars):
    """Below the loss's own guard on the output: `pred` of `tf.log(pred + 1e-10)` or of a clip."""
    while t.op.type in _SKIP | _GUARDS and t.op.inputs:
        inner = [i for i in t.op.inputs if uses_vars.get(i.name)]
        others = [i for i in t.op.inputs if not uses_vars.get(i.name)]
        if len(inner) != 1 or any(i.op.type not in ("Const",) and i.op.type not in _SKIP for i in others):
            break
        t = inner[0]
    return t


# ops where a forward pass's own computation stops: its inputs, its variables and their reads
LEAVES = {"Placeholder", "PlaceholderWithDefault", "VariableV2", "VarHandleOp", "Variable", "ReadVariableOp",
           "Const", "Identity"}


def returned_beside(out, fetched: list, feed_tensors: list) -> list:
    """The fetched tensors the model's call returns beside its output: each computed from ops of the forward pass
    other than through the output and not on its way to it (an RNN's final state, which the script fetches with the
    loss and feeds back), from no fed input the output does not read (the labels). Each method then reads them from
    the one call (`logits, final_state = self(x, state)`) instead of writing the forward pass out again."""
    forward = {op for op in ancestors([out], control=False) if op.type not in LEAVES}
    inputs = {t.name for t in fed_inputs(out, feed_tensors)}
    extras = []
    for t in fetched:
        if t is out or t.op in forward or any(t is e for e in extras) or \
                any(f.name not in inputs for f in fed_inputs(t, feed_tensors)):
            continue
        seen, todo, inside, through = set(), [t.op], False, False
        while todo:
            op = todo.pop()
            through = through or op is out.op
            if op in seen or op is out.op:
                continue
            seen.add(op)
            inside = inside or op in forward
            todo.extend(i.op for i in op.inputs)
        if inside and not through:  # not a prediction computed from the output (`softmax(logits)`)
            extras.append(t)
    return extras


def fed_inputs(t, feed_tensors: list) -> list:
    """The fed tensors `t` is computed from, in the order of `feed_tensors` (the step's argument order): each
    tensor, not its op (of an iterator's `X, Y`, a forward pass reads X alone). The walk stops at a fed tensor:
    TF1 takes the fed value, so what computed it (`raw / 255.` of a fed `tf_x`, and `raw`) is not read."""
    stops = {f.name for f in feed_tensors} | {m.name for f in feed_tensors for m in getattr(f, "members", ())}
    read = {x.name for x in read_tensors(t, stops)}
    # a fed RNN state (rnn_state.StateFeed) is read where the zero-state tensors it stands for are
    return [f for f in feed_tensors if f.name in read or any(m.name in read for m in getattr(f, "members", ()))]


def call_lines(out, tr, style: str, feed_tensors: list, arguments: dict, own_names: dict | None = None,
               fed_itself: dict | None = None, extras: list = ()) -> list[str]:
    """The forward pass as the model's call; the tensor is registered in `tr.shared` with the call every other
    method writes in its place (`self(X)`); `own_names`: tensor name -> the name the script's function that
    computed it gave it (script_functions.forward_names), used in this method only; `fed_itself`: argument -> why
    it is a tensor TF1 fed in place of what its line computes (a comment above the body); `extras`: the tensors
    it returns beside its output (`returned_beside`), registered in `tr.shared_parts`."""
    stem = "logits" if any("WithLogits" in c.type for c in out.consumers()) else "output"
    with tr.renamed({**({out.name: stem} if extras and out.name not in tr.names else {}), **(own_names or {})}):
        body, expr = tr.function([out, *extras] if extras else out, share=False)
    expr = expr[1:-1] if extras else expr  # `return logits, final_state`
    fed = fed_inputs(out, feed_tensors)
    args = "".join(f", {arguments[fed_key(t)]}" for t in fed)
    lines = []
    if style == "module":
        if fed:  # a fed tensor's static shape: TF1 refused a feed that did not fit it
            lines.append(f"{INDENT}@tf.function({input_signature(fed, tr.flags)})")
        lines.append(f"{INDENT}def __call__(self{args}):")
    else:  # Keras's own signature: the input, then `training` as a keyword (Keras sets it in fit and predict)
        flags = {arguments[fed_key(t)] for t in fed if t.name in tr.flags}
        args = "".join(f", {a}=False" if a in flags else f", {a}" for a in (arguments[fed_key(t)] for t in fed))
        lines.append(f"{INDENT}def call(self{args}):")
    lines.append(f'{INDENT * 2}"""The forward pass: what the loss, the metrics and the predictions are computed '
                 'from."""')
    for arg in (arguments[fed_key(t)] for t in fed):
        if arg in (fed_itself or {}):
            lines += textwrap.wrap(f"{arg}: {fed_itself[arg]}", MAX_LINE - len(INDENT * 2) - 2,
                                   initial_indent=f"{INDENT * 2}# ", subsequent_indent=f"{INDENT * 2}# ")
    lines += [*return_lines(body, expr, INDENT * 2, {*tr.names.values(), *(own_names or {}).values()}), ""]
    tr.shared[out.name] = f"self({args.removeprefix(', ').replace('=False', '=' + next(iter(flags), ''))})" \
        if style != "module" and flags else f"self({args.removeprefix(', ')})"
    parts = [(t.name, stem if t is out else "returned") for t in (out, *extras)]
    for t in extras:
        tr.shared[t.name] = tr.shared[out.name]
    tr.shared_parts.update({t.name: parts for t in (out, *extras)} if extras else {})
    return lines
