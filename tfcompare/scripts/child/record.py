"""What one side's run recorded: variables, steps, optimizer, probes. JSON for the facts, one .npz for arrays.

Written by the child that ran the script, read by the parent that compares the two sides.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from collections.abc import MutableMapping
from typing import Any

import numpy as np

from tfcompare.core.files import write_atomic

__all__ = ["Variable", "SideRecord", "stats", "save", "load", "save_progress", "load_progress", "FORWARD_OPS",
           "forward_op_counts"]

# ops that say what a model computes; bookkeeping (reads, reshapes, casts, constants) and the loss's own
# arithmetic are left out, so a Dense layer and `x @ W + b` count the same
FORWARD_OPS = {"MatMul": "MatMul", "BatchMatMulV2": "MatMul", "BatchMatMulV3": "MatMul", "Conv2D": "Conv2D",
               "DepthwiseConv2dNative": "DepthwiseConv2d", "Conv3D": "Conv3D", "MaxPool": "MaxPool",
               "AvgPool": "AvgPool", "Relu": "Relu", "Relu6": "Relu6", "Elu": "Elu", "Selu": "Selu",
               "LeakyRelu": "LeakyRelu", "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Softplus": "Softplus",
               "Softsign": "Softsign", "Softmax": "Softmax", "LogSoftmax": "LogSoftmax",
               "FusedBatchNormV3": "BatchNorm", "FusedBatchNorm": "BatchNorm", "RandomUniform": "Dropout",
               "StatelessRandomUniformV2": "Dropout", "Erf": "Gelu", "Transpose": "Transpose",
               "L2Loss": "L2Loss (regularisation)", "While": "While loop", "StatelessWhile": "While loop",
               "LoopCond": "While loop"}  # TF1's own while loop (control flow v1: one LoopCond per loop)


@dataclasses.dataclass
class Variable:
    """A trainable variable: its key in the record, name, shape, where the script created it, the creation
    and first-use positions, and its initial values' statistics (as the script itself initialised it)."""

    key: str
    name: str
    shape: list[int]
    dtype: str
    site: str
    created: int
    used: int | None = None
    init: dict[str, float] = dataclasses.field(default_factory=dict)
    scheme: dict | None = None  # how it was initialised, where that can be read (see initialisation)
    layout: str = ""  # a TF1 cell's variables seen in a Keras layer's layout (see layouts), in words

    def label(self) -> str:
        return f"{self.name} {tuple(self.shape)} ({self.site})"


@dataclasses.dataclass
class SideRecord:
    side: str  # tf1 | tf2
    script: str
    status: str = "running"  # ok | crashed | no-step | unpairable | running
    error: str = ""
    traceback: str = ""
    device: str = "CPU"
    notes: list[str] = dataclasses.field(default_factory=list)
    variables: list[Variable] = dataclasses.field(default_factory=list)
    optimizer: dict[str, Any] | None = None  # OptimizerSide as a dict
    optimizer_config: dict[str, Any] | None = None  # a Keras optimizer's serialised form
    losses: list[float] = dataclasses.field(default_factory=list)
    loss_shape: list[int] = dataclasses.field(default_factory=list)
    feeds: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # name, shape, dtype, kind
    reduction_ratio: float | None = None  # loss(batch twice) / loss(batch)
    reduction_note: str = ""
    ops: dict[str, int] | None = None
    ops_note: str = ""
    # each convolution's and pooling's padding, strides, window and output shape, in order (see windows)
    windows: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # the first step's activations (TF1: tensors on the path to the loss; TF2: Keras layer outputs): name, type,
    # site, shape; values in arrays act/<side>/<i> (see activations)
    activations: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    pairing: list[list[str]] = dataclasses.field(default_factory=list)  # TF2 side: (tf1 key, tf2 key, how)
    # each step's train op (TF1: its index among the script's train ops; TF2: its optimizer's, in order of first use)
    step_ops: list[int] = dataclasses.field(default_factory=list)
    # TF1: the steps recorded from one Session.run of train ops that read each other's variables (joint_runs)
    joint: list[list[int]] = dataclasses.field(default_factory=list)
    step_function: str = ""
    inputs: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # TF2: each step input's TF1 feed
    substitution: list[str] = dataclasses.field(default_factory=list)
    dropout: list[dict] = dataclasses.field(default_factory=list)  # each dropout of the first step: rate, how, live
    # --dropout off: the dropout calls replaced by the identity (TF1: in the training step's graph; TF2: in its
    # first step); None: dropout as written
    dropout_replaced: int | None = None
    # the learning rate each step used (None: not read that step), and how the script set it: "constant", a
    # schedule named (see `core.schedules`), "" when not read (TF2's is in `optimizer`'s settings)
    learning_rates: list[float | None] = dataclasses.field(default_factory=list)
    schedule: str = ""
    tfcompare_caused: bool = False  # the failure came from tfcompare's substitution, not from the script
    refused: bool = False  # the failure is the legacy runtime's refusal of a removed API: its message says it all
    seconds: float = 0.0
    repeat: float = 0.0  # TF1: the first loss read twice, relative gap (not 0: random numbers drawn live)
    # TF1: the random numbers the loss draws in the script's own calls (draws.tf1_draws), per draw {kind, site,
    # shape}; each step's values in arrays draw/<step>/<i>, fed to every later read of that step. TF2: how many of
    # its calls took TF1's draw, and its calls that could not (draws.TF2Draws)
    draws: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    draws_given: int = 0
    draws_unmatched: list[str] = dataclasses.field(default_factory=list)
    floor: list[dict] = dataclasses.field(default_factory=list)  # TF1: per step, see noise.measure
    floor_how: str = ""
    floor_note: str = ""  # why there is no floor
    # the non-trainable state a step changes (batch-norm moving statistics, moving averages): per variable
    # {key, name, shape, momentum (a Keras layer's, where it has one)}; values in arrays state/<step>/<key>, the
    # values before the first step in state/init/<key>
    state: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # the step counter (TF1's global step, Keras's optimizer.iterations): its name and whether the learning rate
    # reads it; values in arrays counter/init and counter/<step> (see slots); None: the side keeps none
    counter: dict[str, Any] | None = None
    # what the step does to its gradients before applying them (clipping): see core.gradient_transforms
    gradient_transform: dict[str, Any] = dataclasses.field(default_factory=lambda: {"kind": "none", "value": None,
                                                                                    "source": ""})
    # TF1: the GRU/LSTM cells among the trained variables (layouts.find_cells); TF2: the layout variant each
    # cell was paired in (layouts.RESET_AFTER), by the cell's prefix
    # TF1: the kind of softmax cross-entropy the loss takes ("sparse", "dense", ""), its logits and labels and the
    # regularisation term's value at the first step's start in arrays cause/* (see loss_parts)
    cross_entropy: str = ""
    # TF2: the compared steps replayed as the script runs them, its tf.function traced (see tf2_traced): how many
    # ran, the error that stopped them, or why they were not replayed
    # the first call of the training step: TF1's first Session.run of its train op, TF2's first traced call
    # (trace and run) in the replay; None where not measured
    first_call_s: float | None = None
    # the loss on the first batch in inference mode at the first step's weights and state (inference_mode), how
    # TF1's switches were set, or why it was not read
    eval_loss: float | None = None
    eval_how: str = ""
    eval_note: str = ""
    eval_bools: int = 0  # TF1: the bool placeholders (`is_training`) its inference mode fed False
    traced_steps: int = 0
    traced_at: list[int] = dataclasses.field(default_factory=list)  # the step each traced call is compared at
    traced_error: str = ""
    traced_note: str = ""
    cells: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    layouts: dict[str, str] = dataclasses.field(default_factory=dict)
    # TF2: the first step's sparse gradients (tf.IndexedSlices): variable key -> {slices, repeated} (pair.sparse)
    sparse: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    arrays: dict[str, np.ndarray] = dataclasses.field(default_factory=dict, repr=False)

    @property
    def steps(self) -> int:
        return len(self.losses)

    def var(self, key: str) -> Variable:
        return next(v for v in self.variables if v.key == key)

    def weights(self, kind: str, step: int) -> dict[str, np.ndarray]:
        """kind: init, before, after, grad; step counts from 0."""
        prefix = "init/" if kind == "init" else f"{kind}/{step}/"
        return {k[len(prefix):]: self.arrays[k] for k in self.arrays if k.startswith(prefix)}

    def batch(self, step: int) -> dict[str, np.ndarray]:
        prefix = f"feed/{step}/"
        return {k[len(prefix):]: self.arrays[k] for k in self.arrays if k.startswith(prefix)}


def stats(value: np.ndarray) -> dict[str, float]:
    value = np.asarray(value, dtype=np.float64)
    if value.size == 0:
        return {"mean": 0.0, "std": 0.0, "min": 0.0, "max": 0.0, "size": 0}
    return {"mean": float(value.mean()), "std": float(value.std()), "min": float(value.min()),
            "max": float(value.max()), "size": int(value.size)}


def forward_op_counts(op_types) -> dict[str, int]:
    counts: dict[str, int] = {}
    for t in op_types:
        if t in FORWARD_OPS:
            counts[FORWARD_OPS[t]] = counts.get(FORWARD_OPS[t], 0) + 1
    return counts


def save(record: SideRecord, folder: Path) -> None:
    """`<side>.npz` first, then `<side>.json` (its presence says the record is complete), each written atomically."""
    # streamed into the file: a 20M-parameter model's record is GBs, which a bytes copy held twice over
    write_atomic(folder / f"{record.side}.npz",
                 lambda f: np.savez(f, **{k: np.asarray(v) for k, v in record.arrays.items()}))
    facts = dataclasses.asdict(dataclasses.replace(record, arrays={}))  # asdict deep-copies: not the arrays
    facts.pop("arrays")
    write_atomic(folder / f"{record.side}.json", json.dumps(facts, default=_plain))


def load(folder: Path, side: str) -> SideRecord | None:
    path = folder / f"{side}.json"
    if not path.exists():
        return None
    facts = json.loads(path.read_text())
    facts["variables"] = [Variable(**v) for v in facts["variables"]]
    record = SideRecord(**facts)
    record.arrays = _Arrays(folder / f"{side}.npz")
    return record


class _Arrays(MutableMapping):
    """A saved record's arrays, each read from its file when first asked for: the TF2 child needs TF1's initial
    weights and batches, not the GBs of a wide model's steps, gradients and slots."""

    def __init__(self, path: Path):
        self._file = np.load(path)
        self._keys = dict.fromkeys(self._file.files)
        self._read: dict[str, Any] = {}

    def __getitem__(self, key: str):
        if key not in self._read:
            if key not in self._keys:
                raise KeyError(key)
            self._read[key] = self._file[key]
        return self._read[key]

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None
        self._read[key] = value

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        self._read.pop(key, None)

    def __contains__(self, key) -> bool:
        return key in self._keys

    def __iter__(self):
        return iter(list(self._keys))

    def __len__(self) -> int:
        return len(self._keys)


def save_progress(record: SideRecord, folder: Path) -> None:
    """`<side>.progress.json`: the steps so far, rewritten atomically as the script starts and after each step,
    so that a child killed (interrupt, `os._exit` in the script) still hands over what it saw. Only the light
    facts: the arrays stay for the full record."""
    facts = {"steps": record.steps, "losses": record.losses, "notes": record.notes, "optimizer": record.optimizer,
             "device": record.device}
    write_atomic(folder / f"{record.side}.progress.json", json.dumps(facts, default=_plain))


def load_progress(folder: Path, side: str) -> dict | None:
    """What `save_progress` last wrote, or None when the script never started."""
    try:
        return json.loads((folder / f"{side}.progress.json").read_text())
    except (OSError, ValueError):
        return None


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def sparse_rows(indices) -> dict[str, int]:
    """{slices, repeated}: how many slices a sparse gradient has, and how many of them repeat an earlier row."""
    flat = np.asarray(indices).reshape(-1)
    return {"slices": int(flat.size), "repeated": int(flat.size - np.unique(flat).size)}
