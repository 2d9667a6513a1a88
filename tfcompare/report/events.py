"""TensorBoard event files of scalars and text, written without TensorFlow.

`pair` and `run-tf1` run the user's scripts in their own processes; the command itself only writes what they
recorded. Importing TensorFlow for that costs ~8 s of CPU on a 2-core machine, taken from the two scripts'
own imports running beside it. These are the records `tf.summary.scalar` / `tf.summary.text` write (a float32
or string tensor with the plugin's summary metadata, TensorBoard's own protos), framed as TFRecords by
TensorBoard's pure-Python `RecordWriter`. (TensorBoard's `EventFileWriter` would import TensorFlow for its
file system.) Each file is put in place whole when its writer closes (`write_atomic`), so TensorBoard never
reads half of one and an interrupted command leaves complete files for what finished.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import socket
import time
from pathlib import Path

import numpy as np
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.plugins.scalar import metadata as scalar_metadata
from tensorboard.plugins.text import metadata as text_metadata
from tensorboard.summary.writer.record_writer import RecordWriter
from tensorboard.util import tensor_util

from tfcompare.core.files import write_atomic

__all__ = ["EventWriter", "event_writer", "write_pair", "write_run_tf1"]


_FILES = itertools.count()  # two writers of one process in the same second get two names


class EventWriter:
    """One TensorBoard run's event file: `scalar` and `text` records, put in place by `close` (`event_writer`)."""

    def __init__(self, folder: str | Path):
        self._path = Path(folder) / (f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}."
                                     f"{os.getpid()}.{next(_FILES)}")
        self._buffer = io.BytesIO()
        self._records = RecordWriter(self._buffer)
        self._records.write(event_pb2.Event(wall_time=time.time(), file_version="brain.Event:2").SerializeToString())

    def _add(self, tag: str, tensor, metadata, step: int) -> None:
        value = summary_pb2.Summary.Value(tag=tag, tensor=tensor_util.make_tensor_proto(tensor), metadata=metadata)
        event = event_pb2.Event(wall_time=time.time(), step=int(step), summary=summary_pb2.Summary(value=[value]))
        self._records.write(event.SerializeToString())

    def scalar(self, tag: str, value: float, step: int) -> None:
        self._add(tag, np.float32(value), scalar_metadata.create_summary_metadata(display_name=tag, description=""),
                  step)

    def text(self, tag: str, text: str, step: int) -> None:
        self._add(tag, np.array(text.encode("utf-8"), dtype=object),
                  text_metadata.create_summary_metadata(display_name=tag, description=""), step)

    def close(self) -> None:
        write_atomic(self._path, self._buffer.getvalue(), exclusive=True)


@contextlib.contextmanager
def event_writer(folder: str | Path):
    """An `EventWriter` whose file is put in place when the block ends, however it ends: an interrupted command
    leaves complete event files for what it wrote."""
    writer = EventWriter(folder)
    try:
        yield writer
    finally:
        writer.close()


def write_pair(logdir: str | Path, steps: list[dict], lines: list[str], timing: dict | None = None) -> None:
    """`tfcompare pair`: each side's loss per step (runs tf1 and tf2, one chart), the errors per step with TF1's
    noise floor beside them, each side's step time and TF2's speed-up with its interval, the text."""
    logdir = Path(logdir)
    for side in ("tf1", "tf2"):
        with event_writer(logdir / side) as writer:
            for s in steps:
                writer.scalar("pair/loss", s[f"loss_{side}"], step=s["step"])
            if timing and timing.get("timed"):
                writer.scalar("pair/step_time_ms", timing[side]["median_s"] * 1e3, step=0)
    with event_writer(logdir) as writer:
        for s in steps:  # each error, and TF1's own noise floor beside it (absent where none was measured)
            for key, value in s.items():
                if key.endswith(("_err", "_floor")) and isinstance(value, (int, float)):
                    writer.scalar(f"pair/{key}", value, step=s["step"])
        if timing and timing.get("speedup"):  # TF1's time / TF2's: > 1 is faster
            for end in ("estimate", "low", "high"):
                writer.scalar(f"pair/speedup_{end}", timing["speedup"][end], step=0)
        writer.text("pair/report", "\n".join(f"    {line}" for line in lines), step=0)


def write_run_tf1(logdir: str | Path, losses: list[float], lines: list[str]) -> None:
    """`tfcompare run-tf1`: the loss of each observed training step, and the text."""
    with event_writer(logdir) as writer:
        for step, loss in enumerate(losses, 1):
            writer.scalar("run-tf1/loss", loss, step=step)
        writer.text("run-tf1/report", "\n".join(f"    {line}" for line in lines), step=0)
