"""Shared fixtures: one quick real run of every built-in case in every mode, reused by many tests."""

import dataclasses
import fcntl
import os
import pickle
import subprocess
import sys
import textwrap

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import pytest  # noqa: E402

from convert_corpus import written_code  # noqa: E402,F401 (the tests' too)

from tfcompare.run import harness  # noqa: E402
from tfcompare.core.modes import LEVER_MODES, MODES  # noqa: E402
from tfcompare.registry import CASES  # noqa: E402

QUICK_TEST = dict(steps=3, repeats=6, min_block_s=0.002, loop_steps=4, threads=2)  # 6: the fewest rounds with a 95% CI

# The full run covers every case in every core mode, and the lever modes on the cases whose structure they meet
# differently (Python and custom-gradient ops; varying dims and control flow in a loop); the heaviest graphs skip
# them (a third of the suite's time) and their lever rows say why.
_NOT_HERE = "not run on this case in the test suite's full run (time)"
_SKIPPED = {**{name: LEVER_MODES for name in ("elementwise", "cnn", "resnet", "keras-lstm")},
            # varying dims and control flow keep the lever their structure meets: a K-step loop
            **{name: ("tf2-partial", "tf2-concrete", "tf2-xla-loop") for name in ("rnn", "control_flow")}}
FULL_CASES = {
    name: dataclasses.replace(case, unsupported_modes={**{m: _NOT_HERE for m in _SKIPPED[name]},
                                                       **case.unsupported_modes}) if name in _SKIPPED else case
    for name, case in CASES.items()}


def run_written_scripts(folder, names: list[str]) -> subprocess.CompletedProcess:
    """Run the TF2 scripts `convert` wrote to folder/NAME_tf2.py with --steps 3, in one process with no tfcompare
    on its path; stdout says RUN NAME before each and, at the end, whether anything imported tfcompare."""
    runner = textwrap.dedent(f"""
        import runpy, sys
        for name in {list(names)!r}:
            sys.argv = [name, "--steps", "3"]
            print("RUN", name, flush=True)
            runpy.run_path({str(folder)!r} + "/" + name + "_tf2.py", run_name="__main__")
        print("TFCOMPARE", any(m.startswith("tfcompare") for m in sys.modules))
    """)
    return subprocess.run([sys.executable, "-c", runner], capture_output=True, text=True, timeout=300, cwd=folder,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(folder), "TF_CPP_MIN_LOG_LEVEL": "2"})


def _full_run(logdir):
    config = harness.RunConfig(cases=tuple(FULL_CASES), modes=tuple(MODES), **QUICK_TEST)
    return harness.run(config, FULL_CASES, logdir, "full")


@pytest.fixture(scope="session")
def full_run(tmp_path_factory):
    """Every built-in case in every mode (core and lever), on real TensorFlow, with short timing. Made once per
    test session: under pytest-xdist the first worker that needs it runs it (2-3 minutes of a core) in the folder
    the workers share, and the others wait for it and read it (before, each worker ran its own)."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return _full_run(tmp_path_factory.mktemp("logs"))
    shared = tmp_path_factory.getbasetemp().parent  # pytest-N, above each worker's popen-gwN
    with open(shared / "full_run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / "full_run.pickle"
        if done.exists():
            return pickle.loads(done.read_bytes())
        result = _full_run(shared / "full_run_logs")
        staged = shared / "full_run.pickle.part"
        staged.write_bytes(pickle.dumps(result))
        os.replace(staged, done)
        return result


def written_model_class(text: str):
    """A written TF2 script's `Model` class (and the script's tree): its imports, module-level functions, the
    module-level names the class reads (`rng = numpy.random`, bound by a plain assignment above it) and the class
    run in a fresh namespace, without the script's training."""
    import ast

    tree = ast.parse(text)
    model = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model")
    read = {n.id for n in ast.walk(model) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for n in tree.body:  # `args = parser.parse_args()`: the parser's defaults, not pytest's command line
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and \
                getattr(n.value.func, "attr", "") == "parse_args" and not n.value.args:
            n.value.args = [ast.List([], ast.Load())]
    while True:  # and what those assignments read (`n_samples = train_X.shape[0]` needs train_X)
        keep = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef)) or n is model
                or (isinstance(n, ast.Assign) and n.lineno < model.lineno
                    and {t.id for t in n.targets if isinstance(t, ast.Name)} & read)
                or (isinstance(n, ast.Expr) and n.lineno < model.lineno and "add_argument" in ast.unparse(n)
                    and "parser" in read)]
        more = read | {n.id for k in keep if isinstance(k, ast.Assign) for n in ast.walk(k.value)
                       if isinstance(n, ast.Name)}
        if more == read:
            break
        read = more
    scope: dict = {}
    exec(compile(ast.fix_missing_locations(ast.Module(keep, [])), "<written>", "exec"), scope)
    return scope["Model"], tree


def provenance(text: str, code: str) -> set[int]:
    """The TF1 line numbers named by the block comment above the written line that starts with `code` (the
    convert writer says provenance once per block: `# TF1 lines 35-37, 40`); empty when there is none."""
    import re

    lines = text.splitlines()
    i = next(i for i, line in enumerate(lines) if line.strip().startswith(code))
    indent = len(lines[i]) - len(lines[i].lstrip())
    while i > 0:
        i -= 1
        line = lines[i].strip()
        m = re.fullmatch(r"# TF1 lines? ([\d, -]+)", line)
        if m:
            out = set()
            for part in m[1].split(", "):
                a, _, b = part.partition("-")
                out |= set(range(int(a), int(b or a) + 1))
            return out
        if not line or len(lines[i]) - len(lines[i].lstrip()) != indent:
            return set()
    return set()


def _open_brackets(line: str) -> int:
    """Brackets `line` opens and leaves open (strings and comments left out)."""
    import io
    import tokenize

    depth = 0
    try:
        for t in tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline):
            if t.type == tokenize.OP and t.string in "([{":
                depth += 1
            elif t.type == tokenize.OP and t.string in ")]}":
                depth -= 1
    except (tokenize.TokenError, SyntaxError):
        pass  # the statement goes on below: the brackets counted so far are the ones left open
    return depth


def unwrapped(text: str) -> str:
    """A written script with the breaks `convert.line_width` made joined again (a head ending in an open bracket,
    its argument lines, the closing bracket alone), the head's comment at the end: as the statement read before
    it was wrapped, so a test can match a statement whatever the width."""
    import re

    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        m = re.fullmatch(r"(\s*)(.*[(\[{])(  (#.*))?", lines[i])
        if m:
            end = next((j for j in range(i + 1, len(lines)) if re.fullmatch(m[1] + r"[)\]}].*", lines[j])), None)
            if end is not None and all(line.startswith(m[1] + "    ") for line in lines[i + 1:end]):
                nested = unwrapped("\n".join(lines[i + 1:end])).split("\n")  # an argument broken again
                inner = " ".join(line.strip() for line in nested).rstrip(",")
                out.append(f"{m[1]}{m[2]}{inner}{lines[end].strip()}" + (f"  {m[4]}" if m[4] else ""))
                i = end + 1
                continue
        depth = _open_brackets(lines[i])
        if depth > 0 and not lines[i].rstrip().endswith(("(", "[", "{")):  # arguments filled after the bracket
            joined, j = lines[i], i + 1
            while depth > 0 and j < len(lines):
                joined, depth, j = joined + " " + lines[j].strip(), depth + _open_brackets(lines[j]), j + 1
            if depth == 0:
                out.append(joined)
                i = j
                continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)

