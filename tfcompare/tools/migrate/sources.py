"""Which files a `migrate` run reads, and reading one of them without trusting what the path names.

A path can name anything: a FIFO (opening it blocks), `/dev/zero` (endless), `/proc/self/mem` (fails on read), a
socket, a 50 MB generated file, bytes that are not text. Only regular files are read, at most `MAX_BYTES` of them,
opened without blocking and checked on the open descriptor (a symlink swapped after a check changes nothing); the
text is decoded as Python decodes it (a `# -*- coding: latin-1 -*-` line is honoured): `core.source_files`, as
every command that reads a user's script reads it. Anything else becomes a
`SourceError` naming the reason, which the scan reports as that one file's `unparsable` finding. A folder that
cannot be listed is reported the same way, never skipped: a CI gate must not pass on a partial scan.
"""

from __future__ import annotations

import ast
import dataclasses
import os
from pathlib import Path

from tfcompare.core import source_files
from tfcompare.core.source_files import SourceError, decode

__all__ = ["MAX_BYTES", "SourceError", "Unreadable", "collect", "decode", "parse", "read_source"]

MAX_BYTES = 1 << 20  # 1 MiB: far above a hand-written script; a larger file is generated code, and costs GBs to parse


@dataclasses.dataclass(frozen=True)
class Unreadable:
    """A folder (or an entry in one) the scan could not look into: reported, never skipped."""

    path: str
    reason: str


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def read_source(path: str | Path) -> bytes:
    """The bytes of a regular file of at most MAX_BYTES; anything else is a `SourceError` (`core.source_files`)."""
    return source_files.read_source(path, MAX_BYTES)


def parse(text: str, filename: str) -> ast.Module:
    """The module's AST; a syntax error, or nesting deeper than Python's parser goes, is a `SourceError`."""
    try:
        return ast.parse(text, filename=filename)
    except SyntaxError as exc:
        raise SourceError(f"syntax error at line {exc.lineno}: {exc.msg}") from None
    except (RecursionError, MemoryError) as exc:
        raise SourceError(f"nested too deeply for Python's parser ({type(exc).__name__})") from None


def _walk(root: Path, files: list[Path], unreadable: list[Unreadable]) -> None:
    """Every `.py` file under `root` (following symbolic links to folders once each), in a stable order."""
    seen: set[str] = set()

    def failed(exc: OSError):
        unreadable.append(Unreadable(exc.filename or str(root), f"cannot list this folder: {_reason(exc)}"))

    for folder, dirs, names in os.walk(root, onerror=failed, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            dirs[:] = []  # a link back up the tree: walked already
            continue
        seen.add(real)
        dirs.sort()
        files += [Path(folder) / n for n in sorted(names) if n.endswith(".py")]


def collect(paths) -> tuple[list[Path], list[Unreadable]]:
    """The files named, and the `.py` files under the folders named, and what could not be listed.

    A path that does not exist is a `SourceError` (a usage error: nothing is scanned); a named path that exists
    but is not a regular file is kept, so that its reading fails as that file's finding."""
    files: list[Path] = []
    unreadable: list[Unreadable] = []
    for raw in paths:
        p = Path(raw)
        if not os.path.lexists(p):
            raise SourceError(f"{str(raw)!r} does not exist")
        try:
            os.stat(p)
        except OSError as exc:  # a dangling or looping symbolic link
            raise SourceError(f"{str(raw)!r} is a symbolic link to {os.readlink(p)!r}: {_reason(exc)}") from None
        if p.is_dir():
            before = len(files) + len(unreadable)
            _walk(p, files, unreadable)
            if len(files) + len(unreadable) == before:
                raise SourceError(f"{str(raw)!r} holds no .py files")
        else:
            files.append(p)
    return list(dict.fromkeys(files)), unreadable
