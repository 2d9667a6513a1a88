"""`tfcompare pair` verdicts repeated (benchmark: minutes): faithful pairs agree every time, planted bugs differ
every time with their cause. `python tests/test_tools_pair_repeats.py [REPEATS]` prints the README's table."""

import statistics
import sys
import time
from pathlib import Path

import pytest

from tfcompare.scripts.pair import AGREE, DIFFER, PairOptions, pair_scripts

PAIRS = Path(__file__).parent / "data" / "pairs"
DEEP = (PAIRS / "tf1_deep.py", PAIRS / "tf2_deep_raw.py")
DEEP_FIT = (PAIRS / "tf1_deep.py", PAIRS / "tf2_deep_keras.py")

# (label, (tf1, tf2), args)
FAITHFUL = [
    *[(f"raw, {o}, weights std {s}", DEEP, ("--optimizer", o, "--std", s))
      for o in ("adam", "momentum", "rmsprop") for s in ("0.01", "1", "4")],
    *[(f"Keras fit, {o}, weights std {s}", DEEP_FIT, ("--optimizer", o, "--std", s))
      for o in ("adam", "momentum") for s in ("0.01", "1")],
]
# (label, (tf1, tf2), args, the finding kind that names the cause)
BUGS = [
    ("learning rate x10", DEEP, ("--bug", "lr10"), "learning_rate"),
    ("Adam epsilon 1e-7 vs 1e-8", DEEP, ("--bug", "epsilon", "--std", "0.01"), "setting"),
    ("momentum 0.99 vs 0.9", DEEP, ("--optimizer", "momentum", "--bug", "momentum"), "setting"),
    ("loss summed, not averaged", DEEP, ("--bug", "sum"), "reduction"),
    ("a missing ReLU", DEEP, ("--bug", "noact"), "extra_op"),
    ("Glorot uniform vs random_normal", DEEP, ("--bug", "init"), "initialisation"),
    ("images not /255", DEEP, ("--bug", "scale"), "inputs"),
    ("images transposed", DEEP, ("--bug", "transpose"), "inputs"),
    ("batch 64 vs 100", DEEP, ("--bug", "batch64"), "inputs"),
]


def _run(pair, args):
    started = time.perf_counter()
    result = pair_scripts(*pair, PairOptions(steps=3, args=tuple(args)))
    return result, time.perf_counter() - started


class _Lines(list):
    """Lines printed as they come, so an interrupted run keeps what finished."""

    def append(self, line):
        print(line, flush=True)
        super().append(line)

    def __iadd__(self, lines):
        for line in lines:
            self.append(line)
        return self


def table(repeats: int, faithful: bool = True) -> list[str]:
    lines = _Lines()
    lines += ["| pair (`tests/data/pairs/`, args) | agree / runs | median s |", "|---|---|---|"]
    for label, pair, args in FAITHFUL if faithful else []:
        runs = [_run(pair, args) for _ in range(repeats)]
        agree = sum(r.status == AGREE for r, _ in runs)
        median = statistics.median(s for _, s in runs)
        lines.append(f"| {label} (`{' '.join(args)}`) | {agree} / {repeats} | {median:.1f} |")
        for r, _ in runs:
            if r.status != AGREE:
                print("\n".join(r.lines()), file=sys.stderr)
    lines += ["", "| planted bug (`tf2_deep_raw.py --bug ...`) | verdict | cause named |", "|---|---|---|"]
    for label, pair, args, kind in BUGS:
        r, _ = _run(pair, args)
        cause = next((f.text for f in r.findings if f.kind == kind), "(not named)")
        lines.append(f"| {label} | {r.status} | `{cause}` |")
    return lines


@pytest.mark.benchmark
@pytest.mark.parametrize("label,pair,args", FAITHFUL, ids=[f[0] for f in FAITHFUL])
def test_a_faithful_pair_agrees_ten_times_in_ten(label, pair, args):
    verdicts = [pair_scripts(*pair, PairOptions(steps=3, args=args)) for _ in range(10)]
    assert [r.status for r in verdicts] == [AGREE] * 10, "\n".join(
        "\n".join(r.lines()) for r in verdicts if r.status != AGREE)


@pytest.mark.benchmark
@pytest.mark.parametrize("label,pair,args,kind", BUGS, ids=[b[0] for b in BUGS])
def test_a_planted_bug_differs_with_its_cause_every_time(label, pair, args, kind):
    for _ in range(3):
        result = pair_scripts(*pair, PairOptions(steps=3, args=args))
        assert result.status == DIFFER and kind in {f.kind for f in result.findings}, "\n".join(result.lines())


if __name__ == "__main__":  # [REPEATS] [bugs: the planted bugs only]
    table(int(sys.argv[1]) if len(sys.argv) > 1 else 10, "bugs" not in sys.argv)
