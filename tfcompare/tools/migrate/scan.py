"""`tfcompare migrate`: read TF1 source, never run it, and say what breaks on the installed TensorFlow.

Per file and line: each TensorFlow reference, what it resolves to here, its class (see `classify`), what
`tf_upgrade_v2` did with it (renamed, changed, left alone, or renamed into something that fails here),
and the TF2 idiom that replaces it.
"""

from __future__ import annotations

import ast
import collections
import dataclasses
import time
from pathlib import Path

from tfcompare.core.legacy.coverage import is_provided
from tfcompare.report.format import grid
from tfcompare.tools.migrate.classify import (BEHAVIOUR, CLASSES, NEEDS_EXTRA, REMOVED, RUNS, UNPARSABLE,
                                              behaviour_note, classify, idiom)
from tfcompare.tools.migrate.references import Reference, aliases, references, resolve
from tfcompare.tools.migrate.upgrade_v2 import UpgradeResult, run_upgrade

__all__ = ["Finding", "FileReport", "MigrationReport", "MigrateError", "collect_files", "migrate"]

_RUNTIME_HINT = ("the file still runs unchanged under `tfcompare run-tf1 FILE` and `tfcompare pair` (tfcompare's legacy "
                 "runtime: TF 1.15's definitions on tf.compat.v1)")
_CHECK_HINT = "pair this file with its TF2 rewrite: tfcompare migrate --scaffold cases.py, then tfcompare run --cases-file cases.py"


class MigrateError(ValueError):
    """The paths given cannot be read as Python sources (nothing was written)."""


@dataclasses.dataclass
class Finding:
    line: int
    col: int
    symbol: str
    resolved_to: str | None
    klass: str
    upgrade_v2: str  # renamed / changed / flagged / left / broke / not run
    replacement: str
    note: str
    upgrade_to: str | None = None

    def to_json(self) -> dict:
        out = dataclasses.asdict(self)
        out["class"] = out.pop("klass")
        return out


@dataclasses.dataclass
class FileReport:
    path: str
    lines: int = 0
    findings: list[Finding] = dataclasses.field(default_factory=list)
    error: str | None = None

    def to_json(self) -> dict:
        return {"path": self.path, "lines": self.lines, "error": self.error,
                "findings": [f.to_json() for f in self.findings]}


@dataclasses.dataclass
class MigrationReport:
    files: list[FileReport]
    upgrade_error: str | None
    upgrade_issues_reported: int | None  # tf_upgrade_v2's own "Detected N issues"
    scan_s: float
    upgrade_s: float

    def findings(self):
        return [f for r in self.files for f in r.findings]

    def totals(self) -> dict:
        by_class = collections.Counter(f.klass for f in self.findings())
        not_runs = [f for f in self.findings() if f.klass != RUNS]
        return {"files": len(self.files), "lines": sum(r.lines for r in self.files),
                "findings": len(self.findings()),
                "by_class": {c: by_class.get(c, 0) for c in CLASSES},
                "upgrade_v2_missed": sum(f.upgrade_v2 == "left" for f in not_runs),
                "upgrade_v2_broke": sum(f.upgrade_v2 == "broke" for f in self.findings()),
                "upgrade_v2_issues_reported": self.upgrade_issues_reported,
                "scan_s": self.scan_s, "upgrade_v2_s": self.upgrade_s}

    def worst(self) -> str | None:
        present = {f.klass for f in self.findings()}
        return max(present, key=CLASSES.index) if present else None

    def fails(self, threshold: str) -> bool:
        """A finding of class `threshold` or worse exists (for CI: --fail-on)."""
        worst = self.worst()
        return worst is not None and CLASSES.index(worst) >= CLASSES.index(threshold)

    def to_json(self) -> dict:
        return {"files": [r.to_json() for r in self.files], "totals": self.totals(),
                "upgrade_v2_error": self.upgrade_error}

    def text(self) -> str:
        t = self.totals()
        lines = [f"tfcompare migrate: {t['files']} files, {t['lines']} lines, {t['findings']} findings"]
        lines += grid(("class", "findings"), [(c, str(n)) for c, n in t["by_class"].items()])
        if self.upgrade_error:
            lines.append(f"tf_upgrade_v2: not run ({self.upgrade_error})")
        else:
            lines.append(f"tf_upgrade_v2 reported {t['upgrade_v2_issues_reported']} issues; of the findings that do not "
                         f"run as is it left {t['upgrade_v2_missed']} untouched, and {t['upgrade_v2_broke']} of its "
                         "renames fail on this TensorFlow")
        for report in self.files:
            lines.append("")
            lines.append(f"{report.path}" + (f": {report.error}" if report.error else ""))
            for f in report.findings:
                if f.klass == RUNS:
                    continue
                up = f" [tf_upgrade_v2: {f.upgrade_v2}{' -> ' + f.upgrade_to if f.upgrade_to else ''}]"
                lines.append(f"  {f.line}:{f.col} {f.klass}: {f.symbol}{up}")
                lines.append(f"      {f.note}")
                if f.replacement:
                    lines.append(f"      TF2: {f.replacement}")
        top = collections.Counter(f.replacement for f in self.findings() if f.replacement and f.klass != RUNS)
        if top:
            lines.append("")
            lines.append("most needed TF2 idioms:")
            lines += [f"  {n}x  {text}" for text, n in top.most_common(5)]
        lines.append(f"\n{_CHECK_HINT}")
        return "\n".join(lines)

    def markdown(self) -> str:
        t = self.totals()
        out = ["# tfcompare migrate", "", f"{t['files']} files, {t['lines']} lines, {t['findings']} findings.", "",
               "| class | findings |", "|---|---|"] + [f"| {c} | {n} |" for c, n in t["by_class"].items()]
        for report in self.files:
            out += ["", f"## `{report.path}`", ""]
            if report.error:
                out.append(f"**{report.error}**")
                continue
            out += ["| line | symbol | class | tf_upgrade_v2 | TF2 idiom | note |", "|---|---|---|---|---|---|"]
            for f in report.findings:
                if f.klass != RUNS:
                    up = f.upgrade_v2 + (f" → `{f.upgrade_to}`" if f.upgrade_to else "")
                    out.append(f"| {f.line}:{f.col} | `{f.symbol}` | {f.klass} | {up} | {f.replacement} | "
                               f"{f.note.replace('|', '/')} |")
        return "\n".join(out) + "\n"


def collect_files(paths) -> list[Path]:
    """The `.py` files named or under the folders named; a missing path or none at all is a `MigrateError`."""
    files: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise MigrateError(f"{str(raw)!r} does not exist")
        if p.is_dir():
            found = sorted(x for x in p.rglob("*.py") if x.is_file())
            if not found:
                raise MigrateError(f"{str(raw)!r} holds no .py files")
            files += found
        else:
            files.append(p)
    return list(dict.fromkeys(files))


def _status(ref: Reference, names: dict, upgrade: UpgradeResult | None, path: str) -> tuple[str, str | None]:
    if upgrade is None or upgrade.error or path in upgrade.failed or path not in upgrade.entries:
        return "not run", None
    said = [e for e in upgrade.entries[path] if e.line == ref.line and e.col == ref.col]
    renamed = next((e.renamed_to for e in said if e.renamed_to), None)
    if renamed:
        head, _, rest = renamed.partition(".")
        full = names.get(head, head) + ("." + rest if rest else "")
        return ("renamed" if resolve(full).ok else "broke"), renamed
    if any(e.message.startswith("Changing") or "keyword argument" in e.message for e in said):
        return "changed", None
    return ("flagged", None) if said else ("left", None)


def _scan_file(path: Path, upgrade: UpgradeResult | None) -> FileReport:
    report = FileReport(str(path))
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        report.error = f"unreadable: {exc.strerror if isinstance(exc, OSError) else exc}"
        report.findings.append(Finding(0, 0, "", None, UNPARSABLE, "not run", "", report.error))
        return report
    report.lines = source.count("\n") + 1
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        report.error = f"syntax error at line {exc.lineno}: {exc.msg}"
        report.findings.append(Finding(exc.lineno or 0, exc.offset or 0, "", None, UNPARSABLE, "not run", "",
                                       f"{report.error}; nothing in this file was checked"))
        return report
    names = aliases(tree)
    for ref in references(tree):
        res = resolve(ref.path)
        klass, why = classify(ref, res)
        status, new = _status(ref, names, upgrade, str(path))
        finding = Finding(ref.line, ref.col, ref.written, res.resolved_to, klass, status, idiom(ref.path), why, new)
        if status == "broke":
            finding.note += f"; tf_upgrade_v2 rewrites it to {new}, which does not resolve on this TensorFlow either"
        if klass in (REMOVED, NEEDS_EXTRA) and is_provided(ref.path):
            finding.note += f"; {_RUNTIME_HINT}"
        report.findings.append(finding)
        note = behaviour_note(ref.path)
        if note and not ref.is_import:
            report.findings.append(Finding(ref.line, ref.col, ref.written, res.resolved_to, BEHAVIOUR, status,
                                           idiom(ref.path), note + f" ({_CHECK_HINT})", new))
    return report


def migrate(paths, *, upgrade: bool = True) -> MigrationReport:
    """Scan every file (never editing or running it); run tf_upgrade_v2 on copies unless `upgrade` is False."""
    files = collect_files(paths)
    t0 = time.perf_counter()
    upgraded = run_upgrade(files) if upgrade else None
    upgrade_s = time.perf_counter() - t0
    resolve("tensorflow")  # importing TensorFlow once is not the scan's cost
    t0 = time.perf_counter()
    reports = [_scan_file(f, upgraded) for f in files]
    scan_s = time.perf_counter() - t0
    return MigrationReport(reports, None if upgraded is None else upgraded.error,
                           None if upgraded is None else upgraded.issues_reported, scan_s, upgrade_s)
