"""The glossary: the code's word list and README.md's `## Glossary` entries are the same words, and a command's
text ends with one line naming the words it used, in the order it used them."""

import re
from pathlib import Path

from tfcompare.core.results import ModeResult, RunResult
from tfcompare.report.glossary import ANCHOR, WORDS, with_words, words_in, words_line
from tfcompare.report.tables import table

README = Path(__file__).resolve().parent.parent / "README.md"


def _readme_terms() -> list[str]:
    text = README.read_text()
    section = text.split("\n## Glossary\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^- \*\*(.+?)\*\*: ", section, re.M)


def test_every_code_word_has_a_readme_entry_and_every_entry_a_code_word():
    terms = _readme_terms()
    assert len(terms) == 28 and len(set(terms)) == 28
    assert terms == [w.term for w in WORDS]  # the same words, in the same order
    assert ANCHOR == "README.md#glossary"


def test_the_words_are_named_in_the_order_of_their_first_use():
    text = "XLA fused 3 ops into one kernel (HLO below); Grappler's remapper did the rest; the median step 2 ms"
    assert words_in(text) == ["XLA / jit_compile", "fusion", "HLO", "Grappler", "remapping", "median"]
    assert words_line(text) == ("words: XLA / jit_compile, fusion, HLO, Grappler, remapping, median: "
                                "see README.md#glossary")
    # forms: RETRACED is a retrace, tf2-eager is eager, "95% CI" the interval; NOISY only in capitals
    assert words_in("RETRACED x2 in tf2-eager, 95% CI 0.9-1.1, noisy") == [
        "trace / retrace", "eager execution", "95% confidence interval"]
    assert words_in("fusing") == [] and words_in("a fuse") == []  # not a glossary form: no false link


def test_a_text_without_glossary_words_is_unchanged_and_one_with_them_gets_one_line():
    assert with_words("results: /tmp/t/results.json") == "results: /tmp/t/results.json"
    out = with_words("the IQR of the steps\nthe noise floor")
    assert out.splitlines() == ["the IQR of the steps", "the noise floor", "words: IQR, noise floor: see README.md#glossary"]


def test_the_run_table_ends_with_the_words_it_uses():
    rows = [ModeResult(case="mm", mode="tf1-graph", step_median_s=2e-3, speedup_vs_tf1_graph=1.0, noisy=False),
            ModeResult(case="mm", mode="tf2-eager", step_median_s=4e-3, speedup_vs_tf1_graph=0.5,
                       speedup_ci=[0.4, 0.6], noisy=True)]
    result = RunResult(run_name="t", run_dir="/tmp/t", config={}, environment={"gemm_peak_gflops": 100.0},
                       results=rows)
    lines = with_words(table(result)).splitlines()
    assert lines[-1] == ("words: first call vs steady state, median, IQR, speed-up, 95% confidence interval, "
                         "eager execution, op-bound, NOISY, trace / retrace, tf.function, round / block, GEMM rate: "
                         "see README.md#glossary")
    assert sum(line.startswith("words: ") for line in lines) == 1


def test_the_learner_s_second_words_are_found_in_their_forms():
    text = ("of peak of the GEMM rate; op-bound steps show µs/op; peak mem from the BFC allocator; tf1 block / mode "
            "block over 6 rounds; judged interval 5.4-102x; Levers: tf2-partial; a StatelessIf holds both branches")
    assert words_in(text) == ["GEMM rate", "op-bound", "BFC allocator", "round / block", "judged interval", "lever",
                              "partial conversion", "Stateless ops"]
    assert words_in("partial conversion, StatelessWhile, StatelessRandomNormalV2") == [
        "partial conversion", "Stateless ops"]
    assert words_in("2 residual blocks, a blocking call, Stateless") == []  # not a glossary form
