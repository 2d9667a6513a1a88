"""`tfcompare convert OLD.py -o NEW.py`: a TF2 rewrite of a TF1 training script, proven by `pair` to train the same.

The TF1 script runs (in pair's TF1 child setting) to its first training step; the graph it built there is
translated op by op into a `tf.Module`, a Keras optimizer with TF1's settings and a `@tf.function` step, and
the script's own code around it is carried over (`writer`, `ops`, `source`). Then `pair OLD NEW` runs and its
verdict is the verdict of the conversion (with `--dropout off` when the converted step has a live dropout: two
processes cannot draw the same masks; the written script keeps its dropout). Both paths are checked before the TF1
script runs (`check_paths`); the rewrite is put in place only if NEW.py still does not exist at that moment (or,
with `force`, is still a regular file: a link is never written through), and the verdict stands only if NEW.py
still holds the rewrite after the proof. It sits above `pair` and `run_tf1` in
`tfcompare.scripts`: its reading of the TF1 script is their child, its proof is `pair`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from tfcompare.core.errors import legacy_hint
from tfcompare.core.files import write_atomic
from tfcompare.core.paths import new_file
from tfcompare.core.source_files import SourceError, check_script, read_script
from tfcompare.core.results import json_text
from tfcompare.scripts.pair import AGREE, FAILED as PAIR_FAILED, PairOptions, PairResult, pair_scripts
from tfcompare.scripts.child.dropout import AS_WRITTEN, OFF, sites_text
from tfcompare.scripts.child import processes
from tfcompare.scripts.child.processes import OverLimit, ended_text, output_tail, pair_folder, run_child
from tfcompare.scripts.child.workdir import working_copy
from tfcompare.scripts.convert import graph_segments as _graphs, levers as _levers
from tfcompare.scripts.convert.levers import LEVERS, Lever, LeverTrial
from tfcompare.scripts.convert.standalone import alone_line, run_alone
from tfcompare.scripts.convert.todo_marks import todo_marks

__all__ = ["ConvertOptions", "ConvertResult", "convert_script", "check_paths", "WRITTEN_AGREES", "WRITTEN_DIFFERS",
           "FAILED", "STYLES", "LEVERS", "Lever"]

WRITTEN_AGREES, WRITTEN_DIFFERS, FAILED = "agree", "differ", "failed"
STYLES = ("module", "keras")  # the model as a tf.Module, or as a keras.Model of Keras layers


@dataclasses.dataclass(frozen=True)
class ConvertOptions:
    """ARGS both scripts get; the time limit of the TF1 run and of each side of the pair; steps pair compares;
    the model's style (STYLES); the speed levers tried on a rewrite that agrees (`levers`: () writes the plain
    rewrite)."""

    args: tuple[str, ...] = ()
    timeout_s: float = 120.0
    steps: int = 3
    check: bool = True  # run pair on the result
    style: str = "module"
    force: bool = False  # replace NEW.py if it is a regular file (never a link, never anything else)
    levers: tuple[Lever, ...] = LEVERS

    def __post_init__(self):
        if self.style not in STYLES:
            raise ValueError(f"style {self.style!r} is not one of {', '.join(STYLES)}")
        names = [getattr(lever, "name", None) for lever in self.levers]
        if len(set(names)) != len(names) or not all(isinstance(lever, Lever) for lever in self.levers):
            raise ValueError(f"levers must be distinct Lever objects, got {self.levers!r}")


@dataclasses.dataclass
class GraphProof:
    """A later graph of a script that builds several (`graph_segments`): its TF1 lines and its own proof."""

    lines: str
    pair: PairResult | None = None
    proof: str = ""


@dataclasses.dataclass
class ConvertResult:
    tf1_script: str
    tf2_script: str
    status: str = FAILED
    error: str = ""
    traceback: str = ""
    todos: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    pair: PairResult | None = None
    proof: str = ""  # how pair ran, when not as written (dropout off, and why)
    wall_s: float = 0.0
    style: str = "module"  # what the TF2 script holds the model in: a tf.Module or a keras.Model
    # the written script run on its own for its first steps (standalone.run_alone): steps, ended, error, where
    alone: dict | None = None
    levers: list[LeverTrial] = dataclasses.field(default_factory=list)  # each lever tried on the agreeing rewrite
    graphs: list[GraphProof] = dataclasses.field(default_factory=list)  # the later graphs of a multi-graph script

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    def json_text(self) -> str:
        return json_text(self.to_json())  # NaN and inf as strings: a failing script's loss stays valid JSON

    def lines(self) -> list[str]:
        out = [f"convert {self.tf1_script} (TF1) -> {self.tf2_script} (TF2)"]
        if self.status == FAILED and self.pair is None:
            out.append(f"FAILED: {self.error}")
            if self.traceback:
                out += ["", self.traceback.rstrip()]
            return out + [f"note: {n}" for n in self.notes]
        out.append(f"wrote {self.tf2_script}" + (f" with {len(self.todos)} TODO(tfcompare) mark(s):" if self.todos
                                                 else " (nothing left to do by hand)"))
        out += [f"  TODO: {t}" for t in self.todos]
        out += [f"note: {n}" for n in self.notes]
        if self.proof:
            out.append(f"proof: {self.proof}")
        if self.alone is not None:
            out.append(alone_line(self.alone))
        if self.pair is not None:
            out += ["", *self.pair.lines(), ""]
            for k, graph in enumerate(self.graphs, 2):
                out += [f"graph {k} of {len(self.graphs) + 1} (TF1 lines {graph.lines}, after reset_default_graph()), "
                        f"proven on its own" + (f"; proof: {graph.proof}" if graph.proof else ""),
                        *(graph.pair.lines() if graph.pair else []), ""]
            if self.levers:
                out += [trial.line() for trial in self.levers] + [f"levers not tried: {_levers.NOT_WRITTEN}", ""]
            out.append("CONVERTED: the TF2 script trains as the TF1 script does (pair agrees)"
                       if self.status == WRITTEN_AGREES else
                       f"NOT PROVEN: {self.error}" if self.error else
                       f"NOT PROVEN: pair says {self.pair.status}; the TF2 script is written, check it by hand")
        return out


def check_paths(tf1_script: str | Path, tf2_script: str | Path, force: bool = False) -> Path:
    """The absolute path NEW.py names, after refusing (a ValueError naming the path and why), before anything runs:
    OLD.py that is not a regular file under the size cap (a FIFO, /dev/zero, a folder), NEW.py that is OLD.py,
    exists (without `force`; with it, is not a regular file or is a link), is too long a name, or is in a folder
    that is missing or cannot be written (/proc, a read-only mount)."""
    try:
        check_script(tf1_script)
    except SourceError as exc:
        raise ValueError(f"{str(tf1_script)!r} {exc}") from None
    if os.path.exists(tf2_script) and os.path.samefile(tf2_script, tf1_script):
        raise ValueError(f"{tf2_script} is OLD.py itself: write the TF2 script to another file")
    if not force and os.path.isfile(tf2_script) and not os.path.islink(tf2_script):
        raise ValueError(f"{str(tf2_script)!r} exists; tfcompare does not overwrite it (use --force to replace it)")
    path = new_file(str(tf2_script), replace=force)  # a BadPath (a ValueError) names the path and why
    return Path(os.path.realpath(path.parent)) / path.name  # the link-free folder; the name itself is not followed


def _read_tf1(old: Path, options: ConvertOptions, limit: int) -> dict:
    folder = pair_folder("tfcompare-convert-")
    try:
        return _read_in(old, folder / "tf2.py", options, folder, limit)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _read_in(old: Path, written: Path, options: ConvertOptions, folder: Path, limit: int) -> dict:
    report = folder / "convert.json"
    ended = run_child(["-m", "tfcompare.scripts.convert.child", str(old), str(written), str(report), options.style,
                       *options.args],
                      working_copy(old.parent, folder, "tf1"), folder, options.timeout_s, grace_s=None,
                      memory_limit_bytes=limit)
    if isinstance(ended, OverLimit):
        return {"status": "failed", "traceback": output_tail(folder, "tf1"), "error": str(ended)}
    if not report.exists():
        return {"status": "failed", "traceback": output_tail(folder, "tf1"),
                "error": (f"the TF1 script reached no training step within {options.timeout_s:g} s"
                          if ended == "timeout" else ended_text("the TF1 script", ended, 0))}
    out = json.loads(report.read_text())
    if out["status"] == "ok":
        out["text"] = written.read_text(encoding="utf-8")
    return out


def _put_in_place(new: Path, text: str, result: ConvertResult, force: bool) -> bool:
    """Write the rewrite to NEW.py as `check_paths` found it: a file saved there since (by another program, another
    convert) is never replaced, nor, with `force`, a link or anything but a regular file. False: not written."""
    try:
        write_atomic(new, text, exclusive=not force, file_only=True)
        return True
    except FileExistsError as exc:
        what = ("a file appeared there while convert ran (saved by another program or another convert?)" if not force
                else f"it is now {exc.strerror.split(':')[0]}" if exc.strerror else "it changed while convert ran")
        result.error = f"{result.tf2_script} was not written: {what}; it is left as it is"
    except OSError as exc:
        result.error = f"{result.tf2_script} could not be written: {exc.strerror or exc}"
    return False


def _still_written(new: Path, text: str) -> bool:
    try:
        return new.read_bytes() == text.encode("utf-8") and not new.is_symlink()
    except OSError:
        return False


def convert_script(tf1_script: str | Path, tf2_script: str | Path,
                   options: ConvertOptions = ConvertOptions()) -> ConvertResult:
    """Write the TF2 rewrite of `tf1_script` to `tf2_script`, then pair them; `status` is pair's verdict (FAILED
    when nothing was written or pair could not compare). Bad paths raise ValueError before anything runs."""
    new = check_paths(tf1_script, tf2_script, options.force)
    started = time.perf_counter()
    old = Path(tf1_script).resolve()
    result = ConvertResult(str(tf1_script), str(tf2_script), style=options.style)
    limit = processes.memory_limit()  # one for the command: its child, then its proof's two sides together
    if _several_graphs(old, new, options, limit, result):
        result.wall_s = time.perf_counter() - started
        return result
    report = _read_tf1(old, options, limit)
    result.todos = list(report.get("todos", []))
    result.notes = list(dict.fromkeys(result.notes + report.get("notes", [])))
    if report["status"] != "ok":
        result.error = report.get("error") or ("the TF1 script ran to its end without a training step (a Session.run "
                                                "of an optimizer's train op): there is no graph to convert")
        if report["status"] == "crashed":
            result.error = f"the TF1 script failed before its first training step: {result.error}"
            result.error += legacy_hint(result.error, str(tf1_script))  # pair's TF1 side's advice (tf-keras)
        try:
            source = read_script(old)
        except SourceError:
            source = ""
        if "GradientTape" in source and "Session" not in source:
            result.error += ("; this script uses tf.GradientTape and no Session: it reads like a TF2 script already "
                             "(convert takes a TF1 script)")
        result.traceback = report.get("traceback", "")
        result.wall_s = time.perf_counter() - started
        return result
    if not _put_in_place(new, report["text"], result, options.force):
        result.wall_s = time.perf_counter() - started
        return result
    if options.check and report.get("instances", 0) > options.steps:  # each instance's step compared, in turn
        result.notes.append(f"pair compares {report['instances']} steps, not {options.steps}: one per instance of "
                            f"the class the script builds {report['instances']} times, where its loop trains them in "
                            f"turn")
        options = dataclasses.replace(options, steps=report["instances"])
    if options.check:
        result.pair, result.proof = _prove(old, new, report.get("dropout", []), options, limit, str(tf2_script))
        result.status, result.error = _verdict(result, result.pair)
        _alone(old, new, report["text"], options, limit, result)
        if result.status == WRITTEN_AGREES and options.levers:
            _try_levers(old, new, report["text"], options, _proof_options(report.get("dropout", []), options, limit),
                        limit, result)
    else:
        result.status = WRITTEN_DIFFERS
    result.wall_s = time.perf_counter() - started
    return result


def _several_graphs(old: Path, new: Path, options: ConvertOptions, limit: int, result: ConvertResult) -> bool:
    """A script that builds several graphs one after another (`graph_segments`): each read, written and proven on
    its own, NEW.py their rewrites joined. False (a note says why, when it was tried): convert it as one script."""
    try:
        source = read_script(old)
    except SourceError:
        return False
    parts = _graphs.segments(source)
    if not parts:
        return False
    made, texts, reports = [], [], []
    try:
        for k, part in enumerate(parts, 1):
            try:
                fd, name = tempfile.mkstemp(prefix=f".tfcompare-graph{k}-", suffix=f"-{old.name}", dir=old.parent)
            except OSError as exc:
                result.notes.append(f"the TF1 script builds {len(parts)} graphs; its folder cannot hold each as a "
                                    f"script of its own ({exc.strerror or exc}): converted as one script")
                return False
            made.append(Path(name))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(_graphs.blanked(source, part))
            report = _read_tf1(made[-1], options, limit)
            if report["status"] != "ok":
                result.notes.append(
                    f"the TF1 script builds {len(parts)} graphs one after another (reset_default_graph()); graph {k} "
                    f"(lines {part.lines}) did not reach a training step as a script of its own with the imports and "
                    f"definitions above it ({(report.get('error') or 'no training step')[:200]}): converted as one "
                    "script, the later graphs marked")
                return False
            text = report["text"].replace(made[-1].stem, old.stem)
            texts.append(_graphs.renamed(text, _graphs.clashing_classes(texts, text)))
            reports.append(report)
        text = _graphs.joined(texts, [f"graph {k} of the TF1 script (its lines {p.lines}, after reset_default_graph()): "
                                      "its own model" for k, p in enumerate(parts, 1)], parts)
        result.todos = todo_marks(text)
        result.notes += [f"the TF1 script builds {len(parts)} graphs one after another (reset_default_graph()): each "
                         "was converted and is proven on its own (TF1 lines "
                         + ", ".join(p.lines for p in parts) + ")"]
        result.notes = list(dict.fromkeys(result.notes + [n.replace(path.stem, old.stem) for path, r in
                                                          zip(made, reports) for n in r.get("notes", [])]))
        if not _put_in_place(new, text, result, options.force):
            return True
        if not options.check:
            result.status = WRITTEN_DIFFERS
            return True
        verdicts = []
        for k, (part, tf1, own, report) in enumerate(zip(parts, made, texts, reports), 1):
            fd, name = tempfile.mkstemp(prefix=f".tfcompare-graph{k}-", suffix=".py", dir=new.parent)
            made.append(Path(name))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(own)
            pair, why = _prove(tf1, made[-1], report.get("dropout", []), options, limit, str(result.tf2_script))
            pair.tf1_script, pair.tf2_script = f"{result.tf1_script} lines {part.lines}", \
                f"{result.tf2_script} graph {k}"
            # a variable's line in this graph's own rewrite, said as its line in NEW.py
            sites = _graphs.joined_lines(own, text, [entry["tf2_site"] for entry in pair.pairing])
            for entry, site in zip(pair.pairing, sites):
                entry["tf2_site"] = site
            verdicts.append(_verdict(result, pair, f"graph {k} (TF1 lines {part.lines})"))
            if k == 1:
                result.pair, result.proof = pair, why
            else:
                result.graphs.append(GraphProof(part.lines, pair, why))
        result.status, result.error = max(verdicts, key=lambda v: (WRITTEN_AGREES, WRITTEN_DIFFERS,
                                                                     FAILED).index(v[0]))
        _alone(old, new, text, options, limit, result)
        return True
    finally:
        for path in made:
            path.unlink(missing_ok=True)


def _alone(old: Path, new: Path, text: str, options: ConvertOptions, limit: int, result: ConvertResult) -> None:
    """NEW.py run on its own; the verdict stands only if it runs and still holds `text` (what was proven)."""
    result.alone = run_alone(new, old.parent, options.steps, options.args, options.timeout_s, limit)
    if result.alone["ended"] == "failed" and result.status == WRITTEN_AGREES:
        result.status = FAILED  # pair agreed on the steps it saw; the file as written does not run
        result.error = (f"{result.tf2_script} trains as the TF1 script does under pair, but fails when run on its "
                        f"own: {alone_line(result.alone)}")
    if not _still_written(new, text):  # the proof ran another file: no verdict about the rewrite
        result.status = FAILED
        result.error = (f"{result.tf2_script} changed while pair proved it (another program or convert wrote it?): "
                        "the verdict is not about the rewrite")


def _proof_options(live: list, options: ConvertOptions, limit: int) -> PairOptions:
    return PairOptions(steps=options.steps, timeout_s=options.timeout_s, args=options.args,
                       dropout=OFF if live else AS_WRITTEN, memory_limit_bytes=limit, timing=True)


def _prove(tf1: Path, tf2: Path, live: list, options: ConvertOptions, limit: int, name: str
           ) -> tuple[PairResult, str]:
    """pair TF1 vs TF2 as convert proves a rewrite, with dropout off on both sides when TF1's step has one live."""
    proof = _proof_options(live, options, limit)
    why = (f"pair runs with dropout off on both sides (--dropout off), because the TF1 training step has a live "
           f"dropout ({sites_text(live)}): two processes draw different masks, so live dropout cannot agree step by "
           f"step; {name} keeps its dropout") if live else ""
    return pair_scripts(tf1, tf2, proof), why


def _verdict(result: ConvertResult, pair: PairResult, graph: str = "") -> tuple[str, str]:
    """The conversion's status and error from one proof (`graph`: which of several graphs it proved, or "")."""
    if pair.status == AGREE:
        return WRITTEN_AGREES, ""
    if pair.status != PAIR_FAILED:  # exit 3, and --json says so: not compared is no verdict
        return WRITTEN_DIFFERS, f"{graph}: pair says {pair.status}; the TF2 script is written, check it by hand" \
            if graph else ""
    if "TODO_tfcompare" in pair.error or "tfcompare convert could not translate" in pair.error:
        # tfcompare's own unfinished translation stopped it, not the user's code
        return FAILED, (f"{result.tf2_script} is written with {len(result.todos)} TODO(tfcompare) mark(s), and one "
                        f"of them stops {graph or 'it'} before its first training step"
                        f"{' (' + result.todos[0][:100] + ')' if result.todos else ''}: pair could not "
                        "compare it; finish the marks by hand, then run `tfcompare pair OLD.py NEW.py`")
    # the TF2 script is tfcompare's rewrite: a failure pair calls "the script's own" is the rewrite's, not the user's
    error = pair.error.replace("the failure is the script's own", "the failure is the rewrite's own: tfcompare's "
                               "translation, not the TF1 script")
    return FAILED, f"{result.tf2_script}{' ' + graph if graph else ''} is written, but pair could not compare it: " \
                   f"{error}"


def _try_levers(old: Path, new: Path, plain: str, options: ConvertOptions, proof: PairOptions, limit: int,
                result: ConvertResult) -> None:
    """Each lever on the rewrite as it stands, proven and timed by its own pair (`levers.judge`); NEW.py is
    replaced by the text with the kept levers only if it still holds the plain rewrite at that moment, and the
    file then written is run on its own again. `result.pair` is then the pair of that text."""
    text, best = plain, result.pair
    for lever in options.levers:
        trial = LeverTrial(lever.name, lever.what)
        result.levers.append(trial)
        variant = lever.apply(text)
        if variant is None:
            trial.why = ("does not apply to this rewrite (no single train_step decorator to change, already on, or a "
                         "model method the step would inline is also called outside it, where it casts the inputs)")
            continue
        fd, hidden = tempfile.mkstemp(prefix=f".tfcompare-lever-{lever.name}-", suffix=".py", dir=new.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(variant)
            tried = pair_scripts(old, Path(hidden), proof)
        finally:
            Path(hidden).unlink(missing_ok=True)
        _levers.judge(trial, tried.status, best.timing, tried.timing, tried.error)
        if trial.kept:
            text, best = _levers.with_lever_note(variant, trial, _machine(tried.timing)), tried
            best.tf2_script = result.tf2_script  # the file it proves is NEW.py as now written
    if text == plain:
        return
    if not _still_written(new, plain):
        result.status = FAILED
        result.error = (f"{result.tf2_script} changed while convert timed its levers (another program wrote it?): it "
                        "is left as it is, without the levers")
        return
    write_atomic(new, text, file_only=True)
    plain_pair, plain_alone = result.pair, result.alone
    result.pair = best
    result.alone = run_alone(new, old.parent, options.steps, options.args, options.timeout_s, limit)
    if result.alone["ended"] != "failed":
        return
    if _still_written(new, text):  # the plain rewrite ran on its own: it is what NEW.py holds again
        write_atomic(new, plain, file_only=True)
        for trial in result.levers:
            if trial.kept:
                trial.kept = False
                trial.why = f"agreed and was faster under pair, but the script failed on its own with it: " \
                            f"{alone_line(result.alone)}"
        result.pair, result.alone = plain_pair, plain_alone
        return
    result.status = FAILED
    result.error = (f"{result.tf2_script} with its levers trains as the TF1 script does under pair, but fails when "
                    f"run on its own: {alone_line(result.alone)}")


def _machine(timing: dict) -> str:
    return f"{os.cpu_count()} CPU cores, load {timing.get('load_1min', 0):.1f}"
