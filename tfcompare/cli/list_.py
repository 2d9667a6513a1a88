"""`tfcompare list`: the cases, the audit scenarios and the modes."""

from __future__ import annotations

import click

from tfcompare.cli._params import _registry
from tfcompare.core.modes import CORE_MODES, MODES

__all__ = ["list_"]


@click.command("list")
@click.option("--cases-file", type=click.Path(dir_okay=False), help="Also list the cases defined in this file.")
def list_(cases_file):
    """List the cases (with a one-line description) and the execution modes."""
    from tfcompare.registry import DEBUG_CASES

    registry, _ = _registry(cases_file)
    click.echo("cases:")
    width = max(len(n) for n in registry)
    for name, case in registry.items():
        extra = "".join(f"  [--option {k}={v}]" for k, v in case.options.items())
        extra += "  [--seq-lens]" if case.make_varied_batch else ""
        extra += "  (debug case: tfcompare debug; run only with --case)" if name in DEBUG_CASES else ""
        click.echo(f"  {name.ljust(width)}  {case.description}{extra}")
    click.echo("audit scenarios (tfcompare audit --scenario NAME):")
    from eager_models.retracing_scenarios import SCENARIOS

    width = max(len(n) for n in SCENARIOS)
    for name, scenario in SCENARIOS.items():
        click.echo(f"  {name.ljust(width)}  {scenario.description} ({scenario.traces} traces expected)")
    click.echo("modes:")
    width = max(len(n) for n in MODES)
    for name, opts in MODES.items():
        tag = "" if name in CORE_MODES else "  (lever mode: --mode or --levers)"
        click.echo(f"  {name.ljust(width)}  {opts.description}{tag}")
