"""The retracing audit on real tf.functions: exact trace counts, causes, hazards, exit codes."""

import json
import logging
from pathlib import Path

import pytest
import tensorflow as tf
from click.testing import CliRunner
from tensorboard.backend.event_processing import event_accumulator

from eager_models.retracing_scenarios import LENGTHS, SCENARIOS
from tfcompare.tools import audit
from tfcompare.cli import cli
from tfcompare.tools.audit.hazards import HAZARD_KINDS, scan_path

TARGET = "tests/data/audit_target.py"
EXPECTED_HAZARDS = [("literal_collision", 37), ("literal_collision", 38), ("print", 14), ("np_random", 15),
                    ("time", 16), ("container_mutation", 17), ("unrolled_loop", 18), ("global_read", 20),
                    ("variable_in_body", 25), ("function_in_loop", 41)]


def _function(report, name):
    return next(f for f in report.functions if f.name == name)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario_trace_counts_and_causes(name):
    scenario = SCENARIOS[name]
    report = audit.audit_callable(scenario.run, name, static=False)
    assert report.explanations and report.status == "ok"
    fn = _function(report, scenario.function)
    assert fn.traces == scenario.traces
    assert len(fn.retraces) == scenario.traces - 1
    assert {r.cause for r in fn.retraces} == ({scenario.cause} if scenario.cause else set())


def test_variable_lengths_names_the_argument_the_dim_and_the_signature():
    report = audit.audit_callable(SCENARIOS["variable-lengths"].run, "v", static=False)
    fn = _function(report, "_encode")
    assert fn.calls == len(LENGTHS)
    assert [(r.argument, r.detail) for r in fn.retraces] == [("x", "dim 1: 7 -> 13"), ("x", "dim 1: 7 -> 20"),
                                                             ("x", "dim 1: 7 -> 31")]
    assert all("input_signature=[tf.TensorSpec(shape=[4, None, 8], dtype=tf.float32)]" in r.suggestion
               for r in fn.retraces)
    assert all(r.call_site.endswith("retracing_scenarios.py:34") for r in fn.retraces)
    assert all(r.tracing_s > 0 for r in fn.retraces)
    # each differs from every earlier trace in one dim: compared with the first of them, and it says so
    assert [r.compared_with for r in fn.retraces] == [1, 1, 1]
    assert fn.first_call_site.endswith("retracing_scenarios.py:34") and fn.first_tracing_s > 0
    assert fn.tracing_s == pytest.approx(fn.first_tracing_s + sum(r.tracing_s for r in fn.retraces))
    lines = report.text().splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("  trace #1 at "))
    assert lines[first].endswith("  (the first: every function traces once)")
    assert lines[first + 1].startswith("  trace #2 at ") and lines[first + 1].endswith(
        ", against trace #1 (the earlier trace it differs least from)")


def test_the_first_trace_is_listed_and_each_retrace_names_the_trace_it_is_compared_with():
    from tfcompare.tools.audit.report import AuditReport, FunctionAudit, Retrace

    fn = FunctionAudit("step", "train.py", 3, calls=3, traces=3, tracing_s=0.3, first_call_site="train.py:9",
                       first_tracing_s=0.2, retraces=[
                           Retrace(2, "x", "shape_changed", "dim 1: 7 -> 13", "train.py:9", "fix A", 0.04,
                                   compared_with=1),
                           Retrace(3, "x", "shape_changed", "dim 0: 4 -> 2", "train.py:9", "fix B", 0.06,
                                   compared_with=2)])
    lines = AuditReport("t", functions=[fn]).text().splitlines()
    assert lines[2:] == [
        "step  (train.py:3)",
        "  3 calls, 3 traces, 300.00 ms tracing; 2 avoidable retraces",
        "  trace #1 at train.py:9, 200.00 ms  (the first: every function traces once)",
        "  trace #2 at train.py:9, 40.00 ms, against trace #1 (the earlier trace it differs least from)",
        "    why: shape_changed: x: dim 1: 7 -> 13",
        "    fix: fix A",
        "  trace #3 at train.py:9, 60.00 ms, against trace #2 (the earlier trace it differs least from)",
        "    why: shape_changed: x: dim 0: 4 -> 2",
        "    fix: fix B"]


def test_step_counter_flag_and_recreated_function():
    counter = _function(audit.audit_callable(SCENARIOS["python-step-counter"].run, "c", static=False), "_scaled")
    assert [(r.argument, r.detail) for r in counter.retraces][:2] == [("step", "0 -> 1"), ("step", "0 -> 2")]
    assert "tf.constant" in counter.retraces[0].suggestion and not counter.retraces[0].harmless
    flag = _function(audit.audit_callable(SCENARIOS["training-flag"].run, "t", static=False), "_dropout_like")
    assert flag.calls == 6 and flag.avoidable_retraces == 0 and flag.retraces[0].harmless
    loop = _function(audit.audit_callable(SCENARIOS["new-function-per-iteration"].run, "n", static=False), "_double")
    assert loop.function_objects == 5 and "hoist" in loop.retraces[0].suggestion


def test_the_trace_message_is_pinned_to_the_installed_tensorflow():
    from tensorflow.python.eager.polymorphic_function import tracing_compilation

    assert audit.TRACE_MESSAGE in Path(tracing_compilation.__file__).read_text(), tf.__version__


def test_without_the_message_it_falls_back_to_public_counts(monkeypatch):
    monkeypatch.setattr(audit.observer, "TRACE_MESSAGE", "a message this TensorFlow never logs")
    report = audit.audit_callable(SCENARIOS["variable-lengths"].run, "v", static=False)
    assert not report.explanations and "cannot be explained" in report.note
    assert sum(f.traces for f in report.functions) == 4


def test_literal_collision_and_static_hazards_at_their_lines():
    report = audit.audit_target(TARGET)
    assert [(h.kind, h.line) for h in report.hazards] == EXPECTED_HAZARDS
    assert _function(report, "add").traces == 2  # 1, 1.0 and True shared one trace; 2 retraced
    assert [(h.kind, h.line) for h in scan_path(TARGET)] == EXPECTED_HAZARDS[2:]


def test_logging_is_restored_even_when_the_target_fails():
    logger = tf.get_logger()
    before = (logger.level, list(logger.filters), [h.level for h in logger.handlers])
    report = audit.audit_target(TARGET, ("--raise",))
    assert report.status == "failed" and report.error == "ValueError: the user's code failed"
    assert 'audit_target.py", line 43' in report.traceback
    assert _function(report, "add").traces == 2  # what was traced before the failure is still there
    assert (logger.level, list(logger.filters), [h.level for h in logger.handlers]) == before
    assert not logger.isEnabledFor(1)


@pytest.mark.parametrize("args,code", [
    ([TARGET], 0),
    ([TARGET, "--", "--exit"], 0),  # sys.exit(0) is a normal end
    ([TARGET, "--fail-on-retrace"], 1),
    ([TARGET, "--max-traces", "3"], 0),
    ([TARGET, "--max-traces", "2"], 1),  # the lambda traced 3 times
    ([TARGET, "--", "--raise"], 3),
    ([TARGET, "--", "--hard-exit"], 3),  # os._exit(7): reported, not a silent exit 7
    ([TARGET, "--", "--interrupt"], 130),  # Ctrl-C: the traces until then are reported
    (["tests.data.bad_import:main"], 3),  # the module exists but its own import fails: the target failed
    (["--scenario", "none-signature", "--fail-on-retrace"], 0),
    (["--scenario", "variable-lengths", "--fail-on-retrace"], 1),
    (["--scenario", "training-flag", "--fail-on-retrace"], 0),  # expected retraces do not fail the gate
])
def test_exit_codes(args, code):
    result = CliRunner().invoke(cli, ["audit", *args])
    assert result.exit_code == code, result.output


@pytest.mark.parametrize("args,message", [
    ([], "give exactly one of TARGET, --scenario NAME or --static PATH"),
    (["--scenario", "nope"], "unknown scenario 'nope'; choose from variable-lengths"),
    (["tests/data/nope.py"], "'tests/data/nope.py' does not exist; give a script path or package.module:function"),
    (["tests/data"], "'tests/data' is a folder"),
    (["no_such_package.train:main"], "no module 'no_such_package.train'"),
    (["tests.data.audit_target:nope"], "'tests.data.audit_target' has no function 'nope'; its functions: add"),
    (["--overhead"], "Invalid value for '--overhead'"),
    ([TARGET, "--overhead"], "Invalid value for '--overhead'"),
])
def test_usage_errors_name_the_value(args, message):
    result = CliRunner().invoke(cli, ["audit", *args])
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output, result.output


def test_json_schema_and_tensorboard(tmp_path):
    result = CliRunner().invoke(cli, ["audit", TARGET, "--json", "--logdir", str(tmp_path)])
    doc = json.loads(result.stdout)
    assert set(doc) >= {"functions", "hazards"}
    for f in doc["functions"]:
        assert set(f) >= {"name", "file", "line", "calls", "traces", "tracing_s", "retraces"}
        for r in f["retraces"]:
            assert set(r) >= {"argument", "cause", "detail", "call_site", "suggestion"}
    for h in doc["hazards"]:
        assert set(h) == {"kind", "file", "line", "message"}
    acc = event_accumulator.EventAccumulator(str(tmp_path / "audit"), size_guidance={"tensors": 0})
    acc.Reload()
    assert float(tf.make_ndarray(acc.Tensors("audit/add/traces")[0].tensor_proto)) == 2.0


def test_static_only_on_a_folder_runs_nothing(tmp_path):
    (tmp_path / "a.py").write_text("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n    return x\n")
    (tmp_path / "b.py").write_text("raise SystemExit('never run')\n")
    result = CliRunner().invoke(cli, ["audit", "--static", str(tmp_path), "--json"])
    doc = json.loads(result.stdout)
    assert [(h["kind"], h["line"]) for h in doc["hazards"]] == [("print", 5)]
    assert doc["functions"] == [] and doc["static_files"] == 2
    text = CliRunner().invoke(cli, ["audit", "--static", str(tmp_path)]).output
    assert "static scan: read 2 Python files, ran nothing (so no traces to count); 1 hazard found" in text
    assert "no tf.function was traced" not in text


def test_a_logging_filter_of_the_user_survives():
    class Mine(logging.Filter):
        pass

    mine = Mine()
    tf.get_logger().addFilter(mine)
    try:
        audit.audit_callable(SCENARIOS["none-signature"].run, "n", static=False)
        assert mine in tf.get_logger().filters
    finally:
        tf.get_logger().removeFilter(mine)


SCRIPTS = Path(__file__).resolve().parent / "data" / "audit_scripts"
PYTHON_STATE = [("global_rebinding", 18), ("python_random", 19), ("time", 20), ("np_random", 21), ("print", 22),
                ("unrolled_loop", 24), ("variable_in_body", 31), ("function_in_loop", 43),
                ("attribute_rebinding", 54)]


@pytest.mark.parametrize("script,static,audited", [
    # a Keras 3 custom loop: tf.add(...) is an op, not a container mutation; model/optimizer are not frozen
    ("keras_custom_loop.py", [], []),
    # a global dict of tf.Variables is captured by reference; `extra` is only known at run time
    ("raw_variables.py", [("global_read", 19)], []),
    # the true hazards are still found, statically and after running
    ("frozen_settings.py", [("print", 12), ("global_read", 14), ("container_mutation", 15)],
     [("print", 12), ("global_read", 14), ("container_mutation", 15)]),
    # lazy builds under `is None` / `not hasattr` / `not self.is_built`, a Keras 3 layer's build(): TF's documented
    # patterns, no hazard
    ("lazy_build.py", [], []),
    # print/np.random/time/append inside functions handed to tf.py_function / tf.numpy_function run every call
    ("host_python.py", [], []),
    # Python state in a traced body, each class once (the script asserts each runs once per trace)
    ("python_state.py", PYTHON_STATE, PYTHON_STATE),
])
def test_no_false_hazards_on_training_scripts(script, static, audited):
    path = str(SCRIPTS / script)
    assert [(h.kind, h.line) for h in scan_path(path)] == static
    assert [(h.kind, h.line) for h in audit.audit_target(path).hazards] == audited


def test_every_hazard_class_is_found_on_a_script_written_for_it():
    found = {h.kind for script in SCRIPTS.glob("*.py") for h in scan_path(str(script))}
    found |= {h.kind for h in audit.audit_target(TARGET).hazards}
    found |= {h.kind for h in audit.scan_source("def f(:\n")}
    assert found == set(HAZARD_KINDS)


def test_only_the_users_functions_are_listed_and_each_retrace_cause_is_named():
    report = audit.audit_target(str(SCRIPTS / "lazy_build.py"))
    assert report.status == "ok", report.error
    assert sorted(f.name for f in report.functions) == ["Counter.__call__", "Dense.__call__",
                                                        "FlexibleDense.__call__", "train_step"]
    assert "not listed (initialize_variables 3)" in report.note
    assert report.library_traces == {"Function._initialize_uninitialized_variables.initialize_variables": 3}
    lazy = _function(report, "Dense.__call__")
    assert [(r.cause, r.detail, r.harmless) for r in lazy.retraces] == [
        ("context_changed", "scope VARIABLE_CREATION -> NO_VARIABLE_CREATION", True)]
    assert lazy.retraces[0].call_site.endswith("lazy_build.py:54")  # the user's line, not AutoGraph's file
    assert lazy.nested and lazy.retraces[0].tracing_s is None  # traced inside train_step: its time is counted there
    assert "1 call, 2 traces, tracing time counted in the tf.function that calls it" in report.text()
    causes = audit.audit_target(str(SCRIPTS / "retrace_causes.py"))
    got = {f.name: [(r.cause, r.argument, r.call_site.rsplit(":", 1)[1]) for r in f.retraces] for f in causes.functions}
    assert got == {"normalize": [("dtype_changed", "x", "34")], "total": [("structure_changed", "items", "36")],
                   "shift": [("kind_changed", "k", "38")], "rescale": [("new_python_object", "scaler", "40")]}
    assert _function(causes, "rescale").retraces[0].detail.startswith("<Scaler object> -> <Scaler object>")
    all_causes = {r.cause for f in [*report.functions, *causes.functions] for r in f.retraces}
    for scenario in SCENARIOS.values():
        all_causes |= {scenario.cause} - {None}
    assert all_causes == {"context_changed", "dtype_changed", "structure_changed", "kind_changed",
                          "new_python_object", "shape_changed", "python_value_changed", "function_recreated"}


def test_a_hard_exit_in_the_target_is_reported_and_the_process_goes_on():
    report = audit.audit_target(TARGET, ("--hard-exit",))
    assert (report.status, report.exit_code) == ("failed", 7)
    assert report.error.startswith("the target called os._exit(7)")
    assert _function(report, "add").traces == 2
    import os

    assert os._exit.__module__ in ("posix", "nt")  # the real one is back


def test_a_smaller_last_batch_is_one_retrace_with_both_arguments_and_the_tf_data_fix():
    report = audit.audit_target(str(SCRIPTS / "tf_data_loop.py"))
    step = _function(report, "train_step")
    assert (step.calls, step.traces, step.avoidable_retraces) == (8, 2, 1)
    assert [(r.trace, r.argument, r.detail) for r in step.retraces] == [(2, "x", "dim 0: 32 -> 4"),
                                                                        (2, "y", "dim 0: 32 -> 4")]
    assert step.retraces[0].call_site.endswith("tf_data_loop.py:25")
    assert "drop_remainder=True" in step.retraces[0].suggestion
    assert "input_signature=[tf.TensorSpec(shape=[None, 10], dtype=tf.float32), " \
           "tf.TensorSpec(shape=[None], dtype=tf.int32)]" in step.retraces[0].suggestion
    text = report.text()
    assert text.count("trace #2 at") == 1 and text.count("    fix: ") == 1
    assert report.hazards == []


def test_a_constant_global_is_not_a_hazard_but_one_the_script_changes_is():
    source = ("import tensorflow as tf\nNUM_CLASSES = 10\nLR = 0.1\n\n\n@tf.function\ndef step(y):\n"
              "    return tf.one_hot(y, NUM_CLASSES) * LR\n\n\nLR = 0.01\n")
    found = audit.scan_source(source)
    assert [(h.kind, h.line) for h in found] == [("global_read", 8)]
    assert "global `LR`" in found[0].message and "changes it (line 11)" in found[0].message


def test_ctrl_c_in_the_target_reports_what_was_traced():
    result = CliRunner().invoke(cli, ["audit", TARGET, "--", "--interrupt"])
    assert result.exit_code == 130
    assert "interrupted (Ctrl-C) while the target ran: the traces observed until then follow" in result.output
    assert "add  (" in result.output and "2 traces" in result.output


def test_a_module_level_loop_variable_read_in_a_step_is_frozen():
    source = ("import tensorflow as tf\n\n\n@tf.function\ndef scaled(x):\n    return x * epoch\n\n\n"
              "for epoch in range(3):\n    scaled(tf.constant(1.0))\nlosses = [v for v in range(3)]\n")
    found = audit.scan_source(source)
    assert [(h.kind, h.line) for h in found] == [("global_read", 6)] and "changes it (line 9)" in found[0].message


def test_a_module_whose_own_import_fails_is_the_target_failing_with_its_traceback():
    report = audit.audit_target("tests.data.bad_import:main")
    assert report.status == "failed"
    assert report.error == "ModuleNotFoundError: No module named 'module_that_does_not_exist'"
    assert 'bad_import.py", line 1, in <module>' in report.traceback and "importlib" not in report.traceback
