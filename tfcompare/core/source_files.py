"""A user's Python source file, read without trusting what the path names, and decoded as Python decodes it.

A path can name anything: a FIFO (opening it for reading blocks until a writer comes), `/dev/zero` (endless), a
socket, a folder, a 5 GB generated file. `check_script` says so from `os.stat` alone, before anything is opened or
run; `read_source` opens without blocking and checks again on the open descriptor (a path swapped after the
check changes nothing), and reads at most the cap even where `st_size` lies (/proc). `decode` honours a BOM or a
PEP 263 coding line (`# -*- coding: latin-1 -*-`), as the interpreter does, UTF-8 otherwise.
"""

from __future__ import annotations

import io
import os
import stat
import tokenize
from pathlib import Path

__all__ = ["MAX_SCRIPT_BYTES", "SourceError", "check_script", "read_source", "decode", "read_script"]

MAX_SCRIPT_BYTES = 10 << 20  # 10 MiB: far above a training script; a larger file is data or generated code

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


class SourceError(ValueError):
    """A path that cannot be read as Python source, and why (the caller names the path)."""


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit % (1 << 20) == 0 else f"{limit} bytes"


def _not_regular(mode: int) -> str:
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return f"{kind}, not a regular file: only Python source files are read"


def _too_big(size: int | None, limit: int) -> str:
    return (f"{size} bytes, " if size is not None else "") + f"more than the {limit} bytes ({_size(limit)}) read per file"


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def check_script(path: str | Path, max_bytes: int = MAX_SCRIPT_BYTES) -> None:
    """Raise `SourceError` unless `path` is (or links to) a readable regular file of at most `max_bytes`; nothing
    is opened. The message is a predicate of the path: "'x.py' " + message reads as a sentence."""
    try:
        info = os.stat(path)
    except OSError as exc:
        if os.path.islink(path):
            raise SourceError(f"is a symbolic link to {os.readlink(path)!r}, which cannot be followed: "
                              f"{_reason(exc)}") from None
        raise SourceError("does not exist" if isinstance(exc, FileNotFoundError) else
                          f"cannot be read: {_reason(exc)}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else \
            next((name for test, name in _KINDS if test(info.st_mode)), "something else")
        raise SourceError(f"is {kind}, not a regular file: a script is read as Python source")
    if info.st_size > max_bytes:
        raise SourceError(f"is {info.st_size} bytes, more than the {max_bytes} bytes ({_size(max_bytes)}) a script "
                          "may have")
    if not os.access(path, os.R_OK):
        raise SourceError("cannot be read: permission denied")


def read_source(path: str | Path, max_bytes: int = MAX_SCRIPT_BYTES) -> bytes:
    """The bytes of a regular file of at most `max_bytes`; anything else is a `SourceError`."""
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
        if info.st_size > max_bytes:
            raise SourceError(_too_big(info.st_size, max_bytes))
        chunks, size = [], 0
        while size <= max_bytes:  # st_size can lie (/proc files say 0): the bound holds on what is read
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:
            raise SourceError(_too_big(None, max_bytes))
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
    return text.removeprefix("\ufeff")


def read_script(path: str | Path, max_bytes: int = MAX_SCRIPT_BYTES) -> str:
    """The source text of the script at `path` (`read_source`, then `decode`), line ends as Python reads them."""
    return decode(read_source(path, max_bytes)).replace("\r\n", "\n").replace("\r", "\n")
