"""What a script child prints, as the parent keeps it: only the last `OUTPUT_TAIL_BYTES`, whatever it prints.

The child writes into a pipe; a thread of the parent reads it to its end and keeps a bounded tail in memory,
written to FOLDER/SIDE.out when the child's tree is done. A script that prints a gigabyte costs a pipe's worth of
reading and 64 KB to keep (it once went to a file the parent then read whole). The tail is what a failure shows.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["OUTPUT_TAIL_BYTES", "Tail", "output_tail"]

OUTPUT_TAIL_BYTES = 64 * 1024  # the most of a child's output kept: room for a long traceback
_CHUNK = 64 * 1024
_NOISE = ("WARNING: All log messages", "I0000 ", "E0000 ", "W0000 ")  # TensorFlow's start-up lines


class Tail:
    """Reads a child's output pipe (`fd`, the read end) on a thread and keeps its last `OUTPUT_TAIL_BYTES`;
    `finish` writes them to `path` (created empty at once: the child has started)."""

    def __init__(self, fd: int, path: Path, name: str):
        self._fd, self._path = fd, path
        self._kept = bytearray()
        self.total = 0  # bytes the child printed
        path.write_bytes(b"")
        self._thread = threading.Thread(target=self._read, name=f"tfcompare: {name} output", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._fd, _CHUNK)
            except InterruptedError:
                continue
            except OSError:
                return
            if not chunk:  # every process that held the pipe has ended
                return
            self.total += len(chunk)
            self._kept += chunk
            if len(self._kept) > 2 * OUTPUT_TAIL_BYTES:  # trimmed in batches: amortised, not per chunk
                del self._kept[:-OUTPUT_TAIL_BYTES]

    def finish(self, timeout_s: float = 5.0) -> None:
        """After the child's tree is killed: read to the end, keep the tail in `path`. A pipe still held open
        (by nothing tfcompare started) is left to the daemon thread, never closed under it."""
        self._thread.join(timeout_s)
        self._path.write_bytes(bytes(self._kept[-OUTPUT_TAIL_BYTES:]))
        if not self._thread.is_alive():
            os.close(self._fd)


def output_tail(folder: Path, side: str, lines: int = 15) -> str:
    """The last `lines` lines a side printed (at most `OUTPUT_TAIL_BYTES`), without TensorFlow's start-up lines."""
    path = folder / f"{side}.out"
    if not path.exists():
        return ""
    with open(path, "rb") as f:
        cut = max(0, path.stat().st_size - OUTPUT_TAIL_BYTES)
        f.seek(cut)
        data = f.read(OUTPUT_TAIL_BYTES)
    if cut and b"\n" in data:  # whole lines only
        data = data[data.index(b"\n") + 1:]
    text = data.decode(errors="replace").splitlines()
    keep = [t for t in text if not t.startswith(_NOISE)]
    return "\n".join(keep[-lines:])
