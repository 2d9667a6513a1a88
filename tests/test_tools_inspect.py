"""Inside the compiler: Grappler fusion and constant folding, XLA HLO counts, and the time they buy."""


import pytest
from click.testing import CliRunner

from tfcompare.cli import cli
from tfcompare.core.graphs import hlo_counts
from tfcompare.tools.inspect import inspect_case, parse_grappler
from tfcompare.registry import CASES

HLO = """HloModule m

%fused_computation (p0: f32[4]) -> f32[4] {
  %p0 = f32[4]{0} parameter(0)
  ROOT %tanh = f32[4]{0} tanh(f32[4]{0} %p0)
}

ENTRY %main (a: f32[4]) -> f32[4] {
  %a = f32[4]{0} parameter(0)
  %add = f32[4]{0} add(f32[4]{0} %a, f32[4]{0} %a)
  ROOT %fusion = f32[4]{0} fusion(f32[4]{0} %add), kind=kLoop, calls=%fused_computation
}
"""


def test_hlo_counts_entry_instructions_and_fusions():
    assert hlo_counts(HLO) == (3, 1)


@pytest.fixture(scope="module")
def inspections():
    return {c: inspect_case(CASES[c], options={"remapping": False}, repeats=3) for c in ("mlp", "cnn")}


@pytest.mark.parametrize("case", ["mlp", "cnn"])
def test_grappler_shrinks_the_graph_and_fuses(inspections, case):
    views = {g.mode: g for g in inspections[case].graphs}
    for mode in ("tf1-graph", "tf2-function"):
        assert views[mode].nodes_after < views[mode].nodes_before
        fused = views[mode].fused
        assert fused and all("Fused" in f["op"] for f in fused)
        assert any("BiasAdd" in f["absorbed"] for f in fused)
        off = views[f"{mode} [remapping=False]"]
        assert off.fused == []  # the remapper is what fuses
        assert off.nodes_after > views[mode].nodes_after  # unfused ops run as separate nodes
    if case == "cnn":
        assert any(f["op"].endswith("FusedConv2D") and f["absorbed"] == ["BiasAdd", "Relu"]
                   for f in views["tf2-function"].fused)
    hlo = inspections[case].hlo
    assert hlo.fusions > 0 and hlo.instructions_after < hlo.instructions_before
    assert {v.label for v in inspections[case].step_s} == {"tf1-graph", "tf2-function", "tf2-xla", "tf1-graph [remapping=False]",
                                             "tf2-function [remapping=False]", "tf2-xla [remapping=False]"}


def test_grappler_option_parsing():
    assert parse_grappler({"remapping": "off", "constant_folding": "ON"}) == {"remapping": False,
                                                                              "constant_folding": True}
    with pytest.raises(ValueError, match="unknown Grappler option 'remap'"):
        parse_grappler({"remap": "off"})
    bad = CliRunner().invoke(cli, ["inspect", "mlp", "--grappler", "remapping=maybe"])
    assert bad.exit_code == 2 and "must be on, off, true or false" in bad.output
    assert CliRunner().invoke(cli, ["inspect", "nope"]).exit_code == 2


def test_the_speed_of_a_variant_says_which_way_and_noisy_is_defined_where_printed():
    from tfcompare.tools.inspect import Inspection, Variant

    plain, off = Variant("tf2-function"), Variant("tf2-function", (("remapping", False),))
    folding = Variant("tf1-graph", (("remapping", False), ("auto_mixed_precision", True)))
    found = Inspection("cnn", {"remapping": False}, [], None,
                       step_s={plain: 9.516e-3, off: 3.9e-3, Variant("tf1-graph"): 1e-3, folding: 2e-3},
                       noisy={plain: False, off: True, Variant("tf1-graph"): False, folding: False})
    lines = found.text().splitlines()
    assert lines[-4].split() == ["tf2-function", "[remapping=False]", "3.90", "ms", "(remapping", "off", "runs", "at",
                                 "2.44x", "the", "speed", "of", "remapping", "on", "(the", "default):", "faster)",
                                 "noisy"]
    assert lines[-2].endswith("(remapping off, auto_mixed_precision on runs at 0.50x the speed of tf1-graph with "
                              "Grappler's defaults: slower)")
    assert lines[-1] == ("noisy = the median's 95% interval reaches beyond \u00b15% of it (or too few rounds for an "
                         "interval): the time is less sure than it looks; more --repeats narrow it.")
    found.noisy[off] = False
    assert "noisy" not in found.text()


def test_inspect_prints_the_folder_it_wrote(tmp_path):
    out = CliRunner().invoke(cli, ["inspect", "linear", "--mode", "tf2-function", "--repeats", "1",
                                   "--logdir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    line = next(line for line in out.output.splitlines() if line.startswith("wrote: "))
    assert line == (f"wrote: {tmp_path}/inspect/linear/ (the graphs before and after, this text; "
                    f"tensorboard --logdir {tmp_path}/inspect/linear)")
    assert list((tmp_path / "inspect" / "linear").glob("events.out.tfevents.*"))
