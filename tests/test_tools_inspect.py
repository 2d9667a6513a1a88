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
