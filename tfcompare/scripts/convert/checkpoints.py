"""`tfcompare convert-checkpoint`: the checkpoint a TF1 script's `tf.train.Saver` wrote, as a TF2 checkpoint of
the rewrite `convert` wrote from that script, proven variable by variable.

The rewrite carries the name map (`Model.restore_tf1_checkpoint`, see `tf1_checkpoint`); a child
(`checkpoint_child`) runs the rewrite's setup only (what is above `model = Model()`), loads the TF1 checkpoint
with that method, writes `tf.train.Checkpoint(model=model)` to OUT, reads OUT back into a fresh model and checks
every mapped variable against TF1's tensor, bit for bit. OUT appears only when the proof holds. Paths are checked
before anything runs; an existing OUT is refused unless asked.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import shutil
from pathlib import Path

from tfcompare.core.results import json_text
from tfcompare.scripts.child.processes import OverLimit, ended_text, pair_folder, run_child
from tfcompare.core.parsing import parse

__all__ = ["CheckpointResult", "check_checkpoint_paths", "convert_checkpoint", "CONVERTED", "DIFFERS"]

CONVERTED, DIFFERS = "converted", "differs"


@dataclasses.dataclass
class CheckpointResult:
    new_script: str
    tf1_checkpoint: str
    output: str
    status: str = "failed"  # converted | differs | script-failed | failed
    error: str = ""
    loaded: list[str] = dataclasses.field(default_factory=list)
    left: list[dict] = dataclasses.field(default_factory=list)
    checked: int = 0
    differs: list[dict] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    reader: str = ""  # the rewrite's function that read OUT back (restore_checkpoint), or "": the model alone

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    def json_text(self) -> str:
        return json_text(self.to_json())

    def lines(self) -> list[str]:
        head = f"convert-checkpoint {self.tf1_checkpoint} (TF1 Saver) -> {self.output} (TF2, {self.new_script}'s model)"
        out = [head]
        if self.status in ("failed", "script-failed"):
            who = "the rewrite's own code failed" if self.status == "script-failed" else "could not convert"
            return out + [f"{who}: {self.error}", "nothing written"]
        out.append(f"loaded {len(self.loaded)} TF1 variable(s) by name: {', '.join(self.loaded)}")
        if self.left:
            out.append(f"left in the TF1 checkpoint ({len(self.left)}):")
            out += [f"  {x['name']}: {x['why']}" for x in self.left]
        if self.differs:
            out += [f"  {d['name']} -> {d['read_as']}: differs (max abs {d['max_abs']})" for d in self.differs]
            return out + [f"DIFFERS: {len(self.differs)} of {self.checked} read back unlike TF1's; nothing written"]
        out += [f"note: {n}" for n in self.notes]
        how, load = (f"by the rewrite's {self.reader}(), as strictly as it reads its own checkpoints,", self.reader) \
            if self.reader else ("into a fresh model", "tf.train.Checkpoint(model=model).read")
        return out + [f"CONVERTED: {self.checked} variable(s) read back from {self.output} {how} equal TF1's bit for "
                      f"bit; load it with {load}({self.output!r})"]


def _tf1_checkpoint_exists(path: Path) -> bool:
    return (path.is_dir() and (path / "checkpoint").is_file()) or Path(f"{path}.index").is_file()


def check_checkpoint_paths(new: Path, tf1: Path, out: Path, force: bool) -> None:
    """Usage errors, before anything runs: ValueError naming the bad value."""
    try:
        tree = parse(new.read_text(encoding="utf-8"), str(new))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{new} cannot be read as Python: {exc}") from None
    if not any(isinstance(n, ast.FunctionDef) and n.name == "restore_tf1_checkpoint" for n in ast.walk(tree)):
        raise ValueError(f"{new} has no Model.restore_tf1_checkpoint: it is not a rewrite `tfcompare convert` "
                         "wrote (or one from before it wrote the method); convert the TF1 script again")
    if not _tf1_checkpoint_exists(tf1):
        raise ValueError(f"{tf1} is not a TF1 checkpoint: neither a folder with a `checkpoint` file nor a prefix "
                         f"with {tf1.name}.index beside it")
    written = [p for p in (Path(f"{out}.index"), out.parent / f"{out.name}.data-00000-of-00001") if p.exists()]
    if written and not force:
        raise ValueError(f"{written[0]} exists; tfcompare does not overwrite it (use --force to replace it)")
    if out.is_dir():
        raise ValueError(f"{out} is a folder: give the checkpoint's prefix (e.g. {out / 'model'})")
    if any(p.exists() and not p.is_dir() for p in (out.parent, *out.parent.parents)):
        raise ValueError(f"{out.parent} cannot be a folder: a file of that name is on its path")


def convert_checkpoint(new: Path, tf1: Path, out: Path, force: bool = False, timeout_s: float = 300,
                       memory_limit_bytes: int | None = None) -> CheckpointResult:
    result = CheckpointResult(str(new), str(tf1), str(out))
    folder = pair_folder("tfcompare-checkpoint-")
    report = folder / "checkpoint.json"
    try:
        ended = run_child(["-m", "tfcompare.scripts.convert.checkpoint_child", str(new.resolve()), str(tf1.resolve()),
                           str(out.resolve()), str(report), *(["--force"] if force else [])],
                          new.resolve().parent, folder, timeout_s, grace_s=None, memory_limit_bytes=memory_limit_bytes,
                          side="tf2")
        if not report.exists():
            result.error = str(ended) if isinstance(ended, OverLimit) else \
                f"no result within {timeout_s:g} s" if ended == "timeout" else ended_text("the child", ended, 0)
            return result
        doc = json.loads(report.read_text())
        result.status = {"ok": CONVERTED, "differs": DIFFERS}.get(doc["status"], doc["status"])
        for key in ("error", "loaded", "left", "checked", "differs", "notes", "reader"):
            setattr(result, key, doc.get(key, getattr(result, key)))
        if doc.get("traceback"):
            raise RuntimeError(f"tfcompare's checkpoint child failed: {doc['error']}\n{doc['traceback']}")
        return result
    finally:
        shutil.rmtree(folder, ignore_errors=True)
