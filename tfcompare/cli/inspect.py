"""`tfcompare inspect` and `tfcompare autograph`: what the graph compilers did to a case."""

from __future__ import annotations

from pathlib import Path

import click

from tfcompare.cli._params import _LOGDIR, _case, _grappler_items, _registry
from tfcompare.core.results import json_text
from tfcompare.report.glossary import with_words

__all__ = ["autograph", "inspect"]

_MAX_INSPECT_REPEATS = 1000  # rounds of interleaved blocks: a median and IQR settle long before; a bound, not a hang


@click.command()
@click.argument("case_name", metavar="CASE")
@click.option("--cases-file", type=click.Path(dir_okay=False), help="A Python file of your own cases.")
def autograph(case_name, cases_file):
    """Show AutoGraph's rewrite of CASE's TF2 step and the control-flow ops of its TF1 and tf.function graphs."""
    from tfcompare.tools.autograph import autograph_view

    click.echo(autograph_view(_case(_registry(cases_file)[0], case_name)).text())


@click.command()
@click.argument("case_name", metavar="CASE")
@click.option("--mode", "modes", multiple=True, type=click.Choice(["tf1-graph", "tf2-function", "tf2-xla"]),
              help="A graph mode to inspect (repeatable). Default: all three.")
@click.option("--no-remapping", is_flag=True, help="Also run with Grappler's remapper (op fusion) off.")
@click.option("--no-constant-folding", is_flag=True, help="Also run with Grappler's constant folding off.")
@click.option("--grappler", "grappler_items", multiple=True, callback=_grappler_items, metavar="KEY=on|off",
              help="Also run with this Grappler option (repeatable), e.g. arithmetic_optimization=off.")
@click.option("--repeats", type=click.IntRange(1, _MAX_INSPECT_REPEATS), default=10, show_default=True,
              help=f"Timed rounds per variant (at most {_MAX_INSPECT_REPEATS}: each round times every variant).")
@click.option("--logdir", type=_LOGDIR, default="logs", show_default=True, help="TensorBoard log directory.")
@click.option("--json", "as_json", is_flag=True, help="Print the inspection as JSON.")
@click.option("--cases-file", type=click.Path(dir_okay=False), help="A Python file of your own cases.")
def inspect(case_name, modes, no_remapping, no_constant_folding, grappler_items, repeats, logdir, as_json,
            cases_file):
    """What Grappler and XLA did to CASE: graphs before/after, fused kernels, HLO; the time it bought."""
    from tfcompare.report.tensorboard import write_inspection
    from tfcompare.tools.inspect import inspect_case, parse_grappler

    case = _case(_registry(cases_file)[0], case_name)
    items = dict(grappler_items)
    if no_remapping:
        items["remapping"] = "off"
    if no_constant_folding:
        items["constant_folding"] = "off"
    try:
        options = parse_grappler(items)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--grappler'") from None
    found = inspect_case(case, tuple(modes) or ("tf1-graph", "tf2-function", "tf2-xla"), options, repeats=repeats)
    text = found.text()
    folder = Path(logdir) / "inspect" / case_name
    write_inspection(folder, found, text)
    click.echo(json_text(found.to_json()) if as_json else with_words(
        f"{text}\n\nwrote: {folder.absolute()}/ (the graphs before and after, this text; "
        f"tensorboard --logdir {folder})"))
