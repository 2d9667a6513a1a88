"""`tfcompare export`: a case as SavedModel and TFLite, each reloaded and compared."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tfcompare.cli._params import _case, _registry
from tfcompare.core.results import json_text

__all__ = ["export"]


@click.command()
@click.argument("case_name", metavar="CASE")
@click.option("--to", "dest", help="Export folder. Default: exports/<case>.")
@click.option("--overwrite", is_flag=True, help="Replace a folder that exists and is not empty.")
@click.option("--no-tflite", is_flag=True, help="SavedModels only.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--cases-file", type=click.Path(dir_okay=False), help="A Python file of your own cases.")
def export(case_name, dest, overwrite, no_tflite, as_json, cases_file):
    """Export CASE as SavedModel (TF2 and TF1) and TFLite (float, dynamic-range quantised); reload each
    without the model's code and compare it with the original. Exits 1 if any format fails or disagrees."""
    from tfcompare.tools.export import ExportError, export_case

    case = _case(_registry(cases_file)[0], case_name)
    try:
        report = export_case(case, Path("exports") / case_name if dest is None else dest, overwrite=overwrite,
                             tflite=not no_tflite)
    except ExportError as exc:
        raise click.BadParameter(str(exc), param_hint="'--to'") from None
    click.echo(json_text(report.to_json()) if as_json else report.text())
    sys.exit(0 if report.ok else 1)
