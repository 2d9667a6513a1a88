"""A proof's working folder: the script's folder as it was when the command started, in which what a child writes
stays its own.

A pair runs both scripts at once from the same folder; each writes what its author's script writes there
(checkpoints, logs, vocabularies). Run in place, the TF2 side read the checkpoint the TF1 side had just saved (a
difference tfcompare made, reported as the script's), and a proof's three steps saved over the checkpoint the
team had trained. Each child of a proof (`pair`'s sides, `convert`'s reading of the TF1 graph, its run of the
rewrite on its own) runs instead in a copy made of links: the script's folders made again, each file a link to
the original, and the entries beside it up to `LEVELS` folders above linked too (`../data` reads what it read).
A new file, or one replaced by renaming over it (TensorFlow's checkpoints and `checkpoint` file), lands in the
copy; deleting removes a link. Only a file opened in place and written through its link is the original's, as
when the script runs. A folder past `_MIRRORED` entries (a dataset's) is linked whole, not made again.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["LEVELS", "working_copy"]

LEVELS = 3  # `../`, `../../` and `../../../` beside the script read what they read there
_MIRRORED = 5000  # links made inside the script's folders, at most: a folder past it is linked whole


def working_copy(script_dir: Path, within: Path, side: str) -> Path:
    """A new folder in WITHIN made to read as SCRIPT_DIR (and the folders above it) reads; returns the folder to run
    SIDE's child in."""
    script_dir = Path(os.path.realpath(script_dir))
    into = Path(os.path.realpath(tempfile.mkdtemp(prefix=f"{side}-work-", dir=within)))
    chain = [script_dir]  # the script's folder, then the folders above it, up to LEVELS of them (none that is huge)
    listed = []  # the entries of each folder above it
    while len(chain) <= LEVELS and chain[-1].parent != chain[-1]:
        entries = _entries(chain[-1].parent)
        if len(entries) > _MIRRORED:
            break
        chain.append(chain[-1].parent)
        listed.append(entries)
    here = into
    for entries, below in zip(reversed(listed), reversed(chain[:-1])):  # each folder above: its other entries
        for entry in entries:
            if entry.name != below.name and not _holds(entry.path, into):
                _link(entry.path, here / entry.name)
        here = here / below.name
        here.mkdir()
    if not listed and script_dir.name:  # no folder above it listed: still the script folder's own name
        here = here / script_dir.name
        here.mkdir()
    _fill(_entries(script_dir), here, [_MIRRORED], into)
    return here


def _entries(folder: Path) -> list:
    try:
        return list(os.scandir(folder))
    except OSError:  # unreadable: nothing to link from it
        return []


def _holds(path: str, into: Path) -> bool:
    """Whether PATH is the copy or a folder holding it (a script in the temporary folder): never linked nor copied,
    so nothing that walks the copy walks into it again."""
    real = Path(os.path.realpath(path))
    return real == into or real in into.parents


def _link(target: str, at: Path) -> None:
    try:
        os.symlink(target, at)
    except OSError:  # a name this file system refuses, or a race with the folder changing: that entry is absent
        pass


def _fill(entries: list, at: Path, budget: list, into: Path) -> None:
    """AT made to hold ENTRIES: a real folder made again (its entries the same way) while its entries fit in the
    `budget` of links left, anything else (a file, a link, a folder past the budget: a dataset's) a link to the
    original."""
    for entry in entries:
        if _holds(entry.path, into):
            continue
        if entry.is_dir(follow_symlinks=False):
            inner = _entries(Path(entry.path))
            if len(inner) < budget[0]:
                budget[0] -= len(inner)
                try:
                    (at / entry.name).mkdir()
                except OSError:
                    continue
                _fill(inner, at / entry.name, budget, into)
                continue
        _link(entry.path, at / entry.name)
