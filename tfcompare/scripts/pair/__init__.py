"""`tfcompare pair TF1_SCRIPT TF2_SCRIPT`: does a training script train the same as its rewrite? No adapter code.

Each script runs unchanged in its own process, instrumented (see `probe_tf1`, `probe_tf2`); the TF2 run gets
TF1's initial weights and batches; the first K steps are compared and each known cause of a difference is
checked on its own (`diagnose`).
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path

import numpy as np

from tfcompare.core import gradient_transforms
from tfcompare.core.equivalence import TOLERANCES
from tfcompare.core.errors import legacy_hint
from tfcompare.core.results import json_text
from tfcompare.core.source_files import SourceError, read_script
from tfcompare.scripts.child import noise
from tfcompare.scripts.child.draws import draws_text, unshared
from tfcompare.scripts.child.dropout import AS_WRITTEN, MODES as DROPOUT_MODES, text as dropout_text
from tfcompare.scripts.pair.causes import loss_causes
from tfcompare.scripts.pair.inference import inference_findings, inference_note
from tfcompare.scripts.pair.joint import align
from tfcompare.scripts.pair.speed import speed_lines, step_speed
from tfcompare.scripts.pair.activations import parting
from tfcompare.scripts.pair.findings import Finding
from tfcompare.scripts.pair.diagnose import findings, optimizer_text, reduction_of, unpaired_findings
from tfcompare.scripts.pair.steps import StepCheck, step_checks, traced_findings
from tfcompare.scripts.child.processes import OverLimit, ended_text, output_tail, pair_folder, run_sides
from tfcompare.scripts.child.layouts import layout_findings, virtualise
from tfcompare.scripts.child.record import SideRecord, load, load_progress
from tfcompare.scripts.pair.slots import counter_findings, slot_findings
from tfcompare.scripts.pair.state import pair_state, state_findings
from tfcompare.scripts.pair.train_ops import order_findings
from tfcompare.scripts.pair.windows import window_causes

__all__ = ["PairOptions", "PairResult", "pair_scripts", "MAX_STEPS", "AGREE", "DIFFER", "FAILED", "NON_FINITE",
           "DROPOUT_MODES"]

MAX_STEPS = 20
# NON_FINITE: a loss, gradient or weight of a compared step is NaN or inf on either side (exit 1, as DIFFER)
AGREE, DIFFER, FAILED, NON_FINITE = "agree", "differ", "failed", "non-finite"
_EAGER_NOTE = "TF2's tf.function bodies ran eagerly so every step could be read: the comparison is of eager numerics"
_NOT_SUBSTITUTED = ("tfcompare replaces only known loaders (input_data.read_data_sets, keras.datasets.*.load_data); "
                    "a script that reads other files reads them as they are, so the file must exist")


@dataclasses.dataclass(frozen=True)
class PairOptions:
    """How a pair runs: K steps compared, each side's time limit, the ARGS both scripts get, dropout as written or
    off on both sides (`dropout.MODES`), the memory both sides may hold together (None: `processes.memory_limit()`;
    `convert` passes its own, so its whole command has one)."""

    steps: int = 3
    timeout_s: float = 120.0
    args: tuple[str, ...] = ()
    dropout: str = AS_WRITTEN
    memory_limit_bytes: int | None = None
    timing: bool = False  # both training steps timed after the comparison (`speed`): the CLI says True

    def __post_init__(self):
        if not 1 <= self.steps <= MAX_STEPS:
            raise ValueError(f"steps must be 1..{MAX_STEPS}, got {self.steps}")
        if not self.timeout_s > 0:
            raise ValueError(f"the time limit must be positive, got {self.timeout_s}")
        if self.dropout not in DROPOUT_MODES:
            raise ValueError(f"dropout must be one of {', '.join(DROPOUT_MODES)}, got {self.dropout!r}")


@dataclasses.dataclass
class PairResult:
    tf1_script: str
    tf2_script: str
    steps: int
    args: list[str] = dataclasses.field(default_factory=list)
    status: str = FAILED
    error: str = ""
    failed_side: str = ""
    traceback: str = ""
    pairing: list[dict] = dataclasses.field(default_factory=list)
    state: list[dict] = dataclasses.field(default_factory=list)  # the non-trainable state paired (pair.state)
    slots: list[dict] = dataclasses.field(default_factory=list)  # the optimizer slots compared (pair.slots)
    checks: list[StepCheck] = dataclasses.field(default_factory=list)
    findings: list[Finding] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    sides: dict[str, dict] = dataclasses.field(default_factory=dict)
    case: dict = dataclasses.field(default_factory=dict)  # what --emit-case writes: feeds, inputs, pairing
    tolerance: str = str(TOLERANCES["float32"])
    noise_floor: str = ""  # how TF1's own noise floor was measured, or why it was not
    floor_factor: float = noise.FACTOR
    dropout: str = ""  # --dropout off: what tfcompare replaced on each side
    non_finite: dict[str, dict] = dataclasses.field(default_factory=dict)  # per side: step, quantity, detail
    timing: dict = dataclasses.field(default_factory=dict)  # both steps' speed (pair.speed), when timed
    tensorboard: str = ""  # the TensorBoard run the command wrote
    wall_s: float = 0.0

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    def json_text(self) -> str:
        return json_text(self.to_json())  # NaN and inf as strings: a failing script's loss stays valid JSON

    def lines(self) -> list[str]:
        head = f"pair {self.tf1_script} (TF1) vs {self.tf2_script} (TF2), {self.steps} steps"
        if self.status == FAILED:
            out = [head, f"could not compare: {self.error}"]
            if self.traceback:
                out += ["", self.traceback.rstrip()]
            if self.findings:
                out.append("what differs besides (each side's first step on its own):")
                out += [f"  - {f.text}" for f in self.findings]
            return out
        out = [head, "paired variables:"]
        out += [f"  {p['tf1']} {tuple(p['shape'])} <- {p['tf2']} ({p['tf2_site']}; {p['how']})" for p in self.pairing]
        if self.state:
            out.append("non-trainable state compared after every step: " + ", ".join(
                f"{s['tf1']} <- {s['tf2']}" for s in self.state))
        if self.slots:
            out.append("optimizer slots compared after every step: " + ", ".join(
                f"{s['slot']} ({s['variables']} variable{'s' if s['variables'] != 1 else ''})" for s in self.slots))
        out.append(f"steps (a tensor differs when it fails the element-wise tolerance {self.tolerance} and its "
                   f"error relative to its norm is over {self.floor_factor:g}x TF1's own noise floor; from step 2 "
                   "the weights are judged together, as one state: which tensor a replay's largest gap lands in is "
                   "chance there):")
        for c in self.checks:
            flag = "ok" if c.ok else "NON-FINITE" if c.non_finite_tf1 or c.non_finite_tf2 else "DIFFERS"
            out.append(f"  {c.step}: loss {c.loss_tf1:.7g} vs {c.loss_tf2:.7g} (rel err {c.loss_rel_err:.2g}, floor "
                       f"{_floor(c.loss_floor)}), gradients rel err {c.gradients_rel_err:.2g} (floor "
                       f"{_floor(c.gradients_floor)}; max abs {c.gradients_max_abs_err:.2g}), weights after rel err "
                       f"{c.weights_rel_err:.2g} ({'whole state, ' if c.weights_as_state else ''}floor "
                       f"{_floor(c.weights_floor)}; max abs "
                       f"{c.weights_max_abs_err:.2g})  {flag}")
        out.append(f"noise floor: {self.noise_floor}")
        if self.dropout:
            out.append(f"dropout: {self.dropout}")
        for side in ("tf1", "tf2"):
            s = self.sides.get(side, {})
            # TF1's optimizer shows the rate at its first step; TF2's shows its schedule already
            scheduled = f", learning rate {s['schedule']}" if side == "tf1" and s.get("schedule") not in \
                (None, "", "constant") else ""
            clipped = "" if s.get("clipping", "none") == "none" else f", {s['clipping']}"
            out.append(f"{side.upper()}: optimizer {s.get('optimizer')}{scheduled}{clipped}, loss reduction "
                       f"{s.get('reduction')}, "
                       f"forward ops {s.get('ops')}, ran on {s.get('device')}")
        steps_agree = all(c.ok for c in self.checks)
        verdict = (self.non_finite_line() if self.status == NON_FINITE else
                   "AGREE: losses, gradients and weights within the noise for every step" if self.status == AGREE else
                   "DIFFER: every step agrees within the noise, but the scripts are not the same:" if steps_agree else
                   "DIFFER")
        out.append(verdict)
        out += [f"  - {f.text}" for f in self.findings]
        out += speed_lines(self.timing)
        out += [f"note: {n}" for n in self.notes]
        return out


    def non_finite_line(self) -> str:
        """`NON-FINITE: ...`: each side's first step and quantity (loss, gradients, weights) that is NaN or inf."""
        said = {side: f"the {v['quantity']} {'is' if v['quantity'] == 'loss' else 'are'} not finite from step "
                      f"{v['step']} ({v['detail']})" for side, v in self.non_finite.items()}
        if len(said) == 2 and said["tf1"].split(" (")[0] == said["tf2"].split(" (")[0]:
            where = f"TF1 and TF2: {said['tf1'].split(' (')[0]} (TF1 {self.non_finite['tf1']['detail']}, TF2 " \
                    f"{self.non_finite['tf2']['detail']})"
        else:
            where = "; ".join(f"{side.upper()}: {text}" for side, text in said.items())
            if len(said) == 1:
                other = "TF2" if "tf1" in said else "TF1"
                where += f"; {other} stays finite over the {len(self.checks)} steps compared"
        return (f"NON-FINITE: {where}: a NaN or inf is never an agreement, the steps from there on are not "
                "compared (the training diverged: a learning rate too large, a log or a division of 0)")


def _non_finite_sides(result: PairResult, tf1: SideRecord, tf2: SideRecord) -> dict[str, dict]:
    """Each side's first compared step holding a NaN or inf: its number, which quantity, and what."""
    out = {}
    for side, rec in (("tf1", tf1), ("tf2", tf2)):
        check = next((c for c in result.checks if getattr(c, f"non_finite_{side}")), None)
        if check is None:
            continue
        quantity, k = getattr(check, f"non_finite_{side}"), check.step - 1
        if quantity == "loss":
            detail = f"{rec.losses[k]:g}"
        else:
            arrays = rec.weights("grad" if quantity == "gradients" else "after", k)
            key = next(key for key, v in arrays.items() if not np.all(np.isfinite(np.asarray(v, np.float64))))
            name = next((v.name for v in rec.variables if v.key == key), key)
            detail = f"{'gradient of ' if quantity == 'gradients' else ''}{name}"
        out[side] = {"step": check.step, "quantity": quantity, "detail": detail}
    return out


def _eager_note(tf2: SideRecord) -> str:
    """How TF2's steps were compared: eagerly (to read inside each step), and again traced where they can be."""
    if tf2.traced_steps:
        steps = (f"the {tf2.traced_steps} steps" if tf2.traced_at == list(range(tf2.traced_steps)) else
                 f"its steps to step {max(tf2.traced_at) + 1} ({tf2.traced_steps} calls of its step function)")
        return (f"TF2's tf.function bodies ran eagerly so every step could be read, then {steps} "
                "ran again traced, as the script runs them, from the same start: their weights were compared too")
    if tf2.traced_error:
        return _EAGER_NOTE + "; traced, as the script runs them, they fail (see above)"
    return _EAGER_NOTE + (f"; {tf2.traced_note}" if tf2.traced_note else "")


def _floor(value) -> str:
    return "-" if value is None else f"{value:.2g}"


def _side_summary(record: SideRecord) -> dict:
    ops = ", ".join(f"{k} x{v}" for k, v in sorted((record.ops or {}).items())) or (record.ops_note or "none")
    reduction = reduction_of(record, bool(record.repeat)) if record.reduction_ratio is not None else \
        f"unknown ({record.reduction_note})"
    return {"optimizer": optimizer_text(record.optimizer), "reduction": reduction, "ops": ops, "device": record.device,
            "steps_recorded": record.steps, "seconds": round(record.seconds, 3), "step_function": record.step_function,
            "schedule": record.schedule, "learning_rates": record.learning_rates,
            "clipping": "none" if record.gradient_transform["kind"] == "none" else
            gradient_transforms.text(record.gradient_transform)}


def _failure(result: PairResult, side: str, record: SideRecord | None, ended, folder: Path, timeout_s: float) -> bool:
    """Fill in why `side` could not be compared; False when it can."""
    label = f"the {side.upper()} script"
    if record is not None and record.status == "ok" and record.steps:
        return False
    result.failed_side = side
    if record is None:
        if isinstance(ended, OverLimit):
            result.error = str(ended)
        elif ended == "timeout":
            result.error = f"{label} reached no training step within {timeout_s:g} s (no optimizer step was run)"
        else:
            progress = load_progress(folder, side)
            result.error = (ended_text(label, ended, progress["steps"] if side == "tf1" else None) if progress else
                            f"tfcompare's {side.upper()} child ended ({ended}) before the script started: tfcompare "
                            "failed")
            result.traceback = output_tail(folder, side)
        return True
    if record.status == "crashed" and record.tfcompare_caused:
        result.error = record.error.removeprefix("SubstitutionError: ")
        result.traceback = ""
    elif record.status == "crashed":
        result.error = record.error if record.error.startswith(label) else \
            f"{label} failed before its first training step: {record.error}"  # sys.exit(2) says so itself
        result.error += "".join(f"; {n}" for n in record.substitution if n.endswith("the failure is the script's own"))
        if "No such file" in record.error or "NotFoundError" in record.error or "FileNotFound" in record.error:
            result.error += f" ({_NOT_SUBSTITUTED})"
        result.error += legacy_hint(record.error, record.script) + _order_hint(side, record.script)
        result.traceback = record.traceback or output_tail(folder, side)  # sys.exit(2): what it printed
        if record.refused:  # the refusal names the API and its replacement: no traceback
            result.traceback = ""
    elif record.status == "unpairable":
        result.error = record.error
    else:
        result.error = (f"{label} ran to its end without a training step: no Session.run of an optimizer's train op"
                        if side == "tf1" else
                        f"{label} ran to its end without a training step: no GradientTape.gradient with respect to "
                        "its variables")
    return True


def _order_hint(side: str, script: str) -> str:
    """A TF1 script that fails and reads like a TF2 one (a GradientTape, no Session): the order may be swapped."""
    try:
        source = read_script(script)
    except SourceError:
        return ""
    if side == "tf1" and "GradientTape" in source and "Session" not in source:
        return ("; this script uses tf.GradientTape and no Session: is it the TF2 script? tfcompare pair takes the "
                "TF1 script first, then the TF2 one")
    return ""


def pair_scripts(tf1_script: str | Path, tf2_script: str | Path, options: PairOptions = PairOptions()) -> PairResult:
    """Run both scripts (TF2 with TF1's weights and batches) and compare their first `options.steps` steps."""
    started = time.perf_counter()
    tf1_path, tf2_path = Path(tf1_script).resolve(), Path(tf2_script).resolve()
    result = PairResult(str(tf1_script), str(tf2_script), options.steps, list(options.args))
    folder = pair_folder()
    try:
        ended = run_sides(tf1_path, tf2_path, folder, options.steps, options.args, options.timeout_s,
                          memory_limit_bytes=options.memory_limit_bytes, dropout=options.dropout,
                          timed=options.timing)
        tf1, tf2 = load(folder, "tf1"), load(folder, "tf2")
        if tf1 is not None:  # its RNN cells in the layouts TF2 paired them in, as the TF2 child saw it
            tf1 = virtualise(tf1, tf2.layouts if tf2 is not None else {})
        if _failure(result, "tf1", tf1, ended["tf1"], folder, options.timeout_s) or \
                _failure(result, "tf2", tf2, ended["tf2"], folder, options.timeout_s):
            if tf2 is not None and tf2.status == "unpairable" and tf2.steps:
                result.findings = [Finding("cause", text, True) for text in window_causes(tf1, tf2)] + \
                    unpaired_findings(tf1, tf2)
                result.notes = list(dict.fromkeys(tf1.notes + tf2.notes + tf2.substitution))
            result.wall_s = time.perf_counter() - started
            return result
        with noise.quiet():  # a diverged step's NaNs: numpy's warnings would read as the scripts' own
            _compare(result, tf1, tf2)
        if options.timing:
            result.timing = step_speed(folder, tf1, tf2)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result.wall_s = time.perf_counter() - started
    return result


def _compare(result: PairResult, tf1: SideRecord, tf2: SideRecord) -> None:
    pairs = [tuple(p) for p in tf2.pairing]
    result.notes += align(tf1, tf2, pairs)  # TF2's steps of a TF1 run of several train ops, in TF1's form
    result.pairing = [{"tf1": tf1.var(a).name, "tf2": tf2.var(b).name, "shape": tf1.var(a).shape,
                       "tf2_site": tf2.var(b).site,
                       "how": how + (f"; {tf1.var(a).layout}" if tf1.var(a).layout else "")} for a, b, how in pairs]
    result.checks = step_checks(tf1, tf2, pairs)
    slot_found, result.slots, slot_note = slot_findings(tf1, tf2, pairs, result.checks)
    counted, counter_note = counter_findings(tf1, tf2)
    slot_found += counted
    result.notes += [n for n in (slot_note, counter_note) if n]
    result.noise_floor = (f"TF1's {tf1.steps} steps replayed from the same initial weights with {tf1.floor_how}; the "
                          "largest gap to the original run, per step and tensor" if tf1.floor else
                          f"not measured: {tf1.floor_note or 'TF1 stopped before its steps were replayed'}; the "
                          "element-wise tolerance alone is used")
    result.findings = order_findings(tf1, tf2, pairs) + findings(tf1, tf2, pairs, result.checks) + \
        traced_findings(tf1, tf2, pairs, result.checks) + state_findings(tf1, tf2) + slot_found + [
        Finding("layout", text, decisive) for text, decisive in layout_findings(tf2.layouts)]
    if result.checks:
        result.findings += inference_findings(tf1, tf2, result.checks[0].ok)
        result.notes.append(inference_note(tf1, tf2))
    if result.checks and not result.checks[0].loss_ok and not unshared(tf1, tf2):
        # the first loss differs: a known mistake that makes it so (not where each side drew its own numbers)
        result.findings += [Finding("cause", text, True) for text in loss_causes(tf1, tf2) + window_causes(tf1, tf2)]
        result.findings += [Finding("parting", text) for text in parting(tf1, tf2)]
    paired, left1, left2 = pair_state(tf1, tf2)
    result.state = [{"tf1": a["name"], "tf2": b["name"], "shape": a["shape"]} for a, b in paired]
    for side, left in (("TF1", left1), ("TF2", left2)):
        if left:
            result.notes.append(f"{side}'s non-trainable state with no counterpart, not compared: "
                                + ", ".join(f"{s['name']} {tuple(s['shape'])}" for s in left))
    steps_agree = bool(result.checks) and all(c.ok for c in result.checks)
    result.status = AGREE if steps_agree and not any(f.decisive for f in result.findings) else DIFFER
    if not result.checks:  # every step left out (joint.align): nothing says agree or differ
        result.status, result.error = FAILED, "no step could be compared: " + "; ".join(
            n for n in result.notes if n.startswith("the steps stop")) or "no step ran on both sides"
    if result.status == DIFFER and tf1.repeat and not any(f.decisive for f in result.findings):
        # TF1's own loss changes when read twice: each process draws its own random numbers (a live dropout, a
        # VAE's noise), so steps that differ say nothing about the scripts: no verdict, and the settings agree
        result.status = FAILED
        result.error = (f"the steps cannot be compared number for number: TF1's loss of the same batch from the same "
                        f"weights changed by {tf1.repeat:.2g} (relative) when read twice, so it draws random numbers "
                        "(a live dropout, noise in the forward pass), and each script's process draws its own; "
                        "no setting compared differs. With dropout: tfcompare pair --dropout off")
    drawn = draws_text(tf1, tf2)
    if drawn and not drawn.given and result.status == DIFFER and not any(f.decisive for f in result.findings):
        result.status = FAILED  # each side drew its own numbers: steps that differ say nothing about the scripts
        result.error = (f"the steps cannot be compared number for number: {drawn.text}; no setting compared "
                        "differs")
    elif drawn:
        result.notes.append(drawn.text)
    result.non_finite = _non_finite_sides(result, tf1, tf2)
    if result.non_finite:
        result.status = NON_FINITE
    if tf2.steps < result.steps or tf1.steps < result.steps:
        result.notes.append(f"only {min(tf1.steps, tf2.steps)} steps ran (TF1 {tf1.steps}, TF2 {tf2.steps})")
    result.notes += list(dict.fromkeys(tf1.notes + tf2.notes + tf2.substitution + [_eager_note(tf2)]))
    result.sides = {"tf1": _side_summary(tf1), "tf2": _side_summary(tf2)}
    if tf1.dropout_replaced is not None:
        left = [side for side, rec in (("TF1", tf1), ("TF2", tf2))
                if any(d["live"] for d in rec.dropout) or (rec.ops or {}).get("Dropout")]
        result.dropout = dropout_text(tf1.dropout_replaced, tf2.dropout_replaced or 0, left)
    result.case = _case_parts(tf1, tf2, pairs)


def _case_parts(tf1: SideRecord, tf2: SideRecord, pairs) -> dict:
    """The facts a generated cases file needs to load both scripts again as a case."""
    batch = [f["shape"][0] for f in tf1.feeds if f["kind"] != "scalar"]
    return {"tf1_script": tf1.script, "tf2_script": tf2.script,
            "feeds": [{"name": f["name"], "shape": f["shape"][1:], "dtype": f["dtype"], "kind": f["kind"],
                       "high": f.get("high")} for f in tf1.feeds if f["kind"] != "scalar"],
            "scalars": {f["name"]: f.get("value") for f in tf1.feeds if f["kind"] == "scalar"},
            "inputs": tf2.inputs, "pairing": {a: int(b.removeprefix("v")) for a, b, _ in pairs},
            "batch_size": max(set(batch), key=batch.count) if batch else 32,
            "substituted": bool(tf2.inputs)}
