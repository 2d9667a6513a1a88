"""Writing files that other people and tools read: atomically, readable as the umask allows, no leftovers.

`mkstemp`/`mkdtemp` create private files (600) and folders (700), right for a secret and wrong for a
shared log or export folder, so what is moved into place gets the permissions a plain `open`/`mkdir`
would have given. Temporary folders carry the creating process's id, so a later run can tell the
leftovers of a killed process (whose id is gone) from those of one still writing.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["write_atomic", "shared_permissions", "pid_temp_dir", "remove_dead_temp_dirs", "pid_alive", "claim_folder",
           "FolderTaken"]


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


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write to a temporary file beside `path`, then rename: a reader never sees half a file, and two writers
    never share a temporary name. The file gets the permissions a plain `open` would give."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        shared_permissions(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def pid_temp_dir(parent: Path, stem: str) -> Path:
    """A new hidden folder `.<stem>.tmp-<pid>-<random>` in `parent`."""
    return Path(tempfile.mkdtemp(prefix=f".{stem}.tmp-{os.getpid()}-", dir=parent))


def remove_dead_temp_dirs(parent: Path, stem: str) -> list[Path]:
    """Remove `.<stem>.tmp-<pid>-*` (and `.<stem>.old-<pid>-*`) folders whose process has ended."""
    removed = []
    if not parent.is_dir():
        return removed
    for kind in ("tmp", "old"):
        for path in parent.glob(f".{stem}.{kind}-*"):
            pid = path.name[len(f".{stem}.{kind}-"):].split("-", 1)[0]
            if pid.isdigit() and not pid_alive(int(pid)) and path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
    return removed


class FolderTaken(ValueError):
    """A named output folder exists and holds something: refused rather than mixed or clobbered."""


def claim_folder(parent: Path, name: str | None, default: str, *, overwrite: bool = False,
                 ours: str | None = None) -> Path:
    """Create this run's own folder under `parent`, atomically (`mkdir` fails if another process won).

    With `name` None the folder is `default`, or `default-2`, `default-3`, ... for runs that start in the
    same second. A named folder may exist only if empty; with `overwrite` a non-empty one is replaced,
    but only when it holds the file `ours` (what a previous run of ours wrote), never anything else.
    """
    parent.mkdir(parents=True, exist_ok=True)
    if name is None:
        for n in range(1, 10_000):
            path = parent / (default if n == 1 else f"{default}-{n}")
            try:
                path.mkdir()
                return path
            except FileExistsError:
                continue
        raise FolderTaken(f"no free folder name like {default!r} in {str(parent)!r}")
    path = parent / name
    try:
        path.mkdir()
        return path
    except FileExistsError:
        pass
    if not path.is_dir():
        raise FolderTaken(f"{str(path)!r} exists and is not a folder")
    if not any(path.iterdir()):
        return path
    if not overwrite:
        raise FolderTaken(f"{str(path)!r} already holds a run; choose another name or pass --overwrite")
    if ours is None or not (path / ours).exists():
        raise FolderTaken(f"{str(path)!r} is not empty and holds no {ours}: not a tfcompare run, not replaced")
    shutil.rmtree(path)
    path.mkdir()
    return path
