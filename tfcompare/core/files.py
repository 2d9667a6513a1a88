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

__all__ = ["shared_permissions", "pid_temp_dir", "remove_dead_temp_dirs", "pid_alive"]


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
