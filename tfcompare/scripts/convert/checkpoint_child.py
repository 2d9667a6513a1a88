"""The child of `checkpoints.convert_checkpoint`: `python -m tfcompare.scripts.convert.checkpoint_child NEW.py
TF1_CKPT OUT REPORT [--force]` runs NEW.py's setup (every top-level statement above `model = Model()`: its imports, its
constants, the Model class; nothing of its training), builds the model, loads TF1's checkpoint with the
rewrite's own `restore_tf1_checkpoint`, writes it as a TF2 checkpoint of the rewrite (OUT, object-based, what
`tf.train.Checkpoint(model=model).read(OUT)` reads), and proves it: a second, fresh model reads OUT back and each
of its variables is compared with TF1's tensor under the name the rewrite maps it from, bit for bit.

Where NEW.py has a `restore_checkpoint(path)` (its TF1 script restored a Saver's checkpoint), OUT is the checkpoint
that function reads, strictly: the model, the optimizer and the moving averages' shadows, as the rewrite's own
saves hold them. The optimizer and the averages are made by NEW.py's own module-level statements that
`restore_checkpoint` reads (`optimizer = ...`, `ema = ...`, `ema.apply(...)`: nothing else of the script runs), TF1's
checkpoint is loaded by `restore_checkpoint` itself (the shadows, the global step as the optimizer's count), and
the proof is `restore_checkpoint(OUT)` into fresh ones, as the rewrite would run it.
REPORT (JSON) says what was loaded, what of TF1's checkpoint was left and why, and any difference.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

__all__ = ["main", "setup_statements", "tf1_name_map"]

_METHOD = "restore_tf1_checkpoint"
_RESTORE = "restore_checkpoint"  # the rewrite's reader of either format (`saving.restore_helper`)


def setup_statements(tree: ast.Module) -> list:
    """NEW.py's statements above its `model = Model()` line (the whole module if it has none)."""
    out = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Name) and node.value.func.id == "Model":
            return out
        out.append(node)
    return out


def _items(node: ast.Dict) -> dict[str, str]:
    return {k.value: ast.unparse(v) for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)}


def _restore_tf1(tree: ast.Module) -> ast.FunctionDef | None:
    return next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == _METHOD), None)


def tf1_name_map(tree: ast.Module) -> dict[str, str]:
    """{TF1 variable name: the model's attribute path} from the `tf1_names = {...}` of `restore_tf1_checkpoint`."""
    method = _restore_tf1(tree)
    for stmt in ast.walk(method) if method is not None else ():
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Dict) and \
                any(isinstance(t, ast.Name) and t.id == "tf1_names" for t in stmt.targets):
            return {name: code.removeprefix("self.") for name, code in _items(stmt.value).items()}
    return {}


def _restore_parts(tree: ast.Module) -> tuple[ast.FunctionDef | None, list, dict[str, str]]:
    """NEW.py's `restore_checkpoint` function; the module-level statements after `model = Model()` that make what
    it reads (an assignment of a name it reads, a call of that name's method: `ema.apply(...)`); what else of TF1's
    checkpoint it loads beside the model, as {TF1 name: code reading it back}: each shadow of the averages it passes
    to `restore_tf1_checkpoint` (that method's `tf1_names.update({...})`: `ema.average(model.w)`), and the global
    step it assigns to the optimizer's count (`optimizer.iterations`)."""
    restore = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == _RESTORE), None)
    if restore is None:
        return None, [], {}
    read = {n.id for n in ast.walk(restore) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    made = []
    for node in tree.body[len(setup_statements(tree)) + 1:]:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                node.targets[0].id in read and node.targets[0].id != "model":
            made.append(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name) and \
                node.value.func.value.id in {a.targets[0].id for a in made}:
            made.append(node)
    calls = [c for c in ast.walk(restore) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)]
    averages = next((ast.unparse(c.args[1]) for c in calls if c.func.attr == _METHOD and len(c.args) == 2), "")
    extra = {}
    method = _restore_tf1(tree)
    for call in ast.walk(method) if averages and method is not None else ():
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "update" and \
                ast.unparse(call.func.value) == "tf1_names" and call.args and isinstance(call.args[0], ast.Dict):
            extra.update({name: code.replace("self.", "model.", 1).replace("averages.", f"{averages}.", 1)
                          for name, code in _items(call.args[0]).items()})  # `averages.average(self.w)`
    for c in calls:  # `optimizer.iterations.assign(reader.get_tensor('global_step'))`
        if c.func.attr == "assign" and isinstance(c.func.value, ast.Attribute) and \
                c.func.value.attr == "iterations" and c.args and isinstance(c.args[0], ast.Call) and \
                c.args[0].args and isinstance(c.args[0].args[0], ast.Constant):
            extra[c.args[0].args[0].value] = ast.unparse(c.func.value)
    return restore, made, extra


def _rewrites_checkpoint(restore: ast.FunctionDef, scope: dict):
    """The `tf.train.Checkpoint(...)` that `restore_checkpoint` reads, made in SCOPE (its `averages = [...]` first)."""
    local = dict(scope)
    for node in restore.body:
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["averages"]:
            local["averages"] = eval(compile(ast.Expression(node.value), "<restore_checkpoint>", "eval"), local)
    for node in ast.walk(restore):
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("train.Checkpoint"):
            return eval(compile(ast.Expression(node), "<restore_checkpoint>", "eval"), local)
    return None


def _left_why(name: str) -> str:
    last = name.rsplit("/", 1)[-1]
    if last in ("Adam", "Adam_1", "Momentum", "RMSProp", "RMSProp_1", "Adagrad", "Ftrl", "Ftrl_1") or \
            name.startswith(("beta1_power", "beta2_power")):
        return "optimizer slot (not loaded: TF1's slots do not map one to one onto Keras's)"
    if "global_step" in name:
        return "TF1's step counter (the rewrite's is optimizer.iterations)"
    if last == "ExponentialMovingAverage":
        return "a moving average's shadow (the rewrite keeps it in its ExponentialMovingAverage, outside the model)"
    return "not a variable of the rewrite's model"


def main(argv: list[str]) -> int:
    script, tf1, out, report = str(Path(argv[0]).resolve()), argv[1], Path(argv[2]), Path(argv[3])
    force = "--force" in argv[4:]
    from tfcompare.core.files import write_atomic
    from tfcompare.scripts.child.loaders import install as replace_loaders

    result = {"status": "failed", "error": "", "loaded": [], "left": [], "checked": 0, "differs": [], "notes": [],
              "reader": ""}
    try:
        import numpy as np
        import tensorflow as tf

        source = Path(script).read_text(encoding="utf-8")
        tree = ast.parse(source, script)
        names = tf1_name_map(tree)
        restore, made, extra = _restore_parts(tree)
        replace_loaders(result["notes"])  # a dataset download in the setup is synthetic here: no network
        scope = {"__name__": "__tfcompare_setup__", "__file__": script}
        sys.argv = [script]
        sys.path.insert(0, str(Path(script).parent))
        checkpoint = None
        try:
            exec(compile(ast.Module(setup_statements(tree), []), script, "exec"), scope)
            model = scope["model"] = scope["Model"]()
            if restore is not None:
                try:
                    exec(compile(ast.Module([*made, restore], []), script, "exec"), scope)
                except Exception as exc:  # e.g. an optimizer built from names its training defines
                    result["notes"].append(
                        f"{_RESTORE}'s optimizer and averages could not be made on their own ({type(exc).__name__}: "
                        f"{str(exc)[:150]}): OUT holds the model only, which tf.train.Checkpoint(model=model) reads "
                        f"and {_RESTORE} does not")
                else:
                    scope[_RESTORE](tf1)  # the rewrite's own reading of a TF1 checkpoint: model, shadows, step count
                    checkpoint = _rewrites_checkpoint(restore, scope)
            if checkpoint is None:
                getattr(model, _METHOD)(tf1)
        except Exception as exc:  # the rewrite's own code (or the checkpoint's content): said, not a crash
            frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == script]
            where = f" at line {frames[-1].lineno}: {(frames[-1].line or '').strip()[:100]}" if frames else ""
            result.update(status="script-failed", error=f"{type(exc).__name__}: {str(exc)[:300]}{where}")
            return 0
        reader = tf.train.load_checkpoint(tf1)
        read = {name: f"model.{path}" for name, path in names.items()}
        if checkpoint is not None:
            read.update({name: code for name, code in extra.items() if reader.has_tensor(name)})
        result["loaded"] = sorted(read)
        result["left"] = [{"name": n, "why": _left_why(n)} for n in sorted(reader.get_variable_to_shape_map())
                          if n not in read]
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name[:60]}.", dir=out.parent))
        try:
            (checkpoint or tf.train.Checkpoint(model=model)).write(str(staging / out.name))
            if checkpoint is not None:  # read back as the rewrite reads its own checkpoints, strictly
                fresh = scope["model"] = scope["Model"]()
                exec(compile(ast.Module(made, []), script, "exec"), scope)
                scope[_RESTORE](str(staging / out.name))
                result["reader"] = _RESTORE
                counted = any(code.endswith(".iterations") for code in read.values())
                averaged = any(".average(" in code for code in read.values())
                result["notes"].append("written as the rewrite saves its own: the model, the optimizer"
                                       + (" (its step count TF1's global step)" if counted else "")
                                       + (", the moving averages' shadows" if averaged else ""))
            else:
                fresh = scope["Model"]()
                tf.train.Checkpoint(model=fresh).read(str(staging / out.name)).assert_existing_objects_matched()
            for name, code in read.items():
                value = eval(code, {**scope, "model": fresh})
                mine, theirs = np.asarray(value.numpy()), reader.get_tensor(name)
                result["checked"] += 1
                if mine.shape != theirs.shape or not np.array_equal(mine, theirs):
                    gap = float(np.max(np.abs(mine.astype(np.float64) - theirs))) if mine.shape == theirs.shape \
                        else None
                    result["differs"].append({"name": name, "read_as": code, "max_abs": gap})
            taken = [p.name for p in staging.iterdir() if (out.parent / p.name).exists()]
            if taken and not force:  # written there since the command checked: never replaced unasked
                raise FileExistsError(f"{', '.join(sorted(taken))} appeared in {out.parent} meanwhile; not replaced")
            if not result["differs"]:
                for part in sorted(staging.iterdir()):  # the index last: a reader finds all or nothing
                    if not part.name.endswith(".index"):
                        os.replace(part, out.parent / part.name)
                for part in staging.iterdir():
                    os.replace(part, out.parent / part.name)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        result["status"] = "differs" if result["differs"] else "ok"
    except Exception as exc:
        result.update(status="failed", error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc())
    finally:
        write_atomic(report, json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
