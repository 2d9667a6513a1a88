"""The dependency rule (README, "Layout") holds on the real import graph, and the check catches a violation.

`lint-imports` reads the contracts in setup.cfg; a second check finds import cycles between modules,
which a layers contract cannot see inside one layer. Both run in a fresh process on a copy of the tree
for the violation tests, so the copy, not the installed package, is what they read.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tfcompare", "legacy_graphs", "eager_models")

_CHECK = r"""
import contextlib, io, json, sys
import grimp
from importlinter.cli import lint_imports

out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = lint_imports(config_filename="setup.cfg")
graph = grimp.build_graph("tfcompare", "legacy_graphs", "eager_models")
mods = sorted(m for m in graph.modules if m.split(".")[0] in ("tfcompare", "legacy_graphs", "eager_models"))
edges = {m: {i for i in graph.find_modules_directly_imported_by(m) if i in mods and i != m} for m in mods}
# strongly connected components (iterative Tarjan): a component of more than one module is a cycle
index, low, on, stack, cycles, counter = {}, {}, set(), [], [], [0]
for root in mods:
    if root in index:
        continue
    work = [(root, iter(sorted(edges[root])))]
    index[root] = low[root] = counter[0]; counter[0] += 1; stack.append(root); on.add(root)
    while work:
        v, it = work[-1]
        w = next(it, None)
        if w is not None:
            if w not in index:
                index[w] = low[w] = counter[0]; counter[0] += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(edges[w]))))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))
print(json.dumps({"lint_exit": code, "lint_output": out.getvalue(), "cycles": cycles}))
"""


def _check(tree: Path) -> dict:
    """Run both checks in a fresh interpreter whose import path starts at `tree`."""
    proc = subprocess.run([sys.executable, "-c", _CHECK], cwd=tree, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture
def tree_copy(tmp_path):
    for name in PACKAGES:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "setup.cfg", tmp_path / "setup.cfg")
    return tmp_path


def _add_import(tree: Path, module: str, line: str) -> None:
    path = tree / (module.replace(".", "/") + ".py")
    path.write_text(path.read_text() + f"\n{line}\n")


def test_the_real_tree_keeps_every_contract_and_has_no_cycle():
    found = _check(ROOT)
    assert found["lint_exit"] == 0, found["lint_output"]
    assert "9 kept, 0 broken" in found["lint_output"]
    assert found["cycles"] == []


@pytest.mark.parametrize("module,line,broken", [
    ("tfcompare.core.timing", "from tfcompare.run import harness", "tfcompare layers"),
    ("tfcompare.report.format", "import tfcompare.tools.inspect", "tfcompare layers"),
    ("tfcompare.tools.export", "import tfcompare.tools.audit", "each tool stands alone"),
    ("tfcompare.core.cases", "import legacy_graphs", "core imports nothing but itself"),
    ("legacy_graphs.linear", "import tfcompare.run.harness", "the zoo imports only the public case contract"),
    ("eager_models.keras_lstm", "from legacy_graphs.lstm_cell import build", "a case's TF2 model and its TF1 graph"),
    ("tfcompare.run.levers", "import tfcompare.scripts.child.noise", "the case half and the script half never"),
    ("tfcompare.claims.claim", "import tfcompare.scripts.pair", "the case half and the script half never"),
    ("tfcompare.scripts.child.noise", "import tfcompare.run.harness", "tfcompare layers"),
    ("tfcompare.core.files", "import tfcompare.scripts.legacy", "tfcompare layers"),
    ("tfcompare.scripts.pair.diagnose", "import tfcompare.scripts.convert", "the script half: convert over pair"),
    ("tfcompare.scripts.run_tf1", "import tfcompare.scripts.pair", "the script half: convert over pair"),
    ("tfcompare.scripts.child.record", "import tfcompare.scripts.run_tf1", "the script half: convert over pair"),
    ("tfcompare.scripts.legacy.rnn", "import tfcompare.scripts.child.loaders", "the legacy runtime imports nothing"),
])
def test_a_violation_breaks_its_contract(tree_copy, module, line, broken):
    _add_import(tree_copy, module, line)
    found = _check(tree_copy)
    assert found["lint_exit"] == 1
    assert f"{broken}" in found["lint_output"] and "BROKEN" in found["lint_output"]


# Modules allowed past the line limit, each with why (none today: add one only with a reason a reader accepts).
_LONG_MODULES: dict[str, str] = {}
_MAX_LINES = 450


def test_no_module_holds_more_than_one_concept_by_length():
    long = {str(p.relative_to(ROOT)): n for p in sorted((ROOT / "tfcompare").rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > _MAX_LINES}
    assert {k: v for k, v in long.items() if k not in _LONG_MODULES} == {}
    assert set(_LONG_MODULES) <= set(long), "an exception that no longer needs to be one"


def test_every_module_says_what_it_is_for():
    import ast

    missing = [str(p.relative_to(ROOT)) for p in sorted(ROOT.glob("*/**/*.py"))
               if p.parts[len(ROOT.parts)] in PACKAGES and p.read_text().strip()
               and not ast.get_docstring(ast.parse(p.read_text()))]
    assert missing == []


def test_a_cycle_inside_one_layer_is_found(tree_copy):
    _add_import(tree_copy, "tfcompare.core.timing", "import tfcompare.core.runners")  # runners imports timing
    assert ["tfcompare.core.runners", "tfcompare.core.timing"] in _check(tree_copy)["cycles"]


def test_the_case_writing_api_has_one_import_root_and_old_names_still_work():
    import eager_models
    import legacy_graphs
    import tfcompare
    from tfcompare import cases as old_cases

    for name in ("Case", "InputSpec", "GraphParts", "CaseError", "placeholders", "graph_parts", "tf1", "StepModule",
                 "SGD", "Momentum", "Adam", "RMSProp", "Adagrad", "KerasStep", "load_cases_file"):
        assert getattr(tfcompare, name) is not None, name
    assert tfcompare.Case is old_cases.Case
    assert legacy_graphs.placeholders is tfcompare.placeholders and legacy_graphs.graph_parts is tfcompare.graph_parts
    assert eager_models.StepModule is tfcompare.StepModule and eager_models.Momentum is tfcompare.Momentum
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        tfcompare.Nope  # noqa: B018
