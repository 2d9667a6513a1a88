"""What `--dump DIR` and `--debugger-v2` write: Grappler's graph after each pass for the graph modes (the forward
output, the loss and the step, so whatever the bisection found is in it), XLA's HLO before and after its
optimisations for the XLA modes, and a Debugger V2 dump that TensorBoard reads."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import tensorflow as tf
from google.protobuf import text_format

from tfcompare.core.cases import Case
from tfcompare.core.files import write_atomic
from tfcompare.core.modes import MODES
from tfcompare.tools.debug.grappler import per_pass_graphs

__all__ = ["check_folder", "write", "debugger_v2"]


def check_folder(path: Path) -> Path:
    """A dump folder must be new or empty, and writable: dumps never mix with other files."""
    path = Path(path).absolute()
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise ValueError(f"dump folder {str(path)!r} is not empty (or not a folder); give a new or empty one")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".tfcompare-write-check"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ValueError(f"dump folder {str(path)!r} is not writable: {exc.strerror or exc}") from None
    return path


def _graphs(folder: Path, stages) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for i, (stage, graph_def) in enumerate(stages):
        name = folder / f"{i:02d}-{'as-built' if stage == 'original' else 'after-' + stage}.pbtxt"
        write_atomic(name, text_format.MessageToString(graph_def).encode())
        files.append(str(name))
    return files


def write(root: Path, runners: dict, case: Case, batch: dict) -> dict[str, list[str]]:
    """Per mode: Grappler's per-pass graphs (tf1-graph, tf2-function) or XLA's HLO (tf2-xla)."""
    out = {}
    for mode, runner in runners.items():
        options = MODES[mode]
        if mode == "tf1-graph":
            parts = runner.parts
            # everything the comparison and the bisection look at survives Grappler's pruning: the forward output
            # (which the step may not use), the loss and the step
            out[mode] = _graphs(root / mode / "grappler", per_pass_graphs(
                runner.graph, [parts.train_op, parts.loss, parts.output], list(parts.inputs.values())))
        elif options.jit_compile:
            folder = root / mode / "xla"
            folder.mkdir(parents=True, exist_ok=True)
            out[mode] = []
            for stage in ("hlo", "optimized_hlo"):
                write_atomic(folder / f"{stage}.txt", runner.hlo(batch, stage).encode())
                out[mode].append(str(folder / f"{stage}.txt"))
        elif options.traced:
            tensors = {k: tf.constant(v) for k, v in case.tf2_inputs(batch).items()}
            model = runner.model

            def forward_and_step(inputs):  # one graph with the forward output the comparison reads, and the step
                return model(inputs), model.train_step(inputs)

            concrete = tf.function(forward_and_step).get_concrete_function(tensors)
            out[mode] = _graphs(root / mode / "grappler", per_pass_graphs(
                concrete.graph, [t for t in concrete.outputs if t is not None], concrete.inputs))
    return out


def debugger_v2(root: Path, run: Callable[[], object]) -> str:
    """Run the TF2 modes' steps with Debugger V2 dumping into `root` (full tensor health, every execution)."""
    root = Path(root).absolute()
    tf.debugging.experimental.enable_dump_debug_info(str(root), tensor_debug_mode="FULL_HEALTH",
                                                     circular_buffer_size=-1)
    try:
        run()
    finally:
        tf.debugging.experimental.disable_dump_debug_info()
    return str(root)
