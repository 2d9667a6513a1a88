"""Folders a user names on the command line, checked once before any work: the error names the path and why.

Every way a typed path can fail later, deep inside a run or in TensorBoard's writer, is found here instead:
an empty name, a name longer than the file system allows, a symbolic link that points nowhere or loops, a
file where a folder must be, a folder that cannot be written (or, for one that is read, that does not exist).
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

__all__ = ["BadPath", "output_folder", "input_folder", "new_file", "check_lengths"]


class BadPath(ValueError):
    """A folder the user named cannot be used; the message names it and says why."""


def _limit(path: str, name: str, default: int) -> int:
    try:
        return os.pathconf(path, name)
    except (OSError, ValueError):
        return default


def _lengths(value: str, path: Path) -> None:
    anchor = os.getcwd()  # before touching `path`: a name too long makes even `is_dir` raise
    name_max, path_max = _limit(anchor, "PC_NAME_MAX", 255), _limit(anchor, "PC_PATH_MAX", 4096)
    for part in path.parts:
        size = len(os.fsencode(part))
        if size > name_max:
            raise BadPath(f"{value[:60]!r}...: the name {part[:30]!r}... is {size} bytes; a file or folder name has "
                          f"at most {name_max} on this file system")
    size = len(os.fsencode(str(path)))
    if size > path_max:
        raise BadPath(f"{value[:60]!r}... is {size} bytes as a full path; at most {path_max} on this file system")


def check_lengths(value: str) -> Path:
    """The absolute path `value` names, after `BadPath` for a name longer than the file system allows (asking the
    file system about it raises, a traceback later) or a NUL; for a command with checks of its own."""
    if "\0" in value:
        raise BadPath(f"{value!r} holds a NUL character, which no file name can")
    path = Path(os.path.abspath(value))
    _lengths(value, path)
    return path


def _shown(value: str, step: Path) -> str:
    """`step` as the user would write it: relative when they typed a relative path."""
    return repr(str(step) if os.path.isabs(value) else os.path.relpath(step))


def _existing(value: str, path: Path, doing: str) -> Path:
    """The deepest folder of `path` that exists, after checking every existing step is a usable folder."""
    found = None
    for step in [*reversed(path.parents), path]:
        if not os.path.lexists(step):
            break
        head = f"cannot {doing} {value!r}: " if _shown(value, step) != repr(value) else ""
        if step.is_symlink() and not step.exists():
            try:
                os.stat(step)
                why = "cannot be followed"
            except OSError as exc:
                why = ("loops (it leads back to itself)" if exc.errno == errno.ELOOP else
                       f"points to {os.readlink(step)!r}, which does not exist")
            raise BadPath(f"{head}{_shown(value, step)} is a symbolic link that {why}")
        if not step.is_dir():
            raise BadPath(f"{head}{_shown(value, step)} is a file, not a folder")
        found = step
    return found or Path(path.anchor or "/")


def _checked(value: str) -> Path:
    if not value.strip():
        raise BadPath("the folder name is empty; give a folder, e.g. logs")
    return check_lengths(value)


def output_folder(value: str) -> Path:
    """The absolute folder `value` names, where a command will write (created later, only if it runs)."""
    path = _checked(value)
    existing = _existing(value, path, "write to")
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".tfcompare-write-test-"):
            pass
    except OSError as exc:
        raise BadPath(f"cannot write to {value!r}: {str(existing)!r}: {exc.strerror or exc}") from None
    return path


def input_folder(value: str) -> Path:
    """The absolute folder `value` names, which a command will read: it must exist and be readable."""
    path = _checked(value)
    existing = _existing(value, path, "read")
    if existing != path:
        raise BadPath(f"{value!r} does not exist" + ("" if existing == path.parent else
                                                     f" (the deepest folder of it that does is {str(existing)!r})"))
    if not os.access(path, os.R_OK | os.X_OK):
        raise BadPath(f"{value!r} cannot be read: permission denied")
    return path


def new_file(value: str, *, replace: bool = False) -> Path:
    """The absolute path of a file a command will create: never an existing link (a dangling link would be written
    through, or fail after the work), nor an existing file unless `replace` (`--force`), and then only a regular
    file; its folder must exist and a file must be creatable in it (tried: /proc and a read-only mount say yes to
    `os.access`)."""
    if not value.strip():
        raise BadPath("the file name is empty; give a file, e.g. new.py")
    path = _checked(value)
    if os.path.lexists(path):
        link = f" (a symbolic link to {os.readlink(path)!r})" if path.is_symlink() else ""
        if link and replace:
            raise BadPath(f"{value!r} is a symbolic link (to {os.readlink(path)!r}); tfcompare never writes through "
                          "or replaces a link: name the file itself")
        if not replace:
            raise BadPath(f"{value!r} exists{link}; tfcompare does not overwrite it (choose another name)")
        if not path.is_file():
            raise BadPath(f"{value!r} exists and is not a regular file; only a file is replaced")
    if _existing(value, path.parent, "write") != path.parent:
        raise BadPath(f"the folder {str(path.parent)!r} does not exist")
    if not os.access(path.parent, os.W_OK):
        raise BadPath(f"the folder {str(path.parent)!r} is not writable")
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tfcompare-write-test-"):
            pass
    except OSError as exc:
        raise BadPath(f"cannot write {value!r}: the folder {str(path.parent)!r}: {exc.strerror or exc}") from None
    return path
