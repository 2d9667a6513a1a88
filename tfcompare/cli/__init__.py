"""The `tfcompare` command: a thin click layer, one library call per subcommand.

One module per command or family (`run`, `pair` with `run-tf1`, `inspect` with `autograph`, ...), each a
`@click.command()` added to the group below; the option types and callbacks they share live in `_params`, how the
process ends (exit codes, signals) in `_process`. A new command: a module of its own and one `add_command` line.
"""

from __future__ import annotations

import sys

import click

from tfcompare.cli import (_process, audit, claims, convert, convert_checkpoint, debug, export, inspect, list_,
                           migrate, pair, pitfalls, run, tensorboard)

__all__ = ["main", "cli"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tfcompare")
def cli():
    """Compare one model written for TensorFlow 1.x and 2.x: equivalence, cost, graphs, TensorBoard."""


for _command in (list_.list_, run.run, pair.pair, convert.convert, convert_checkpoint.convert_checkpoint,
                 pair.run_tf1, migrate.migrate, debug.debug, audit.audit, inspect.inspect, inspect.autograph,
                 export.export, claims.claims, pitfalls.pitfalls, tensorboard.tensorboard):
    cli.add_command(_command)
del _command


def main():
    """The console script: click's own handling, except that Ctrl-C anywhere (even while TensorFlow is
    still importing) exits 130 as interrupted, not 1 as click's "Aborted!"; SIGTERM and SIGHUP stop it the
    same way. Its temporary files go into a folder of its own (see `files.private_tempdir`); processes a killed
    tfcompare left are stopped (see `children.kill_strays`)."""
    _process._enter()
    try:
        code = cli.main(standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Interrupted.", err=True)
        _process._exit(130)
    sys.exit(code if isinstance(code, int) else 0)
