"""A real TensorBoard server on a real run's log directory, queried through its HTTP data API."""

import json
import math
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


@pytest.fixture(scope="module")
def board(full_run):
    with TensorBoard(full_run.run_dir, reload_interval=1) as tb:
        # runs are listed before TensorBoard has read all their events: wait for the scalars of every timed row
        timed = {f"{r.case}/{r.mode}" for r in full_run.results if r.status != "skipped"}
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            tags = _get(tb.url, "/data/plugin/scalars/tags")
            if all("timing/step_median_s" in tags.get(run, {}) for run in timed):
                break
            time.sleep(0.5)
        yield tb.url


def test_every_case_and_mode_is_a_run(board):
    runs = set(_get(board, "/data/runs"))
    assert {f"{c}/{m}" for c in CASES for m in MODES} <= runs


def test_step_time_tag_in_every_mode_and_median_matches_results(board, full_run):
    tags = _get(board, "/data/plugin/scalars/tags")
    for row in (r for r in full_run.results if r.status != "skipped"):  # skipped rows have no timing
        run = f"{row.case}/{row.mode}"
        assert "timing/step_s" in tags[run] and "timing/step_median_s" in tags[run]
        series = _get(board, "/data/plugin/scalars/scalars", run=run, tag="timing/step_median_s")
        assert series[0][2] == pytest.approx(row.step_median_s, rel=1e-6)
        steps = _get(board, "/data/plugin/scalars/scalars", run=run, tag="timing/step_s")
        assert [s for _, s, _ in steps] == list(range(row.samples))


def test_graphs_for_tf1_and_tf2_function(board):
    info = _get(board, "/data/plugin/graphs/info")
    assert info["mlp/tf1-graph"]["run_graph"] and info["mlp/tf2-function"]["run_graph"]
    assert "mlp/tf2-eager" not in info or not info["mlp/tf2-eager"]["run_graph"]
    tf1_graph = _get(board, "/data/plugin/graphs/graph", run="mlp/tf1-graph")
    assert 'op: "Placeholder"' in tf1_graph and 'op: "ResourceApplyMomentum"' in tf1_graph
    fn_graph = _get(board, "/data/plugin/graphs/graph", run="mlp/tf2-function")
    assert 'op: "MatMul"' in fn_graph and 'op: "AssignVariableOp"' in fn_graph
    # the graph after Grappler, under its own tag: the runtime's fused kernels appear
    assert info["mlp/tf2-function"]["tags"]["optimized"]["op_graph"]
    optimized = _get(board, "/data/plugin/graphs/graph", run="mlp/tf2-function", tag="optimized")
    assert "Fused" in optimized


def test_hparams_groups_for_every_mode_with_metrics(board, full_run):
    experiment = _post(board, "/data/plugin/hparams/experiment", {"experimentName": ""})
    assert {h["name"] for h in experiment["hparamInfos"]} >= {"case", "mode", "batch_size", "tf_version"}
    groups = _post(board, "/data/plugin/hparams/session_groups", {
        "experimentName": "", "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE",
                                                  "STATUS_RUNNING"],
        "colParams": [], "startIndex": 0, "sliceSize": 1000})
    by_trial = {(g["hparams"]["case"], g["hparams"]["mode"]): g for g in groups["sessionGroups"]}
    assert set(by_trial) == {(r.case, r.mode) for r in full_run.results}
    row = full_run.find("mlp", "tf2-function")
    metrics = {m["name"]["tag"]: m["value"] for m in by_trial[("mlp", "tf2-function")]["metricValues"]}
    assert metrics["timing/step_median_s"] == pytest.approx(row.step_median_s, rel=1e-6)
    assert metrics["tracing/traces"] == 1


def test_text_table_and_custom_scalars_layout(board):
    text = _get(board, "/data/plugin/text/text", run=".", tag="comparison")
    assert "<table>" in text[0]["text"] and "tf2-function" in text[0]["text"]
    layout = _get(board, "/data/plugin/custom_scalars/layout")
    titles = [c["title"] for c in layout["category"]]
    assert titles == list(CASES)
    charts = layout["category"][0]["chart"]
    assert "multiline" in charts[0] and "multiline" in charts[1]  # seconds, and log10 seconds for 100x spreads
    assert charts[1]["multiline"]["tag"] == [f"^{list(CASES)[0]}/log10_step_s$"]
    autograph = _get(board, "/data/plugin/text/text", run="mlp/tf2-function", tag="autograph/train_step")
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
    assert "summary" in _get(board, "/data/plugin/images/tags")["."]
    images = _get(board, "/data/plugin/images/images", run=".", tag="summary")
    assert len(images) == 1
    with urllib.request.urlopen(f"{board}/data/plugin/images/individualImage?{images[0]['query']}", timeout=30) as r:
        served = r.read()
    assert served[:8] == b"\x89PNG\r\n\x1a\n" and len(served) > 10_000  # the figure, as TensorBoard serves it
    series = _get(board, "/data/plugin/scalars/scalars", run="mlp/tf2-eager", tag="timing/log10_step_s")
    row = full_run.find("mlp", "tf2-eager")
    assert [v for _, _, v in series] == pytest.approx([math.log10(s) for s in row.step_times_s], rel=1e-5)
