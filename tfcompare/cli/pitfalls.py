"""`tfcompare pitfalls`: self-checking demonstrations of what tracing does to Python code."""

from __future__ import annotations

import sys

import click

from tfcompare.core.results import json_text
from tfcompare.report.glossary import with_words

__all__ = ["pitfalls"]


@click.command()
@click.option("--only", multiple=True, metavar="NAME", help="Run only this demonstration (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the measurements as JSON.")
def pitfalls(only, as_json):
    """Run small self-checking demonstrations of what tracing does to Python code, with measured counts."""
    from tfcompare.tools.pitfalls import PITFALLS, pitfalls_text, run_pitfalls

    unknown = [n for n in only if n not in PITFALLS]
    if unknown:
        raise click.BadParameter(f"unknown demonstration {unknown[0]!r}; choose from {', '.join(PITFALLS)}",
                                 param_hint="'--only'")
    found = run_pitfalls(only or None)
    if as_json:
        click.echo(json_text([p.to_json() for p in found]))
    else:
        click.echo(with_words(pitfalls_text(found)))
    sys.exit(0 if all(p.holds and not p.error for p in found) else 1)
