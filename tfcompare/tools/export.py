"""Out to deployment: a case as SavedModel (from TF2 and from the TF1 graph) and TFLite (float and
dynamic-range quantised), each reloaded without the model's code and checked against the original.

Everything is written into a temporary folder beside the destination and moved into place at the end,
so a failure or an interrupt never leaves a half-written export.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import tensorflow as tf

from tfcompare.core.cases import Case
from tfcompare.core.children import die_with_parent
from tfcompare.core.files import TEMP_MARKER, pid_temp_dir, remove_dead_temp_dirs, shared_permissions
from tfcompare.core.graph_builder import weight_loader
from tfcompare.core.results import json_text
from tfcompare.core.timing import median_time
from tfcompare.report.format import format_bytes, format_seconds, grid

__all__ = ["ExportError", "FormatResult", "ExportReport", "export_case", "TFLITE_TOLERANCE", "MARKER"]

MARKER = ".tfcompare-export"  # written into every export: --overwrite replaces only a folder that has it
_MAX_NAME = 200  # the temporary folder's name adds ~30 characters; most file systems stop at 255
_RELOAD_TIMEOUT_S = 600

tf1 = tf.compat.v1
_REPEATS = 20
# max |tflite - savedmodel| relative to the largest |output|: float conversion keeps float32 arithmetic;
# dynamic-range quantisation stores weights in int8 (one scale per tensor), so percent-level error is expected
TFLITE_TOLERANCE = {"tflite-float": 1e-4, "tflite-dynamic-range": 5e-2}


class ExportError(Exception):
    """The export cannot start: the destination is not usable."""


@dataclasses.dataclass
class FormatResult:
    format: str
    status: str = "ok"  # ok / mismatch / error
    error: str | None = None
    path: str | None = None
    size_bytes: int | None = None
    max_abs_err: float | None = None
    max_rel_err: float | None = None  # relative to the largest |output| of the reference
    tolerance: float | None = None
    load_s: float | None = None
    first_call_s: float | None = None
    steady_s: float | None = None
    original_steady_s: float | None = None

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class ExportReport:
    case: str
    dir: str
    batch_shapes: list[dict]
    formats: list[FormatResult]
    reload_imported: list[str] | None = None  # model packages the clean reload process had imported (none)
    interpreter: str | None = None

    @property
    def ok(self) -> bool:
        return all(f.status == "ok" for f in self.formats)

    def to_json(self) -> dict:
        return {"case": self.case, "dir": self.dir, "ok": self.ok, "batch_shapes": self.batch_shapes,
                "reload_imported": self.reload_imported, "interpreter": self.interpreter,
                "formats": [f.to_json() for f in self.formats]}

    def text(self) -> str:
        lines = [f"tfcompare export {self.case} -> {self.dir}", ""]
        head = ("format", "status", "size", "max err", "load", "first call", "steady", "original steady")
        body = []
        for f in self.formats:
            err = "-" if f.max_abs_err is None else (f"{f.max_abs_err:.1e}" + (
                f" ({f.max_rel_err:.1e} of range)" if f.max_rel_err is not None else ""))
            body.append((f.format, f.status, format_bytes(f.size_bytes), err, format_seconds(f.load_s),
                         format_seconds(f.first_call_s), format_seconds(f.steady_s),
                         format_seconds(f.original_steady_s)))
        lines += grid(head, body)
        lines.append(f"inputs checked: {self.batch_shapes}")
        if self.reload_imported is not None:
            lines.append("SavedModels reloaded in a fresh Python process that imported "
                         + ("no model code" if not self.reload_imported else f"{self.reload_imported} (!)"))
        if self.interpreter:
            lines.append(f"TFLite interpreter: {self.interpreter}")
        lines += [f"{f.format}: {f.error}" for f in self.formats if f.error]
        return "\n".join(lines)


def _check_destination(dest: Path, overwrite: bool) -> None:
    """Refuse, before any work, a destination that cannot be written or must not be replaced."""
    if len(dest.name) > _MAX_NAME:
        raise ExportError(f"the folder name {dest.name[:40]!r}... is {len(dest.name)} characters; "
                          f"at most {_MAX_NAME}")
    cwd = Path.cwd().absolute()
    if dest == cwd or dest in cwd.parents or dest.parent == dest:
        raise ExportError(f"{str(dest)!r} is the current folder, one that contains it, or a root; "
                          "export into a folder of its own")
    if dest.exists() and not dest.is_dir():
        raise ExportError(f"{str(dest)!r} exists and is not a folder")
    if dest.is_dir() and any(dest.iterdir()):
        if not overwrite:
            raise ExportError(f"{str(dest)!r} exists and is not empty; pass --overwrite to replace it")
        if not (dest / MARKER).is_file():
            raise ExportError(f"{str(dest)!r} is not a tfcompare export (it has no {MARKER} file): --overwrite "
                              "replaces only a folder a previous export wrote; choose another --to")
    parent = dest.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".tfcompare-write-test-"):
            pass
    except OSError as exc:
        raise ExportError(f"cannot write to {str(parent)!r}: {exc.strerror or exc}") from None


def _median_call(fn) -> float:
    return median_time(fn, _REPEATS)[0]


def _batches(case: Case, seed: int) -> list[dict]:
    """The case's batch, and for a case with a varying dim two more lengths (shorter and longer)."""
    rng = np.random.default_rng(seed + 1)
    out = [case.make_batch(rng, case.default_batch_size)]
    if case.make_varied_batch is not None:
        spec = next(s for s in case.inputs if s.varying)
        base = spec.shape[spec.varying[0]]
        out += [case.make_varied_batch(rng, case.default_batch_size, n) for n in (max(1, base // 2), base * 2)]
    names = [s.name for s in case.feature_specs()]
    return [{k: b[k] for k in names} for b in out]


def _save_tf2(case: Case, weights: dict, path: Path, batches: list[dict]) -> tuple[list[np.ndarray], float]:
    model = case.tf2_model(weights)
    specs = case.feature_specs()
    names = [s.name for s in specs]

    def serve(*args):
        return {"output": model(dict(zip(names, args)))}

    fn = tf.function(serve, input_signature=[tf.TensorSpec(s.signature_shape(), s.dtype, name=s.name) for s in specs])
    module = tf.Module()
    module.model, module.serve = model, fn
    tf.saved_model.save(module, str(path), signatures={"serving_default": fn.get_concrete_function()})
    outputs = [fn(*[tf.constant(b[n]) for n in names])["output"].numpy() for b in batches]
    first = [tf.constant(batches[0][n]) for n in names]
    return outputs, _median_call(lambda: fn(*first)["output"].numpy())


def _save_tf1(case: Case, weights: dict, path: Path, batches: list[dict]) -> tuple[list[np.ndarray], float]:
    graph = tf1.Graph()
    with graph.as_default():
        parts = case.build_graph(case.inputs)
        load, feeds = weight_loader(parts.variables)
        init = tf1.global_variables_initializer()
        with tf1.Session(graph=graph) as sess:
            sess.run(init)
            sess.run(load, {p: weights[n] for n, p in feeds.items()})
            inputs = {s.name: parts.inputs[s.name] for s in case.feature_specs()}
            builder = tf1.saved_model.Builder(str(path))
            signature = tf1.saved_model.signature_def_utils.predict_signature_def(
                inputs=inputs, outputs={"output": parts.output})
            builder.add_meta_graph_and_variables(sess, [tf1.saved_model.tag_constants.SERVING],
                                                 signature_def_map={"serving_default": signature})
            builder.save()
            outputs = [sess.run(parts.output, {inputs[k]: v for k, v in b.items()}) for b in batches]
            feed = {inputs[k]: v for k, v in batches[0].items()}
            steady = _median_call(lambda: sess.run(parts.output, feed))
    return outputs, steady


def _interpreter(model_content: bytes):
    try:
        from ai_edge_litert.interpreter import Interpreter  # the maintained LiteRT runtime, when installed

        return Interpreter(model_content=model_content), "ai_edge_litert"
    except ImportError:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tf.lite.Interpreter's deprecation notice: said in the report
            return tf.lite.Interpreter(model_content=model_content), "tf.lite.Interpreter (deprecated in TF 2.20+)"


def _tflite(saved_model: Path, path: Path, quantize: bool, batches, reference) -> tuple[FormatResult, str | None]:
    name = "tflite-dynamic-range" if quantize else "tflite-float"
    result = FormatResult(name, path=str(path), tolerance=TFLITE_TOLERANCE[name])
    try:
        converter = tf.lite.TFLiteConverter.from_saved_model(str(saved_model))
        if quantize:
            converter.optimizations = [tf.lite.Optimize.DEFAULT]
        content = converter.convert()
    except Exception as exc:  # ConverterError names the ops TFLite cannot convert
        result.status, result.error = "error", f"TFLite cannot convert this model: {str(exc).strip()[:2000]}"
        return result, None
    path.write_bytes(content)
    result.size_bytes = len(content)
    interpreter, which = _interpreter(content)
    runner = interpreter.get_signature_runner("serving_default")
    abs_errs, rel_errs = [], []
    for batch, ref in zip(batches, reference):
        got = runner(**batch)["output"]
        diff = float(np.max(np.abs(got - ref))) if got.shape == ref.shape else float("inf")
        abs_errs.append(diff)
        rel_errs.append(diff / max(float(np.max(np.abs(ref))), 1e-12))
    result.max_abs_err, result.max_rel_err = max(abs_errs), max(rel_errs)
    result.steady_s = _median_call(lambda: runner(**batches[0]))
    if result.max_rel_err > result.tolerance:
        result.status, result.error = "mismatch", (f"max error {result.max_rel_err:.3g} of the output range exceeds "
                                                   f"{result.tolerance:g}")
    return result, which


def _dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def export_case(case: Case, dest: str | Path, *, overwrite: bool = False, seed: int = 0,
                tflite: bool = True) -> ExportReport:
    """Export, reload in a clean process, convert, compare; move into `dest` only when all is written.

    `dest` is made absolute here, once: the reload child runs in another folder. `overwrite` replaces
    only a folder holding the marker a previous export wrote. Temporary folders left by a killed export
    into the same parent are removed first.
    """
    dest = Path(os.path.abspath(dest))  # absolute and normalised: `..` is the folder it names
    _check_destination(dest, overwrite)
    for kind in ("tmp", "old"):
        remove_dead_temp_dirs(dest.parent, f".{dest.name}.{kind}-")
    tmp = pid_temp_dir(dest.parent, f".{dest.name}.tmp-")
    try:
        report = _export_into(case, tmp, dest, seed, tflite)
        (tmp / "report.json").write_text(json_text(report.to_json()))
        (tmp / MARKER).write_text(f"written by tfcompare export {case.name}\n")
        (tmp / TEMP_MARKER).unlink()
        shared_permissions(tmp)
        if dest.exists():
            old = pid_temp_dir(dest.parent, f".{dest.name}.old-")
            os.replace(dest, old / "replaced")
            os.replace(tmp, dest)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return report


def _export_into(case: Case, tmp: Path, dest: Path, seed: int, tflite: bool) -> ExportReport:
    weights = case.init_weights(np.random.default_rng(seed))
    batches = _batches(case, seed)
    check = tmp / "check"
    check.mkdir()
    inputs = []
    for i, b in enumerate(batches):
        np.savez(check / f"inputs_{i}.npz", **b)
        inputs.append(str(check / f"inputs_{i}.npz"))
    report = ExportReport(case=case.name, dir=str(dest), formats=[],
                          batch_shapes=[{k: list(v.shape) for k, v in b.items()} for b in batches])
    manifest = {"inputs": inputs, "models": {}}
    originals = {}
    for fmt, save in (("savedmodel-tf2", _save_tf2), ("savedmodel-tf1", _save_tf1)):
        path = tmp / fmt
        result = FormatResult(fmt, path=str(dest / fmt))
        report.formats.append(result)
        try:
            outputs, result.original_steady_s = save(case, weights, path, batches)
        except Exception as exc:
            result.status, result.error = "error", f"{type(exc).__name__}: {exc}"
            continue
        result.size_bytes = _dir_size(path)
        originals[fmt] = outputs
        expected = []
        for i, out in enumerate(outputs):
            np.savez(check / f"{fmt}_expected_{i}.npz", output=out)
            expected.append(str(check / f"{fmt}_expected_{i}.npz"))
        manifest["models"][fmt] = {"dir": str(path), "expected": expected}
    (check / "manifest.json").write_text(json.dumps(manifest))
    _reload(report, check / "manifest.json")
    if tflite and "savedmodel-tf2" in originals:
        for quantize in (False, True):
            name = "tflite-dynamic-range" if quantize else "tflite-float"
            result, which = _tflite(tmp / "savedmodel-tf2", tmp / f"{name}.tflite", quantize, batches,
                                    originals["savedmodel-tf2"])
            result.path = str(dest / f"{name}.tflite")
            report.interpreter = report.interpreter or which
            report.formats.append(result)
    shutil.rmtree(check)
    return report


def _reload(report: ExportReport, manifest: Path) -> None:
    """Run `reload_check.py` in a fresh interpreter that never imports the model packages."""
    script = Path(__file__).with_name("reload_check.py")
    env = dict(os.environ, PYTHONPATH="", TF_CPP_MIN_LOG_LEVEL="2")
    by_name = {f.format: f for f in report.formats}
    try:
        proc = subprocess.run([sys.executable, "-I", str(script), str(manifest)], capture_output=True, text=True,
                              env=env, cwd=manifest.parent, timeout=_RELOAD_TIMEOUT_S, preexec_fn=die_with_parent)
        failed = None if proc.returncode == 0 else f"reload process failed: {proc.stderr[-2000:]}"
    except subprocess.TimeoutExpired:
        failed = f"reload process timed out after {_RELOAD_TIMEOUT_S} s"
    if failed:
        for name in json.loads(manifest.read_text())["models"]:
            by_name[name].status, by_name[name].error = "error", failed
        return
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    report.reload_imported = found["model_code_imported"]
    for name, values in found["models"].items():
        result = by_name[name]
        if "error" in values:
            result.status, result.error = "error", f"reload failed: {values['error']}"
            continue
        result.load_s, result.first_call_s, result.steady_s = values["load_s"], values["first_call_s"], values["steady_s"]
        result.max_abs_err = values["max_abs_err"]
        result.tolerance = 1e-5
        if result.max_abs_err > result.tolerance:
            result.status, result.error = "mismatch", f"reloaded output differs by {result.max_abs_err:.3g}"
