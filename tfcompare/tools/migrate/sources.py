"""Which files a `migrate` run reads, and reading one of them without trusting what the path names.

A path can name anything: a FIFO (opening it blocks), `/dev/zero` (endless), `/proc/self/mem` (fails on read), a
socket, a 50 MB generated file, bytes that are not text. Only regular files are read, at most `MAX_BYTES` of them,
opened without blocking and checked on the open descriptor (a symlink swapped after a check changes nothing); the
text is decoded as Python decodes it (a `# -*- coding: latin-1 -*-` line is honoured). Anything else becomes a
`SourceError` naming the reason, which the scan reports as that one file's `unparsable` finding. A folder that
cannot be listed is reported the same way, never skipped: a CI gate must not pass on a partial scan.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import os
import stat
import tokenize
from pathlib import Path

__all__ = ["MAX_BYTES", "SourceError", "Unreadable", "collect", "decode", "parse", "read_source"]

MAX_BYTES = 1 << 20  # 1 MiB: far above a hand-written script; a larger file is generated code, and costs GBs to parse

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


class SourceError(ValueError):
    """One path that cannot be read as Python source, and why."""


@dataclasses.dataclass(frozen=True)
class Unreadable:
    """A folder (or an entry in one) the scan could not look into: reported, never skipped."""

    path: str
    reason: str


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _not_regular(mode: int) -> str:
    return f"{_kind(mode)}, not a regular file: only Python source files are read"


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def read_source(path: str | Path) -> bytes:
    """The bytes of a regular file of at most MAX_BYTES; anything else is a `SourceError`."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):  # a socket cannot even be opened
            raise SourceError(_not_regular(mode)) from None
        if os.path.islink(path):
            raise SourceError(f"a symbolic link to {os.readlink(path)!r}, which cannot be opened: "
                              f"{_reason(exc)}") from None
        raise SourceError(f"cannot open: {_reason(exc)}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SourceError(_not_regular(info.st_mode))
        if info.st_size > MAX_BYTES:
            raise SourceError(f"{info.st_size} bytes, more than the {MAX_BYTES} bytes (1 MiB) read per file")
        chunks, size = [], 0
        while size <= MAX_BYTES:  # st_size can lie (/proc files say 0): the bound holds on what is read
            chunk = os.read(fd, MAX_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_BYTES:
            raise SourceError(f"more than the {MAX_BYTES} bytes (1 MiB) read per file")
        return b"".join(chunks)
    except OSError as exc:
        raise SourceError(f"cannot read: {_reason(exc)}") from None
    finally:
        os.close(fd)


def decode(data: bytes) -> str:
    """Text as Python reads it: a BOM or a coding line chooses the encoding, UTF-8 otherwise."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise SourceError(f"not text in its declared encoding (binary?): {exc}") from None
    if "\0" in text:
        raise SourceError("holds NUL bytes: a binary file, not Python source")
    return text


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
