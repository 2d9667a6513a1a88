"""The paired-run harness on real TensorFlow: every built-in case agrees in every mode."""

import dataclasses
import json

import numpy as np
import pytest

from tfcompare.run import harness
from tfcompare.core.cases import load_cases_file
from tfcompare.core.equivalence import TOLERANCES, Tolerance
from tfcompare.core.modes import MODES
from tfcompare.registry import CASES

from conftest import FULL_CASES, QUICK_TEST

RESULT_KEYS = {"case", "mode", "status", "error", "build_s", "first_call_s", "step_median_s", "step_iqr_s",
               "samples", "noisy", "traces", "peak_memory_bytes", "max_abs_err", "max_rel_err",
               "speedup_vs_tf1_graph"}
PAIRS = [(c, m) for c in FULL_CASES for m in MODES if m not in FULL_CASES[c].unsupported_modes]


@pytest.mark.parametrize("case,mode", PAIRS)
def test_every_case_agrees_with_tf1_in_every_mode(full_run, case, mode):
    row = full_run.find(case, mode)
    assert row.status == "ok", row.error
    override = CASES[case].tolerances.get(mode)
    tol = Tolerance(*override) if override else TOLERANCES[CASES[case].dtype]
    assert row.tolerance == str(tol)
    # every compared quantity within |x - ref| <= atol + rtol |ref|, so the abs error is bounded by that
    checks = row.equivalence["checks"]
    names = {c["name"] for c in checks}
    assert {"forward", "losses"} <= names
    assert any(n.startswith("gradients[") for n in names) and any(n.startswith("weights[") for n in names)
    assert all(c["ok"] for c in checks)
    if mode == "tf1-graph":
        assert row.max_abs_err == 0.0  # the reference against itself
    assert row.max_abs_err < 1e-3


@pytest.mark.parametrize("case,mode", PAIRS)
def test_trace_counts_are_exact_and_nothing_retraced_while_timing(full_run, case, mode):
    row = full_run.find(case, mode)
    expected = 1 if MODES[mode].traced else 0
    assert row.traces == expected
    assert row.retraces_during_timing == 0


def test_timing_fields_are_consistent(full_run):
    for row in (r for r in full_run.results if r.status != "skipped"):  # skipped rows have no timing
        assert row.samples == QUICK_TEST["repeats"] == len(row.step_times_s)
        assert row.step_median_s == pytest.approx(float(np.median(row.step_times_s)), rel=1e-12)
        q1, q3 = np.percentile(row.step_times_s, [25, 75])
        assert row.step_iqr_s == pytest.approx(q3 - q1, rel=1e-9, abs=1e-15)
        assert row.first_call_s > 0 and row.build_s >= 0
        assert row.steps_per_call == (QUICK_TEST["loop_steps"] if MODES[row.mode].loop else 1)
        ref = full_run.find(row.case, "tf1-graph")
        # paired by round: the median of the per-round ratios, inside its 95% interval (6 rounds: [min, max])
        ratios = sorted(np.array(ref.step_times_s) / np.array(row.step_times_s))
        if row.mode == "tf1-graph":
            assert row.speedup_vs_tf1_graph == 1.0 and row.speedup_ci is None
            assert row.step_ci_s == [min(row.step_times_s), max(row.step_times_s)]
            continue
        assert row.speedup_vs_tf1_graph == pytest.approx(float(np.median(ratios)), rel=1e-12)
        assert row.speedup_ci == pytest.approx([ratios[0], ratios[-1]], rel=1e-12)
        half = max(ratios[-1] / row.speedup_vs_tf1_graph - 1, 1 - ratios[0] / row.speedup_vs_tf1_graph)
        assert row.noisy == (half > 0.05 or bool(row.retraces_during_timing))


def test_results_json_contract(full_run):
    doc = json.loads((harness.Path(full_run.run_dir) / "results.json").read_text())
    env = doc["environment"]
    for key in ("tf_version", "devices", "intra_op_threads", "inter_op_threads", "cpu_count", "timer_overhead_s"):
        assert key in env
    assert env["intra_op_threads"] == env["inter_op_threads"] == QUICK_TEST["threads"]
    assert len(doc["results"]) == len(CASES) * len(MODES)  # one row per case x mode, skipped ones too
    for row in doc["results"]:
        assert RESULT_KEYS <= set(row)
    assert doc["ok"] is True and doc["interrupted"] is False
    # where each case's time went, and how its rounds stopped (a fixed count here: --repeats)
    assert [c["case"] for c in doc["cases"]] == list(CASES)
    for c in doc["cases"]:
        assert c["sampling"]["rounds"] == QUICK_TEST["repeats"] and c["sampling"]["stopped"] == "fixed"
        assert c["phases_s"]["timing"] > 0 and c["phases_s"]["build, first calls, warm-up"] > 0
        assert set(c["phases_cpu_s"]) == {k for k in c["phases_s"] if not k.startswith("of which")}


def test_large_buffers_show_in_peak_memory(full_run):
    # matmul's 1024x1024 weights gradient (4 MiB) is far above the CPU allocator's tracking threshold
    for mode in ("tf1-graph", "tf2-eager", "tf2-function"):
        assert full_run.find("matmul", mode).peak_memory_bytes >= 4 * 1024 * 1024


def test_a_mode_that_raises_is_an_error_row_and_the_rest_still_run(tmp_path):
    registry = {c.name: c for c in load_cases_file("tests/data/user_cases.py")}
    config = harness.RunConfig(cases=("user-eager-breaks", "user-regression"),
                               modes=("tf1-graph", "tf2-eager", "tf2-function"), **QUICK_TEST)
    result = harness.run(config, registry, tmp_path, "broken")
    broken = result.find("user-eager-breaks", "tf2-eager")
    assert broken.status == "error"
    assert "only works inside tf.function" in broken.error
    assert result.find("user-eager-breaks", "tf2-function").status == "ok"
    assert all(r.status == "ok" for r in result.results if r.case == "user-regression")
    assert not result.ok
    doc = json.loads((tmp_path / "broken" / "results.json").read_text())
    assert [r["status"] for r in doc["results"]] == ["ok", "error", "ok", "ok", "ok", "ok"]


def test_a_wrong_rewrite_is_a_mismatch_with_its_errors(tmp_path):
    registry = {c.name: c for c in load_cases_file("tests/data/user_cases.py")}
    config = harness.RunConfig(cases=("user-mismatch",), modes=("tf2-function",), **QUICK_TEST)
    result = harness.run(config, registry, tmp_path, "mismatch")
    row = result.find("user-mismatch", "tf2-function")
    assert row.status == "mismatch"
    assert row.max_rel_err > 1e-3  # the output is scaled by 1.01
    assert "differs from tf1-graph" in row.error
    assert row.speedup_vs_tf1_graph is None  # tf1-graph was only the (untimed) reference


def test_quick_xla_skips_its_own_probe_compile_only_when_tf2_functions_agreed(tmp_path):
    # --quick: XLA's forward pass and gradients cost a compile as long as its step's; they are compiled only when
    # tf2-function's (the same traced code) did not agree or did not run, or when XLA's own steps disagree
    registry = {c.name: c for c in load_cases_file("tests/data/user_cases.py")}
    modes = ("tf1-graph", "tf2-eager", "tf2-function", "tf2-xla")
    config = harness.RunConfig(cases=("user-regression", "user-mismatch"), modes=modes, xla_probes=False,
                               **QUICK_TEST)
    result = harness.run(config, registry, tmp_path, "quick-xla")
    everything = ["forward", "gradients['w']", "gradients['b']", "losses", "weights['w']", "weights['b']"]
    checked = {r.mode: [c["name"] for c in r.equivalence["checks"]] for r in result.results if r.case == "user-regression"}
    assert checked == {"tf1-graph": everything, "tf2-eager": everything, "tf2-function": everything,
                       "tf2-xla": ["losses", "weights['w']", "weights['b']"]}
    xla = result.find("user-regression", "tf2-xla")
    assert xla.status == "ok" and "tf2-function's, the same traced code, agreed" in xla.equivalence["compared"]
    wrong = result.find("user-mismatch", "tf2-xla")  # tf2-function disagreed: XLA probes too, and says where
    assert wrong.status == "mismatch" and "compared" not in wrong.equivalence
    assert [c["name"] for c in wrong.equivalence["checks"]] == everything
    assert wrong.error.startswith("the forward pass differs from tf1-graph")
    alone = harness.run(dataclasses.replace(config, cases=("user-regression",), modes=("tf1-graph", "tf2-xla")),
                        registry, tmp_path, "xla-alone")  # no tf2-function to vouch for the traced code
    assert [c["name"] for c in alone.find("user-regression", "tf2-xla").equivalence["checks"]] == everything


def test_run_config_rejects_bad_values():
    with pytest.raises(ValueError, match="`steps` must be a positive integer, got 0"):
        harness.RunConfig(cases=("linear",), steps=0)
    with pytest.raises(ValueError, match="unknown mode"):
        harness.RunConfig(cases=("linear",), modes=("tf3",))
    with pytest.raises(ValueError, match="`target` must be positive, got 0"):
        harness.RunConfig(cases=("linear",), target=0)
    with pytest.raises(ValueError, match="`case_budget_s` must be positive, got -1"):
        harness.RunConfig(cases=("linear",), case_budget_s=-1)
    assert harness.RunConfig(cases=("linear",)).repeats is None  # adaptive by default


@pytest.mark.parametrize("option,value", [("--target", "0"), ("--target", "1.5"), ("--case-budget", "0")])
def test_bad_sampling_options_are_usage_errors(option, value):
    from click.testing import CliRunner

    from tfcompare.cli import cli

    result = CliRunner().invoke(cli, ["run", "--case", "linear", option, value])
    assert result.exit_code == 2 and option in result.output and value in result.output
    with pytest.raises(ValueError, match="unknown case"):
        harness.run(harness.RunConfig(cases=("nope",)), CASES, "/tmp")
