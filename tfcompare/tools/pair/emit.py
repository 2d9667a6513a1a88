"""`tfcompare pair --emit-case OUT.py`: a cases file that puts an agreeing pair into `tfcompare run`."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["check_target", "emit"]


def check_target(path: Path) -> None:
    """Refuse before anything runs: an existing file (never overwritten), a folder that is missing or read-only,
    a name that is not a Python file."""
    if path.suffix != ".py":
        raise ValueError(f"{str(path)!r} must be a .py file (tfcompare run --cases-file imports it)")
    if path.exists():
        raise ValueError(f"{str(path)!r} exists; tfcompare does not overwrite it (choose another name)")
    parent = path.absolute().parent
    if not parent.is_dir():
        raise ValueError(f"the folder {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK):
        raise ValueError(f"the folder {str(parent)!r} is not writable")


def emit(path: Path, result) -> None:
    raise NotImplementedError
