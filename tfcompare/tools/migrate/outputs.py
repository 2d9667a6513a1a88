"""The files `migrate` writes (`--markdown`, `--scaffold`): checked before anything is read, written all or none.

Each must be a new file in a folder that exists: an existing file (or a symbolic link, dangling or not) is never
replaced, and a missing folder is not created. Each is written to a temporary file beside it and hard-linked
into place, which fails if the name appeared meanwhile; if any of them cannot be written, those already written
are removed, so a failed command leaves nothing behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from tfcompare.core.files import shared_permissions
from tfcompare.core.paths import BadPath, check_lengths
from tfcompare.tools.migrate.scaffold import ScaffoldError, check_out, scaffold_text

__all__ = ["OutputError", "check_outputs", "write_outputs", "check_new", "write_new"]


class OutputError(ValueError):
    """An output path that cannot be written, and why; `option` names the option that gave it."""

    def __init__(self, message: str, option: str = ""):
        super().__init__(message)
        self.option = option


def check_new(path: str | Path) -> None:
    """Refuse, before any work is done, a path that exists or whose folder does not."""
    try:
        check_lengths(str(path))  # a 300-character name: `exists` itself would raise
    except BadPath as exc:
        raise OutputError(str(exc)) from None
    path = Path(path)
    if os.path.islink(path):
        raise OutputError(f"{str(path)!r} is a symbolic link (to {os.readlink(path)!r}); it is never written through")
    if path.exists():
        raise OutputError(f"{str(path)!r} exists; it is never overwritten")
    parent = path.parent
    if not parent.is_dir():
        why = "does not exist" if not os.path.lexists(parent) else "is not a folder"
        raise OutputError(f"cannot write {str(path)!r}: its folder {str(parent)!r} {why}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {str(path)!r}: its folder {str(parent)!r} is not writable")


def _write_one(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:100]}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        shared_permissions(tmp)
        os.link(tmp, path)  # fails if `path` appeared since it was checked: never replaces a file
    finally:
        os.unlink(tmp)


def write_new(texts: dict, options: dict | None = None) -> None:
    """Write every `{path: text}` as a new file, or none of them (an `OutputError` naming the path and why, and
    the option from `options` that gave the path)."""
    written = []
    try:
        for path, text in texts.items():
            try:
                _write_one(Path(path), text)
            except OSError as exc:
                raise OutputError(f"cannot write {str(path)!r}: {exc.strerror or exc}",
                                  (options or {}).get(path, "")) from None
            written.append(Path(path))
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise


def check_outputs(paths, markdown_out=None, scaffold_out=None) -> None:
    """Refuse bad `--markdown`/`--scaffold` paths before the scan (which takes seconds) and before anything is
    written."""
    for out, option in ((markdown_out, "--markdown"), (scaffold_out, "--scaffold")):
        if out is not None:
            try:
                check_new(out)
            except OutputError as exc:
                raise OutputError(str(exc), option) from None
    if scaffold_out is not None:
        if len(paths) != 1 or not Path(paths[0]).is_file():
            raise OutputError("give exactly one TF1 file to scaffold from", "--scaffold")
        try:
            check_out(scaffold_out)
        except ScaffoldError as exc:
            raise OutputError(str(exc), "--scaffold") from None
        except Exception as exc:  # a script shape the scaffold does not handle: tfcompare's fault, said so
            raise OutputError(f"tfcompare could not make a scaffold of {str(paths[0])!r} (a tfcompare bug, not "
                              f"the script's): {type(exc).__name__}: {exc}", "--scaffold") from None


def write_outputs(report, paths, markdown_out=None, scaffold_out=None) -> None:
    """Write the Markdown report and the scaffold, both or neither."""
    texts = {}
    if markdown_out is not None:
        texts[markdown_out] = report.markdown()
    if scaffold_out is not None:
        try:
            texts[scaffold_out] = scaffold_text(paths[0], scaffold_out)
        except ScaffoldError as exc:
            raise OutputError(str(exc), "--scaffold") from None
        except Exception as exc:  # a script shape the scaffold does not handle: tfcompare's fault, said so
            raise OutputError(f"tfcompare could not make a scaffold of {str(paths[0])!r} (a tfcompare bug, not "
                              f"the script's): {type(exc).__name__}: {exc}", "--scaffold") from None
    write_new(texts, {markdown_out: "--markdown", scaffold_out: "--scaffold"})
