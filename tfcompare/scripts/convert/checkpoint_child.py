"""The child of `checkpoints.convert_checkpoint`: `python -m tfcompare.scripts.convert.checkpoint_child NEW.py
TF1_CKPT OUT REPORT [--force]` runs NEW.py's setup (every top-level statement above `model = Model()`: its imports, its
constants, the Model class; nothing of its training), builds the model, loads TF1's checkpoint with the
rewrite's own `restore_tf1_checkpoint`, writes it as a TF2 checkpoint of the rewrite (OUT, object-based, what
`tf.train.Checkpoint(model=model).read(OUT)` reads), and proves it: a second, fresh model reads OUT back and each
of its variables is compared with TF1's tensor under the name the rewrite maps it from, bit for bit.
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


def setup_statements(tree: ast.Module) -> list:
    """NEW.py's statements above its `model = Model()` line (the whole module if it has none)."""
    out = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Name) and node.value.func.id == "Model":
            return out
        out.append(node)
    return out


def tf1_name_map(tree: ast.Module) -> dict[str, str]:
    """{TF1 variable name: the model's attribute path} from the `tf1_names = {...}` of `restore_tf1_checkpoint`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == _METHOD:
            for stmt in ast.walk(node):
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Dict) and \
                        any(isinstance(t, ast.Name) and t.id == "tf1_names" for t in stmt.targets):
                    return {k.value: ast.unparse(v).removeprefix("self.") for k, v in
                            zip(stmt.value.keys, stmt.value.values) if isinstance(k, ast.Constant)}
    return {}


def _attr(model, path: str):
    value = model
    for part in path.split("."):
        value = getattr(value, part)
    return value


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

    result = {"status": "failed", "error": "", "loaded": [], "left": [], "checked": 0, "differs": [], "notes": []}
    try:
        import numpy as np
        import tensorflow as tf

        source = Path(script).read_text(encoding="utf-8")
        tree = ast.parse(source, script)
        names = tf1_name_map(tree)
        replace_loaders(result["notes"])  # a dataset download in the setup is synthetic here: no network
        scope = {"__name__": "__tfcompare_setup__", "__file__": script}
        sys.argv = [script]
        sys.path.insert(0, str(Path(script).parent))
        try:
            exec(compile(ast.Module(setup_statements(tree), []), script, "exec"), scope)
            model = scope["Model"]()
            getattr(model, _METHOD)(tf1)
        except Exception as exc:  # the rewrite's own code (or the checkpoint's content): said, not a crash
            frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == script]
            where = f" at line {frames[-1].lineno}: {(frames[-1].line or '').strip()[:100]}" if frames else ""
            result.update(status="script-failed", error=f"{type(exc).__name__}: {str(exc)[:300]}{where}")
            return 0
        reader = tf.train.load_checkpoint(tf1)
        result["loaded"] = sorted(names)
        result["left"] = [{"name": n, "why": _left_why(n)} for n in sorted(reader.get_variable_to_shape_map())
                          if n not in names]
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name[:60]}.", dir=out.parent))
        try:
            tf.train.Checkpoint(model=model).write(str(staging / out.name))
            fresh = scope["Model"]()
            tf.train.Checkpoint(model=fresh).read(str(staging / out.name)).assert_existing_objects_matched()
            for name, path in names.items():
                mine, theirs = np.asarray(_attr(fresh, path).numpy()), reader.get_tensor(name)
                result["checked"] += 1
                if mine.shape != theirs.shape or not np.array_equal(mine, theirs):
                    gap = float(np.max(np.abs(mine.astype(np.float64) - theirs))) if mine.shape == theirs.shape \
                        else None
                    result["differs"].append({"name": name, "attr": path, "max_abs": gap})
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
