"""A real TensorBoard server on a real run's log directory, queried through its HTTP data API."""

import json
import math
import shutil
import socket
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.core.modes import MODES
from tfcompare.registry import CASES
from tfcompare.report.server import TensorBoard, TensorBoardError
from tfcompare.run import harness

from conftest import QUICK_TEST

pytestmark = pytest.mark.server


def _get(url, path, **params):
    query = ("?" + urllib.parse.urlencode(params)) if params else ""
    with urllib.request.urlopen(f"{url}{path}{query}", timeout=30) as resp:
        body = resp.read().decode()
    return json.loads(body) if body[:1] in "[{" else body


def _post(url, path, payload):
    req = urllib.request.Request(f"{url}{path}", data=json.dumps(payload).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read().decode())


_SMALL = ("tf1-graph", "tf2-function")


@pytest.fixture(scope="module")
def logs(full_run, tmp_path_factory):
    """One log directory as a user's `logs/` after three runs: the full run, then two small ones."""
    logdir = tmp_path_factory.mktemp("three-runs")
    shutil.copytree(full_run.run_dir, logdir / "full")
    for seed in (1, 2):
        config = harness.RunConfig(cases=("linear",), modes=_SMALL, **{**QUICK_TEST, "seed": seed})
        harness.run(config, CASES, logdir, f"r{seed + 1}")
    return logdir


@pytest.fixture(scope="module")
def board(logs, full_run):
    with TensorBoard(logs, reload_interval=1) as tb:
        # runs are listed before TensorBoard has read all their events: wait for the scalars of every timed row
        timed = {(f"full/{r.mode}", f"{r.case}/timing/step_median_s") for r in full_run.results
                 if r.status != "skipped"} | {(f"r3/{m}", "linear/timing/step_median_s") for m in _SMALL}
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            tags = _get(tb.url, "/data/plugin/scalars/tags")
            if all(tag in tags.get(run, {}) for run, tag in timed):
                break
            time.sleep(0.5)
        yield tb.url


def test_three_runs_stay_under_tensorboards_40_so_it_selects_them_all(board, full_run):
    # TensorBoard's run selector ticks every run by default only while /data/runs lists at most 40
    runs = set(_get(board, "/data/runs"))
    modes = {r.mode for r in full_run.results if r.status != "skipped"}
    expected = {"full", *(f"full/{m}" for m in modes)} | {f"r{k}{m}" for k in (2, 3)
                                                          for m in ("", *(f"/{m}" for m in _SMALL))}
    assert runs == expected and len(runs) == 1 + len(modes) + 2 * 3 < 40
    scalar_runs = set(_get(board, "/data/plugin/scalars/tags"))
    assert scalar_runs == {f"full/{m}" for m in modes} | {f"r{k}/{m}" for k in (2, 3) for m in _SMALL}
    assert set(_get(board, "/data/plugin/images/tags")) == {"full", "r2", "r3"}  # the picture, at each root


def test_step_time_tag_in_every_mode_and_median_matches_results(board, full_run):
    tags = _get(board, "/data/plugin/scalars/tags")
    for row in (r for r in full_run.results if r.status != "skipped"):  # skipped rows have no timing
        run, case = f"full/{row.mode}", row.case
        assert f"{case}/timing/step_s" in tags[run] and f"{case}/timing/step_median_s" in tags[run]
        series = _get(board, "/data/plugin/scalars/scalars", run=run, tag=f"{case}/timing/step_median_s")
        assert series[0][2] == pytest.approx(row.step_median_s, rel=1e-6)
        steps = _get(board, "/data/plugin/scalars/scalars", run=run, tag=f"{case}/timing/step_s")
        assert [s for _, s, _ in steps] == list(range(row.samples))


def test_a_later_run_in_the_same_logs_overlays_on_the_same_chart(board):
    tags = _get(board, "/data/plugin/scalars/tags")
    runs = [run for run, found in tags.items() if "linear/timing/speedup_vs_tf1_graph" in found]
    assert {"full/tf2-function", "r2/tf2-function", "r3/tf2-function"} <= set(runs)
    for run in ("r2/tf2-function", "r3/tf2-function"):
        low, value, high = (_get(board, "/data/plugin/scalars/scalars", run=run, tag=f"linear/timing/{t}")[0][2]
                            for t in ("speedup_ci_low", "speedup_vs_tf1_graph", "speedup_ci_high"))
        assert low <= value <= high


def test_graphs_for_tf1_and_tf2_function(board):
    info = _get(board, "/data/plugin/graphs/info")
    assert info["full/tf1-graph"]["tags"]["mlp"]["op_graph"] and info["full/tf2-function"]["tags"]["mlp"]["op_graph"]
    assert "mlp" not in info.get("full/tf2-eager", {}).get("tags", {})
    tf1_graph = _get(board, "/data/plugin/graphs/graph", run="full/tf1-graph", tag="mlp")
    assert 'op: "Placeholder"' in tf1_graph and 'op: "ResourceApplyMomentum"' in tf1_graph
    fn_graph = _get(board, "/data/plugin/graphs/graph", run="full/tf2-function", tag="mlp")
    assert 'op: "MatMul"' in fn_graph and 'op: "AssignVariableOp"' in fn_graph
    # the graph after Grappler, under its own tag: the runtime's fused kernels appear
    assert info["full/tf2-function"]["tags"]["mlp/optimized"]["op_graph"]
    optimized = _get(board, "/data/plugin/graphs/graph", run="full/tf2-function", tag="mlp/optimized")
    assert "Fused" in optimized


def test_hparams_groups_for_every_mode_with_per_case_metrics(board, full_run):
    experiment = _post(board, "/data/plugin/hparams/experiment", {"experimentName": ""})
    assert {h["name"] for h in experiment["hparamInfos"]} >= {"mode", "seed", "tf_version"}
    groups = _post(board, "/data/plugin/hparams/session_groups", {
        "experimentName": "", "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE",
                                                  "STATUS_RUNNING"],
        "colParams": [], "startIndex": 0, "sliceSize": 1000})
    sessions = {s["name"]: g for g in groups["sessionGroups"] for s in g["sessions"]}
    assert {f"full/{r.mode}" for r in full_run.results} <= set(sessions)
    row = full_run.find("mlp", "tf2-function")
    metrics = {m["name"]["tag"]: m["value"] for m in sessions["full/tf2-function"]["metricValues"]}
    assert metrics["mlp/timing/step_median_s"] == pytest.approx(row.step_median_s, rel=1e-6)
    assert metrics["mlp/timing/speedup_vs_tf1_graph"] == pytest.approx(row.speedup_vs_tf1_graph, rel=1e-6)


def test_text_table_and_custom_scalars_layout(board):
    text = _get(board, "/data/plugin/text/text", run="full", tag="comparison")
    assert "<table>" in text[0]["text"] and "tf2-function" in text[0]["text"]
    layout = _get(board, "/data/plugin/custom_scalars/layout")
    titles = [c["title"] for c in layout["category"]]
    assert titles[:len(CASES)] == list(CASES)
    speed, seconds, log10 = layout["category"][0]["chart"][:3]
    first = list(CASES)[0]
    assert speed["margin"]["series"][0] == {"value": f"{first}/timing/speedup_vs_tf1_graph",
                                            "lower": f"{first}/timing/speedup_ci_low",
                                            "upper": f"{first}/timing/speedup_ci_high"}
    assert "multiline" in seconds and log10["multiline"]["tag"] == [f"^{first}/timing/log10_step_s$"]
    autograph = _get(board, "/data/plugin/text/text", run="full/tf2-function", tag="mlp/autograph/train_step")
    assert "ag__" in autograph[0]["text"]


def test_tensorboard_command_rejects_missing_empty_and_busy(tmp_path, full_run):
    result = CliRunner().invoke(cli, ["tensorboard", "--logdir", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "does not exist" in result.output
    result = CliRunner().invoke(cli, ["tensorboard", "--logdir", str(tmp_path)])
    assert result.exit_code == 2 and "holds no TensorBoard event files" in result.output
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(cli, ["tensorboard", "--logdir", full_run.run_dir, "--port", str(port)])
    assert result.exit_code == 2 and f"port {port} on 127.0.0.1 is already in use" in result.output
    with pytest.raises(TensorBoardError):
        TensorBoard(tmp_path)


def test_the_run_picture_is_written_and_served_as_an_image(board, full_run):
    png = (Path(full_run.run_dir) / "summary.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert "summary" in _get(board, "/data/plugin/images/tags")["full"]
    images = _get(board, "/data/plugin/images/images", run="full", tag="summary")
    assert len(images) == 1
    with urllib.request.urlopen(f"{board}/data/plugin/images/individualImage?{images[0]['query']}", timeout=30) as r:
        served = r.read()
    assert served[:8] == b"\x89PNG\r\n\x1a\n" and len(served) > 10_000  # the figure, as TensorBoard serves it
    series = _get(board, "/data/plugin/scalars/scalars", run="full/tf2-eager", tag="mlp/timing/log10_step_s")
    row = full_run.find("mlp", "tf2-eager")
    assert [v for _, _, v in series] == pytest.approx([math.log10(s) for s in row.step_times_s], rel=1e-5)
