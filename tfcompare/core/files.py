"""Writing files that other people and tools read: atomically, readable as the umask allows, no leftovers.

`mkstemp`/`mkdtemp` create private files (600) and folders (700), right for a secret and wrong for a
shared log or export folder, so what is moved into place gets the permissions a plain `open`/`mkdir`
would have given. Temporary folders carry the creating process's id, so a later run can tell the
leftovers of a killed process (whose id is gone) from those of one still writing.
"""

from __future__ import annotations

import atexit
import datetime
import errno
import glob
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable

__all__ = ["default_run_name", "write_atomic", "shared_permissions", "pid_temp_dir", "remove_dead_temp_dirs",
           "pid_alive", "claim_folder",
           "FolderTaken", "RUN_MARKER", "TEMP_MARKER", "private_tempdir",
           "check_claimable", "process_stamp", "stamp_alive"]

RUN_MARKER = ".tfcompare-run"  # in every folder claim_folder makes: --overwrite replaces only a folder that has it
TEMP_MARKER = ".tfcompare-temp"  # in every temporary folder: "<pid> <start time>" of the process that made it
_MKDTEMP_SUFFIX = re.compile(r"[a-z0-9_]{8}")


def default_run_name() -> str:
    """A run folder's default name: the local time it started, to the second (`claim_folder` adds a suffix on a
    clash)."""
    return datetime.datetime.now().strftime("%Y%m%d-%H%M%S")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def shared_permissions(path: str | Path) -> None:
    """Give `path` (and, for a folder, everything in it) the mode `open`/`mkdir` would: 666/777 less the umask."""
    mask = _umask()
    path = Path(path)
    items = [path] + (list(path.rglob("*")) if path.is_dir() else [])
    for p in items:
        os.chmod(p, (0o777 if p.is_dir() else 0o666) & ~mask)


def _link_new(tmp: str, path: Path, data: str | bytes) -> None:
    """Put `tmp` in place as `path` only if `path` does not exist; where the file system has no hard links, an
    exclusive create (O_EXCL) of `path` and a write of `data` into it, which is never half a replacement."""
    try:
        os.link(tmp, path)
        return
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    with os.fdopen(fd, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


def write_atomic(path: str | Path, data: str | bytes | Callable[[BinaryIO], None], *, exclusive: bool = False,
                 file_only: bool = False) -> Path:
    """Write to a temporary file beside `path`, then rename: a reader never sees half a file, and two writers
    never share a temporary name. The file gets the permissions a plain `open` would give; text is UTF-8. `data`
    may be a function that writes into the open temporary file (a record's arrays, GBs that are not held in memory
    a second time as bytes); not with `exclusive`, whose fallback writes the data again.

    `exclusive`: `path` must not exist at the moment it is put in place (a hard link, which fails if the name
    appeared since any check: `FileExistsError`), so a file saved there meanwhile is never replaced.
    `file_only`: what is replaced must be a regular file, looked at just before the rename; a link or anything
    else is `FileExistsError`. A rename never follows a link either way: nothing is written through one."""
    path = Path(path)
    if exclusive and callable(data):
        raise ValueError("write_atomic: exclusive needs the data itself, not a function that writes it")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:100]}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            if callable(data):
                data(f)
            else:
                f.write(data.encode("utf-8") if isinstance(data, str) else data)
        shared_permissions(tmp)
        if exclusive:
            _link_new(tmp, path, data)
            os.unlink(tmp)
        else:
            if file_only and os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
                kind = "a symbolic link" if os.path.islink(path) else "not a regular file"
                raise FileExistsError(errno.EEXIST, f"{kind}: only a regular file is replaced", str(path))
            os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot (Linux), "" elsewhere: with the pid, it names one
    process, so a pid the system has since given to another process is not mistaken for the owner."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat[stat.rindex(")") + 2:].split()[19]


def process_stamp(pid: int | None = None) -> str:
    """"<pid> <start time>": one process, even after its pid is given to another (see `pid_alive`)."""
    pid = os.getpid() if pid is None else pid
    return f"{pid} {_start_time(pid)}"


def stamp_alive(stamp: str) -> bool:
    """Whether the process a `process_stamp` names still runs."""
    pid, _, start = stamp.strip().partition(" ")
    return not pid.isdigit() or pid_alive(int(pid), start)


def pid_alive(pid: int, start: str = "") -> bool:
    """Whether process `pid` runs (and, when `start` is given and known, is the same process that started then)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        pass
    now = _start_time(pid) if start else ""
    return not (start and now and now != start)


def pid_temp_dir(parent: Path, prefix: str) -> Path:
    """A new folder `<prefix><pid>-<random>` in `parent` holding the marker that names its owner (this process),
    so `remove_dead_temp_dirs` later removes it only once that process has ended, and never a folder of the
    user's that happens to have a similar name."""
    path = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))
    (path / TEMP_MARKER).write_text(process_stamp() + "\n")
    return path


def _owner(path: Path, pid: int) -> str | None:
    """The start time the folder's marker records for `pid` ("" when unknown), or None when it is not ours."""
    try:
        info = path.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return None
        if not (path / TEMP_MARKER).is_file():  # killed between mkdtemp and the marker: only an empty folder
            return "" if _MKDTEMP_SUFFIX.fullmatch(path.name.rsplit("-", 1)[-1]) and not any(path.iterdir()) \
                else None
        owner, _, start = (path / TEMP_MARKER).read_text().strip().partition(" ")
    except OSError:
        return None
    return start if owner == str(pid) else None


def remove_dead_temp_dirs(parent: Path, prefix: str) -> list[Path]:
    """Remove the `<prefix><pid>-*` folders that `pid_temp_dir` made for a process that has ended.

    Only folders of this user that carry the marker naming that pid are touched (and an empty folder named
    exactly as `mkdtemp` names them, left by a process killed before it wrote the marker).
    """
    removed = []
    try:
        candidates = list(Path(parent).glob(f"{glob.escape(prefix)}*"))
    except OSError:
        return removed
    for path in candidates:
        pid = path.name[len(prefix):].split("-", 1)[0]
        if not pid.isdigit():
            continue
        start = _owner(path, int(pid))
        if start is None or pid_alive(int(pid), start):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def private_tempdir(prefix: str = "tfcompare-") -> Callable[[], None]:
    """Send this process's temporary files, and its children's (`TMPDIR`), into a folder of its own, made with
    `pid_temp_dir` after removing the folders of tfcompare processes that were killed; returns the function that
    removes it (also run at exit). AutoGraph's generated files, worker specs and a pair's records go there, so
    a kill leaves one folder that the next tfcompare removes. For the command line only: a library call must
    not change the temporary folder of the program that imported it."""
    parent = Path(tempfile.gettempdir())
    remove_dead_temp_dirs(parent, prefix)
    path = pid_temp_dir(parent, prefix)
    tempfile.tempdir, os.environ["TMPDIR"] = str(path), str(path)

    def remove() -> None:
        shutil.rmtree(path, ignore_errors=True)
    atexit.register(remove)
    return remove


class FolderTaken(ValueError):
    """A named output folder exists and holds something: refused rather than mixed or clobbered."""


def _write_marker(path: Path) -> Path:
    (path / RUN_MARKER).write_text("written by tfcompare: `--overwrite` may replace this folder\n")
    return path


def _refusal(path: Path, overwrite: bool) -> str | None:
    """Why the existing `path` cannot be this run's folder, or None."""
    if path.is_symlink():
        return (f"{str(path)!r} is a symbolic link (to {os.readlink(path)!r}); a run folder is never written or "
                "replaced through a link: choose another name")
    if not path.is_dir():
        return f"{str(path)!r} exists and is not a folder"
    if not any(path.iterdir()):
        return None
    if not overwrite:
        return f"{str(path)!r} already holds a run; choose another name"
    if not (path / RUN_MARKER).is_file():
        return (f"{str(path)!r} is not empty and has no {RUN_MARKER} file: not a folder tfcompare made, not replaced; "
                "choose another name")
    return None


def check_claimable(parent: Path, name: str | None, *, overwrite: bool = False) -> None:
    """Raise `FolderTaken` now when `claim_folder` would, for a command that first runs for a while."""
    if name is not None and os.path.lexists(parent / name):
        why = _refusal(parent / name, overwrite)
        if why:
            raise FolderTaken(why)


def claim_folder(parent: Path, name: str | None, default: str, *, overwrite: bool = False) -> Path:
    """Create this run's own folder under `parent`, atomically (`mkdir` fails if another process won), and mark
    it as tfcompare's (`RUN_MARKER`).

    With `name` None the folder is `default`, or `default-2`, `default-3`, ... for runs that start in the
    same second. A named folder may exist only if empty; with `overwrite` a non-empty one is replaced,
    but only when it carries the marker (a previous run of ours wrote it), never anything else, and never
    through a symbolic link.
    """
    parent.mkdir(parents=True, exist_ok=True)
    if name is None:
        for n in range(1, 10_000):
            path = parent / (default if n == 1 else f"{default}-{n}")
            try:
                path.mkdir()
                return _write_marker(path)
            except FileExistsError:
                continue
        raise FolderTaken(f"no free folder name like {default!r} in {str(parent)!r}")
    path = parent / name
    remove_dead_temp_dirs(parent, f".{name}.old-")  # what a run killed while replacing this folder left
    try:
        path.mkdir()
        return _write_marker(path)
    except FileExistsError:
        pass
    why = _refusal(path, overwrite)
    if why:
        raise FolderTaken(why)
    if not any(path.iterdir()):
        return _write_marker(path)
    old = pid_temp_dir(parent, f".{name}.old-")  # moved aside first: a kill mid-delete leaves no half folder
    os.replace(path, old / "replaced")
    path.mkdir()
    shutil.rmtree(old, ignore_errors=True)
    return _write_marker(path)
