"""Model zoo: structure that matters (convolution, recurrence, data-dependent control flow), variable
shapes and the tf.function variants, AutoGraph's conversion, and the pitfalls demonstrations."""

import json
from pathlib import Path

import numpy as np
import tensorflow as tf
from click.testing import CliRunner

from tfcompare.core.graphs import op_counts
from tfcompare.tools.autograph import autograph_view
from tfcompare.cli import cli
from tfcompare.core.environment import session_config
from tfcompare.core.modes import MODES
from conftest import QUICK_TEST
from tfcompare.tools.pitfalls import CALLS, run_pitfalls
from tfcompare.registry import CASES, rnn_batch
from tfcompare.core.runners import make_runner
from tfcompare.report.format import format_seconds
from tfcompare.run.shapes import bucket_length, run_variants, variants_table


def test_rnn_batches_mix_lengths_and_padding_never_reaches_the_loss():
    case = CASES["rnn"]
    batch = case.make_batch(np.random.default_rng(3), 16)
    assert len(set(batch["lengths"].tolist())) > 3  # mixed lengths in one batch
    noisy = dict(batch, x=batch["x"].copy())
    for i, n in enumerate(batch["lengths"]):
        noisy["x"][i, n:] = 1e3  # garbage in the padding
    weights = case.init_weights(np.random.default_rng(0))
    for mode in ("tf1-graph", "tf2-function"):
        runner = make_runner(mode, MODES[mode], case, weights, session_config(2, 2))
        runner.build()
        runner.first_call(batch)
        runner.reset()
        clean, dirty = runner.forward(batch), runner.forward(noisy)
        runner.close()
        np.testing.assert_array_equal(clean, dirty)


def test_control_flow_is_converted_not_unrolled():
    view = autograph_view(CASES["control_flow"])
    assert "ag__.while_stmt" in view.code and "ag__.if_stmt" in view.code
    assert {"While", "If"} <= set(view.tf2_control_flow) or {"StatelessWhile", "StatelessIf"} <= set(
        view.tf2_control_flow)
    model = CASES["control_flow"].make_model(CASES["control_flow"].init_weights(np.random.default_rng(0)))
    solve = tf.function(model.solve)
    batch = CASES["control_flow"].make_batch(np.random.default_rng(1), 16)
    x = tf.constant(batch["x"])
    _, iterations = solve(x)
    _, iterations_loose = tf.function(lambda t: model.solve(t))(x * 0.1)
    graph = solve.get_concrete_function(x).graph.as_graph_def()
    per_iteration = 5  # matmul, add, tanh, sub/abs/max: at least five ops a step if it were unrolled
    assert int(iterations) >= 8
    assert int(iterations) != int(iterations_loose)  # the count depends on the data...
    assert sum(op_counts(graph, library=False).values()) < per_iteration * int(iterations)  # ...the graph does not


def test_cnn_graph_has_convolutions_and_resnet_depth_option():
    view = autograph_view(CASES["cnn"])
    assert view.tf1_control_flow == {} and view.tf2_control_flow == {}
    deeper = CASES["resnet"].with_options(depth=3)
    weights = deeper.init_weights(np.random.default_rng(0))
    assert sum(k.startswith("b") and k[1].isdigit() for k in weights) == 3 * 2 * 3  # 3 blocks x 2 convs x (c, g, o)
    assert deeper.options == {"depth": 3} and CASES["resnet"].options == {"depth": 2}


def test_variable_length_variants_trace_exactly():
    case = CASES["rnn"]
    lengths = [7, 13, 20, 31, 7]
    rng = np.random.default_rng(0)
    found = run_variants(case, case.init_weights(np.random.default_rng(0)),
                         lambda n: rnn_batch(rng, 4, steps=n), lengths, passes=2, bucket=16,
                         session_config=session_config(2, 2))
    traces = {v.variant: v.traces for v in found}
    assert traces == {"tf1-graph": 0, "tf2-eager": 0, "no-signature": 4, "none-signature": 1, "reduce-retracing": 2,
                      "buckets": len({bucket_length(n, 16) for n in lengths})}
    assert all(v.error is None and v.step_median_s > 0 and v.total_s >= v.first_pass_s for v in found)
    # the table's eager row: the dynamic graph beside the graphs, nothing traced, every call timed
    eager = next(v for v in found if v.variant == "tf2-eager")
    rows = variants_table([v.to_json() for v in found]).splitlines()
    assert [line.split()[:3] for line in rows[2:8]][1] == ["rnn", "tf2-eager", "0"]
    assert format_seconds(eager.total_s) in rows[3] and format_seconds(eager.step_median_s) in rows[3]
    assert bucket_length(13, 16) == 16 and bucket_length(31, 16) == 32 and bucket_length(32, 16) == 32


def test_seq_lens_in_run_and_bad_lengths(tmp_path):
    ok = CliRunner().invoke(cli, ["run", "--case", "rnn", "--mode", "tf1-graph", "--mode", "tf2-function",
                                  "--seq-lens", "5,9", "--quick", "--repeats", "3", "--logdir", str(tmp_path),
                                  "--run-name", "s"])
    assert ok.exit_code == 0, ok.output
    doc = json.loads((tmp_path / "s" / "results.json").read_text())
    assert {v["variant"]: v["traces"] for v in doc["variable_shapes"]}["no-signature"] == 2
    for args, needle in [(["--seq-lens", "5,0"], "must be comma-separated positive integers"),
                         (["--seq-lens", "a"], "must be comma-separated positive integers"),
                         (["--case", "mlp", "--seq-lens", "5"], "none of the chosen cases has a varying dim"),
                         (["--option", "depth=0"], "must be a positive integer"),
                         (["--option", "width=3"], "no chosen case has option 'width'"),
                         (["--case", "mlp", "--option", "depth=3"], "no chosen case has option 'depth'")]:
        bad = CliRunner().invoke(cli, ["run", *args])
        assert bad.exit_code == 2 and needle in bad.output, (args, bad.output)


def test_autograph_command():
    result = CliRunner().invoke(cli, ["autograph", "control_flow"])
    assert result.exit_code == 0
    out = result.output
    assert "ag__.while_stmt" in out
    assert "control flow in tf2-function" in out and "While" in out
    # each function as written, under its heading, then AutoGraph's rewrite of it under another
    written = out.index("=== ControlFlow.solve: the Python source, as written ===")
    rewritten = out.index("=== ControlFlow.solve: AutoGraph's generated code (tf.autograph.to_code) ===")
    assert written < rewritten
    source, generated = out[written:rewritten], out[rewritten:out.index("\n===", rewritten)]
    assert "\ndef solve(self, x):\n" in source and "\n    while delta > TOLERANCE:\n" in source  # dedented
    assert "ag__" not in source
    assert "\ndef tf__solve(self, x):\n" in generated and "ag__.while_stmt(loop_test" in generated
    call = out[out.index("=== ControlFlow.__call__: the Python source"):]
    assert "if tf.reduce_mean(h) > 0.0:" in call and call.index("if tf.reduce_mean(h)") < call.index("ag__.if_stmt")
    assert CliRunner().invoke(cli, ["autograph", "nope"]).exit_code == 2


def test_pitfalls_measure_what_they_claim():
    found = {p.name: p for p in run_pitfalls()}
    assert all(p.holds and p.error is None for p in found.values()), {n: p.shows for n, p in found.items()}
    assert found["print"].measured == {"calls": CALLS, "python_print": 1, "tf_print": CALLS, "traces": 1}
    assert found["python-branch-and-global"].measured["flag_traces"] == 2
    assert found["python-branch-and-global"].measured["global_result_after"] == 3.0
    assert found["np-random"].measured["distinct_in_function"] == 1
    assert found["python-numbers"].measured["traces_for_ints"] == CALLS
    assert found["python-numbers"].measured["traces_for_1_1.0_True"] == 1
    assert found["python-numbers"].measured["result_dtypes"]["1.0"] == "int32"
    shape = found["shape-error"].measured
    assert shape["tf1-graph"].startswith("graph construction") and "inside product()" in shape["tf2-function"]
    cli_run = CliRunner().invoke(cli, ["pitfalls", "--only", "np-random"])
    assert cli_run.exit_code == 0 and "1 distinct value over 5 calls" in cli_run.output
    assert CliRunner().invoke(cli, ["pitfalls", "--only", "nope"]).exit_code == 2


def test_a_tensor_condition_is_not_frozen_one_trace_holds_both_branches():
    found = run_pitfalls(["tensor-branch"])[0]
    assert found.holds and found.error is None, found.shows
    measured = found.measured
    assert measured["traces"] == 1  # inputs of both signs, one trace (a Python bool gave one per value)
    assert measured["results"] == measured["eager_results"] == {"3.0": 6.0, "-3.0": -4.0}
    ifs = {op: n for op, n in measured["control_flow_ops"].items() if op in ("If", "StatelessIf")}
    assert sum(ifs.values()) == 1  # one If op whose two functions are the two branches
    assert measured["branch_ops"] == {"then_branch": ["Mul"], "else_branch": ["Sub"]}
    cli_run = CliRunner().invoke(cli, ["pitfalls", "--only", "tensor-branch"])
    assert cli_run.exit_code == 0 and "gave 1 trace for inputs of both signs" in cli_run.output
    assert "then: Mul, else: Sub" in cli_run.output


def test_a_python_op_loses_its_static_shape_and_ensure_shape_repairs_it():
    found = run_pitfalls(["python-op-shape"])[0]
    assert found.holds and found.error is None
    assert found.measured["shape_inside_graph"] == "<unknown>"  # observed inside the trace, not asserted
    assert "ValueError" in found.measured["trace_time_error"]
    assert found.measured["shape_after_ensure_shape"] == "(2, 3)" and found.measured["repaired_output_shape"] == [2, 4]


def test_xla_refuses_the_python_op_with_tensorflows_reason(tmp_path):
    import dataclasses

    from tfcompare.run import harness

    case = dataclasses.replace(CASES["custom-op-python"], unsupported_modes={})  # let XLA try
    config = harness.RunConfig(cases=(case.name,), modes=("tf1-graph", "tf2-xla"), **QUICK_TEST)
    result = harness.run(config, {case.name: case}, tmp_path, "xla")
    row = result.find(case.name, "tf2-xla")
    assert row.status == "error" and "EagerPyFunc" in row.error, row.error  # TensorFlow's own words
    assert result.find(case.name, "tf1-graph").status == "ok"


def test_partial_conversion_is_refused_by_name_for_a_step_it_cannot_split(tmp_path):
    result = CliRunner().invoke(cli, ["run", "--cases-file", "tests/data/user_cases.py", "--case", "user-eager-breaks",
                                      "--mode", "tf2-partial", "--logdir", str(tmp_path)])
    assert result.exit_code == 2
    assert "case 'user-eager-breaks' does not support mode 'tf2-partial': its model defines its own train_step" \
        in result.output


def test_the_python_op_exports_but_does_not_reload_without_python(tmp_path):
    from tfcompare.tools.export import export_case

    report = export_case(CASES["custom-op-python"], tmp_path / "py")
    formats = {f.format: f for f in report.formats}
    assert formats["savedmodel-tf2"].status == "error" and "reload failed" in formats["savedmodel-tf2"].error
    assert formats["tflite-float"].status == "error"


def test_pitfall_lines_name_their_file_say_an_error_s_name_once_and_explain_the_bracket():
    from tfcompare.tools import pitfalls

    found = run_pitfalls(["shape-error", "python-op-shape"])
    source = Path(pitfalls.__file__).read_text().splitlines()
    line = next(i for i, text in enumerate(source, 1) if text.strip().startswith("tf.compat.v1.matmul(x, b)"))
    assert found[0].measured["tf1-graph"].startswith(
        f"graph construction (no Session, no data): tfcompare/tools/pitfalls.py line {line}: tf.compat.v1.matmul(x, b)")
    assert "inside product()" in found[0].measured["tf2-function"] and "tfcompare/tools/pitfalls.py line " in \
        found[0].measured["tf2-function"]
    assert found[1].measured["trace_time_error"].startswith("ValueError: as_list() is not defined")
    out = CliRunner().invoke(cli, ["pitfalls", "--only", "python-op-shape"]).output.splitlines()
    assert out[0].endswith("[shown]") and out[1] == ""
    assert out[2] == ("[shown] = TensorFlow on this installation did what the line says (the counts were measured in "
                      "this run and checked); [NOT as described here] = it did not; [error: ...] = the demonstration "
                      "itself failed.")
    assert out[3] == "words: tf.function, trace / retrace: see README.md#glossary"
