"""`tfcompare migrate`: what in TF1 source breaks on this TensorFlow, read and never run."""

from __future__ import annotations

import sys

import click

from tfcompare.core.results import json_text
from tfcompare.tools.migrate.classify import CLASSES as MIGRATE_CLASSES

__all__ = ["migrate"]


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--markdown", "markdown_out", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write the report as Markdown to FILE (refuses an existing file).")
@click.option("--fail-on", type=click.Choice(MIGRATE_CLASSES),
              help="Exit 1 when a finding of this class or a worse one exists (for CI). A file or folder that "
                   "cannot be read is `unparsable`, the worst class: a partial scan fails every --fail-on.")
@click.option("--scaffold", "scaffold_out", type=click.Path(dir_okay=False), metavar="OUT.py",
              help="Write a starter cases file from the (single) TF1 file given (refuses an existing file).")
@click.option("--no-upgrade", is_flag=True, help="Do not run tf_upgrade_v2 (faster; no renamed/left column).")
def migrate(paths, as_json, markdown_out, fail_on, scaffold_out, no_upgrade):
    """What in TF1 source breaks on this TensorFlow: each reference resolved and classified, what tf_upgrade_v2
    renames, misses or breaks, and the TF2 idiom. Reads PATH... (files or folders); never edits or runs them.
    Only regular files of at most 1 MiB are read; anything else is reported as that file's `unparsable` finding."""
    from tfcompare.tools.migrate import MigrateError, OutputError, check_outputs, migrate as run_migrate, write_outputs

    try:
        check_outputs(paths, markdown_out, scaffold_out)
        report = run_migrate(paths, upgrade=not no_upgrade)
        write_outputs(report, paths, markdown_out, scaffold_out)
    except MigrateError as exc:
        raise click.BadParameter(str(exc), param_hint="'PATH'") from None
    except OutputError as exc:
        raise click.BadParameter(str(exc), param_hint=f"'{exc.option}'") from None
    click.echo(json_text(report.to_json()) if as_json else report.text())
    if scaffold_out and not as_json:
        click.echo(f"starter cases file: {scaffold_out}  (next: fill in its TODOs, then "
                   f"tfcompare run --cases-file {scaffold_out})")
    sys.exit(1 if fail_on and report.fails(fail_on) else 0)
