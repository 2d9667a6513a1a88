"""The process that reads a TF1 script for `convert`: `python -m tfcompare.scripts.convert.child SCRIPT OUT REPORT
STYLE [ARGS]`.

The script runs as `pair`'s TF1 side runs it (`tensorflow.compat.v1`, the legacy runtime, the known loaders
replaced by seeded synthetic data) up to its first training `Session.run`; there the graph, the session and
the script's globals are read and the TF2 script is written to OUT (atomically, as UTF-8, in the parent's private
folder: the parent puts it in place as NEW.py); the script is then stopped.
REPORT gets what happened (JSON), whatever happens, with each dropout live in that step (`convert` then proves
the rewrite with dropout off on both sides).
"""

from __future__ import annotations

import json
import os
import sys
import traceback
import types
from pathlib import Path

__all__ = ["main"]


def _write_atomically(path: Path, text: str) -> None:
    """Into the parent's private folder (OUT is there too): the parent puts the rewrite in place, no-clobber."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _namespace(module, script: str) -> tuple[dict, str | None]:
    """What the script's names are at its first training step: its globals, and where it trains inside a function
    of its own (`def main(): ...` / `if __name__ == "__main__": main()`, pkmital's `test_mnist()`; called by another
    of its functions, `main()` calling `train(args)`, or by `tf.app.run()`), that function's locals over them, with
    the function's name (the rewrite's main function)."""
    frame, inner = sys._getframe(1), None
    while frame is not None:
        if frame.f_code.co_filename == script:
            if frame.f_code.co_name == "<module>":
                break
            inner = inner or frame  # the innermost of the script's frames: where the step runs
        frame = frame.f_back
    if inner is None or frame is None:
        return dict(module.__dict__), None  # at top level
    function = module.__dict__.get(inner.f_code.co_name)
    if getattr(function, "__code__", None) is not inner.f_code:
        return dict(module.__dict__), None
    return {**module.__dict__, **inner.f_locals}, inner.f_code.co_name


def main(argv: list[str]) -> int:
    script, out, report_path, style, args = str(Path(argv[0]).resolve()), Path(argv[1]), Path(argv[2]), argv[3], \
        argv[4:]
    report = {"status": "no-step", "error": "", "traceback": "", "todos": [], "notes": [], "dropout": []}
    try:
        import tensorflow as tf
        from tensorflow.python.client import session as _session

        from tfcompare.core.graphs import ancestors
        from tfcompare.core.source_files import read_script
        from tfcompare.scripts.legacy import install as install_legacy
        from tfcompare.scripts.child import placement
        from tfcompare.scripts.child.dropout import fed_rates
        from tfcompare.scripts.child.processes import ended_text
        from tfcompare.scripts.convert import calls
        from tfcompare.scripts.convert.late import define_inline_fetches, define_late_tensors
        from tfcompare.scripts.convert.member_fetches import define_member_fetches
        from tfcompare.scripts.convert.writer import write
        from tfcompare.scripts.convert.instanced_writer import write_instanced
        from tfcompare.scripts.child.loaders import install as install_loaders
        from tfcompare.scripts.child.probe_tf1 import Stop, op_site, optimizer_patches, pipeline_outputs, runs
        from tfcompare.scripts.convert.plan import ITERATOR_OUTPUTS
        from tfcompare.scripts.child.user_script import as_tf1, run_script

        install_loaders(report["notes"])
        install_legacy(script, report["notes"])
        placement.install(script, report["notes"], bool(tf.config.list_physical_devices("GPU")))
        tf.compat.v1.disable_v2_behavior()
        found, groups, decays = {}, {}, {}
        for owner, name, value in optimizer_patches(found):
            setattr(owner, name, value)
        calls.install(groups, decays)
        module = types.ModuleType("__main__")
        original = _session.BaseSession.run

        def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
            train_op = found.get("train_op")
            if train_op is None or not runs(fetches, train_op):
                return original(self, fetches, feed_dict, options, run_metadata)
            frames = [f for f in traceback.extract_stack() if f.filename == script]
            first_line = frames[-1].lineno if frames else 10**9
            try:
                source = read_script(script)
                namespace, main = _namespace(module, script)
                written = write_instanced(script, dict(namespace), self, found, groups, decays, first_line, main)
                if isinstance(written, str):  # nearly that kind: why not
                    report["notes"].append(written)
                elif written is not None:  # a class built several times, each instance trained in turn
                    _write_atomically(out, written.text)
                    report.update(status="ok", todos=written.todos, notes=report["notes"] + written.notes,
                                  instances=written.instances)
                    raise Stop
                late = define_late_tensors(script, source, namespace, first_line, self.graph)
                inline = define_inline_fetches(script, source, namespace, first_line, self.graph)
                members = define_member_fetches(source, namespace, [e["train_op"] for e in found.get(
                    "entries", [found])])
                if members:
                    named = sorted({name for name in members.values() if name.isidentifier()})  # not a rewritten
                    # statement (a state fed cell by cell, rnn_state)
                    if named:
                        report["notes"].append("fetches and feeds written as members read as the names "
                                               + ", ".join(named) + " (each the same tensor)")
                if late or inline:
                    report["notes"].append(f"graph code after the first training step defined ahead of it, to be "
                                           f"translated too: {', '.join(sorted(late | set(inline.values())))}")
                # a tf.data iterator's batch is an input of the step as a feed is (the TF2 step takes it)
                pulled = {t: None for t in pipeline_outputs(found["loss"]) if t.op.type in ITERATOR_OUTPUTS}
                written = write(script, dict(namespace), self, found, groups, decays,
                                {**dict(feed_dict or {}), **pulled}, first_line, style, late,
                                {**inline, **members}, main)
            except Exception as exc:  # tfcompare's own failure, said as such
                report["status"] = "failed"
                report["error"] = f"tfcompare convert failed while writing the TF2 script: {type(exc).__name__}: {exc}"
                report["traceback"] = traceback.format_exc()
                raise Stop
            _write_atomically(out, written.text)
            report.update(status="ok", todos=written.todos, notes=report["notes"] + written.notes)
            losses = [e["loss"] for e in found.get("entries", [found]) if e.get("loss") is not None]
            rates = fed_rates(original, self, dict(feed_dict or {}), ancestors(losses or [found["loss"]]),
                              lambda op: op_site(op, script))  # every optimizer's: a second network's dropout
            report["dropout"] = [d for d in rates if d["live"]]
            raise Stop

        _session.BaseSession.run = run
        try:
            run_script(script, args, {}, lambda tree: report["notes"].extend(as_tf1(tree)), module=module,
                       own_modules_tf1=report["notes"])
        except Stop:
            pass
        except SystemExit as exc:
            if exc.code not in (None, 0) and report["status"] == "no-step":
                code = exc.code if isinstance(exc.code, int) else repr(exc.code)
                report.update(status="crashed", error=ended_text("the TF1 script", code, 0))
        except BaseException as exc:
            if report["status"] == "no-step":
                frames = traceback.extract_tb(exc.__traceback__)
                start = next((i for i, f in enumerate(frames) if f.filename == script), 0)
                report.update(status="crashed", error=f"{type(exc).__name__}: {exc}",
                              traceback="".join(["Traceback (most recent call last):\n",
                                                 *traceback.format_list(frames[start:]),
                                                 *traceback.format_exception_only(type(exc), exc)]))
    except Exception as exc:  # tfcompare's own (its modules, its hooks): never said as the TF1 script's
        report.update(status="failed", error=f"tfcompare convert failed: {type(exc).__name__}: {exc}",
                      traceback=traceback.format_exc())
    finally:
        _write_atomically(report_path, json.dumps(report, indent=2, default=str))
    return 0


if __name__ == "__main__":
    _code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(_code)
