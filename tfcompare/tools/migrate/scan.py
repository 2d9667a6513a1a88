"""`tfcompare migrate`: read TF1 source, never run it, and say what breaks on the installed TensorFlow.

Per file and line: each TensorFlow reference, what it resolves to here, its class (see `classify`), what
`tf_upgrade_v2` did with it (renamed, changed, left alone, or renamed into something that fails here),
and the TF2 idiom that replaces it.
"""

from __future__ import annotations

import collections
import dataclasses
import re
import time
from pathlib import Path

from tfcompare.scripts.legacy.coverage import is_provided
from tfcompare.report.format import grid
from tfcompare.tools.migrate.calls import CallIssue, call_issues
from tfcompare.tools.migrate.classify import (BEHAVIOUR, CLASSES, NEEDS_EXTRA, REMOVED, RUNS, UNPARSABLE,
                                              behaviour_note, classify, idiom)
from tfcompare.tools.migrate.references import Reference, alias_sites, aliases, references, resolve
from tfcompare.tools.migrate.sources import SourceError, Unreadable, collect, decode, parse, read_source
from tfcompare.tools.migrate.upgrade_v2 import UpgradeResult, UpgradeRun

__all__ = ["Finding", "FileReport", "MigrationReport", "MigrateError", "collect_files", "migrate"]

_RUNTIME_HINT = ("the file still runs unchanged under `tfcompare run-tf1 FILE` and `tfcompare pair` (tfcompare's "
                 "legacy runtime: TF 1.15's definitions on tf.compat.v1)")
_NEXT_HINT = ("a TF1 training script: tfcompare convert FILE -o NEW.py writes its TF2 rewrite and proves it with pair; "
              "a TF2 rewrite of your own: tfcompare pair FILE NEW.py")
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
    error: str | None = None  # why nothing in the file was checked
    upgrade_note: str | None = None  # why tf_upgrade_v2 has nothing to say about this file

    def to_json(self) -> dict:
        return {"path": self.path, "lines": self.lines, "error": self.error, "upgrade_v2": self.upgrade_note,
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
            left_out = sum(1 for r in self.files if r.upgrade_note and not r.error)
            if left_out:
                lines.append(f"tf_upgrade_v2 left out {left_out} file(s), each noted below; the others were compared")
        for report in self.files:
            lines.append("")
            lines.append(f"{report.path}" + (f": {report.error}" if report.error else ""))
            if report.upgrade_note and not report.error and not self.upgrade_error:
                lines.append(f"  note: {report.upgrade_note}")
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
        lines.append(_NEXT_HINT)
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
            if report.upgrade_note and not self.upgrade_error:
                out += [f"Note: {report.upgrade_note}", ""]
            out += ["| line | symbol | class | tf_upgrade_v2 | TF2 idiom | note |", "|---|---|---|---|---|---|"]
            for f in report.findings:
                if f.klass != RUNS:
                    up = f.upgrade_v2 + (f" → `{f.upgrade_to}`" if f.upgrade_to else "")
                    out.append(f"| {f.line}:{f.col} | `{f.symbol}` | {f.klass} | {up} | {f.replacement} | "
                               f"{f.note.replace('|', '/')} |")
        return "\n".join(out) + "\n"


def collect_files(paths) -> tuple[list[Path], list[Unreadable]]:
    """The files named and the `.py` files under the folders named, and the folders that could not be listed;
    a missing path or none at all is a `MigrateError`."""
    try:
        return collect(paths)
    except SourceError as exc:
        raise MigrateError(str(exc)) from None


def _unparsable(report: FileReport, reason: str, line: int = 0, col: int = 0) -> FileReport:
    report.error = reason
    report.findings.append(Finding(line, col, "", None, UNPARSABLE, "not run", "",
                                   f"{reason}; nothing in this file was checked"))
    return report


def _status(ref: Reference | CallIssue, names: dict, upgrade: UpgradeResult | None, path: str,
            sites: dict | None = None) -> tuple[str, str | None]:
    if upgrade is None or upgrade.error or path in upgrade.failed or path not in upgrade.entries:
        return "not run", None
    at = getattr(ref, "positions", ((ref.line, ref.col),))
    said = [e for e in upgrade.entries[path] if (e.line, e.col) in at]
    renamed = next((e.renamed_to for e in said if e.renamed_to), None)
    head, _, rest = ref.written.partition(".")
    if not said and head in (sites or {}):  # used through an alias: what the tool did to the alias's assignment
        renamed = next((e.renamed_to for e in upgrade.entries[path] if (e.line, e.col) == (sites or {})[head]
                        and e.renamed_to), None)
        renamed = renamed and renamed + ("." + rest if rest else "")
    if renamed:
        head, _, rest = renamed.partition(".")
        full = names.get(head, head) + ("." + rest if rest else "")
        return ("renamed" if resolve(full).ok else "broke"), renamed
    if any(e.message.startswith(("Changing", "Added keywords to args")) or "keyword argument" in e.message
           or "Removed argument" in e.message for e in said):
        return "changed", None
    return ("flagged", None) if said else ("left", None)


def _read(path: Path) -> tuple[str | None, str | None]:
    """(text, None), or (None, why this file cannot be scanned)."""
    try:
        return decode(read_source(path)), None
    except SourceError as exc:
        return None, str(exc)


def _scan_file(path: Path, source: str | None, error: str | None, upgrade: UpgradeResult | None) -> FileReport:
    report = FileReport(str(path))
    if upgrade is not None:
        report.upgrade_note = upgrade.failed.get(str(path)) or upgrade.error
    if source is None:
        return _unparsable(report, error)
    report.lines = source.count("\n") + 1
    try:
        tree = parse(source, str(path))
    except SourceError as exc:
        line = int(m.group(1)) if (m := re.match(r"syntax error at line (\d+)", str(exc))) else 0
        return _unparsable(report, str(exc), line)
    names = aliases(tree)
    sites = alias_sites(tree, names)
    for ref in references(tree):
        res = resolve(ref.path)
        klass, why = classify(ref, res)
        status, new = _status(ref, names, upgrade, str(path), sites)
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
    for issue in call_issues(tree, names):
        status, new = _status(issue, names, upgrade, str(path))
        note = issue.note
        if status == "flagged" and issue.klass != RUNS:
            note += "; tf_upgrade_v2 only flags it: its rewrite still has this problem"
        report.findings.append(Finding(issue.line, issue.col, issue.written, None, issue.klass, status,
                                       issue.replacement, note, new))
    report.findings.sort(key=lambda f: (f.line, f.col))
    return report


def _scan_guarded(path: Path, source: str | None, error: str | None, upgrade: UpgradeResult | None) -> FileReport:
    """One file's report; a failure of tfcompare's own on it is that file's finding, said to be tfcompare's."""
    try:
        return _scan_file(path, source, error, upgrade)
    except Exception as exc:
        return _unparsable(FileReport(str(path)), f"tfcompare failed on this file (a tfcompare bug, not the "
                                                  f"file's): {type(exc).__name__}: {exc}")


def migrate(paths, *, upgrade: bool = True) -> MigrationReport:
    """Scan every file (never editing or running it); run tf_upgrade_v2 on each file's text unless `upgrade` is
    False. A file or folder that cannot be read is an `unparsable` finding of its own; the rest are scanned."""
    files, unreadable = collect_files(paths)
    read = {f: _read(f) for f in files}
    sources = {str(f): text for f, (text, _) in read.items() if text is not None}
    t0 = time.perf_counter()
    with UpgradeRun(sources if upgrade else {}) as running:
        resolve("tensorflow")  # importing TensorFlow once is not the scan's cost (the tool's import overlaps it)
        upgraded = running.result() if upgrade else None
    upgrade_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    reports = [_scan_guarded(f, text, error, upgraded) for f, (text, error) in read.items()]
    reports += [_unparsable(FileReport(u.path), u.reason) for u in unreadable]
    scan_s = time.perf_counter() - t0
    return MigrationReport(reports, None if upgraded is None else upgraded.error,
                           None if upgraded is None else upgraded.issues_reported, scan_s, upgrade_s)
