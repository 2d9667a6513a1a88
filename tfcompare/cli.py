"""The `tfcompare` command: a thin click layer, one library call per subcommand."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import click

from tfcompare.modes import CORE_MODES, LEVER_MODES, MODES

__all__ = ["main", "cli"]

_POSITIVE = click.IntRange(min=1)


def _registry(cases_file: str | None) -> dict:
    """The built-in cases plus the user's `--cases-file` cases (imported only when named)."""
    from tfcompare.cases import CaseError, load_cases_file
    from tfcompare.registry import CASES

    registry = dict(CASES)
    if cases_file:
        try:
            for case in load_cases_file(cases_file):
                registry[case.name] = case
        except CaseError as exc:
            raise click.BadParameter(str(exc), param_hint="'--cases-file'") from None
    return registry


def _check_writable(logdir: str) -> Path:
    path = Path(logdir)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".tfcompare-write-test-"):
            pass
    except OSError as exc:
        raise click.BadParameter(f"cannot write to {logdir!r}: {exc.strerror or exc}", param_hint="'--logdir'")
    return path


def _run_name(ctx, param, value):
    if value is not None and (not value or "/" in value or "\\" in value or value in (".", "..")):
        raise click.BadParameter(f"{value!r} must be a plain folder name (no '/', not '.' or '..')")
    return value


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tfcompare")
def cli():
    """Compare one model written for TensorFlow 1.x and 2.x: equivalence, cost, graphs, TensorBoard."""


@cli.command("list")
@click.option("--cases-file", type=click.Path(dir_okay=False), help="Also list the cases defined in this file.")
def list_(cases_file):
    """List the cases (with a one-line description) and the execution modes."""
    registry = _registry(cases_file)
    click.echo("cases:")
    width = max(len(n) for n in registry)
    for name, case in registry.items():
        click.echo(f"  {name.ljust(width)}  {case.description}")
    click.echo("modes:")
    width = max(len(n) for n in MODES)
    for name, opts in MODES.items():
        tag = "" if name in CORE_MODES else "  (lever mode: --mode or --levers)"
        click.echo(f"  {name.ljust(width)}  {opts.description}{tag}")


@cli.command()
@click.option("--case", "cases", multiple=True, metavar="NAME", help="A case to run (repeatable). Default: all.")
@click.option("--mode", "modes", multiple=True, type=click.Choice(list(MODES)),
              help=f"A mode to run (repeatable). Default: {', '.join(CORE_MODES)}.")
@click.option("--levers", is_flag=True, help=f"Add the TF2 lever modes ({', '.join(LEVER_MODES)}).")
@click.option("--batch-size", type=_POSITIVE, help="Batch size for every case. Default: each case's own.")
@click.option("--steps", type=_POSITIVE, help="Training steps compared for equivalence. Default: 5 (3 with --quick).")
@click.option("--repeats", type=_POSITIVE, help="Timed rounds per mode. Default: 20 (7 with --quick).")
@click.option("--loop-steps", type=_POSITIVE, default=10, show_default=True, help="Steps per call in looped modes.")
@click.option("--threads", type=_POSITIVE, default=os.cpu_count() or 1, show_default=True,
              help="Intra- and inter-op threads, the same for every mode.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for weights and batches.")
@click.option("--quick", is_flag=True, help="Fewer steps, rounds and shorter blocks: a fast look, noisier.")
@click.option("--logdir", default="logs", show_default=True, help="TensorBoard log directory.")
@click.option("--run-name", callback=_run_name, help="Folder under --logdir. Default: the start time.")
@click.option("--cases-file", type=click.Path(dir_okay=False), help="A Python file of your own cases (CASES = [...]).")
@click.option("--json", "as_json", is_flag=True, help="Print the results.json document instead of the table.")
@click.option("--profile", is_flag=True, help="Capture a tf.profiler trace per mode (extra 'profile' to view).")
def run(cases, modes, levers, batch_size, steps, repeats, loop_steps, threads, seed, quick, logdir, run_name,
        cases_file, as_json, profile):
    """Run cases in every mode: check equivalence with tf1-graph, time first call and steady state.

    Writes <logdir>/<run-name>/results.json and one TensorBoard run per case and mode. Exits 1 when
    any case × mode disagrees with tf1-graph or fails, 130 when interrupted (what finished is kept).
    """
    from tfcompare import compare, harness

    registry = _registry(cases_file)
    unknown = [c for c in cases if c not in registry]
    if unknown:
        raise click.BadParameter(f"unknown case {unknown[0]!r}; choose from {', '.join(registry)}",
                                 param_hint="'--case'")
    for mode in modes:  # asked for explicitly, both of them: say no now; otherwise the row is skipped
        for name in cases:
            why = registry[name].unsupported_modes.get(mode)
            if why:
                raise click.BadParameter(f"case {name!r} does not support mode {mode!r}: {why}",
                                         param_hint="'--mode'")
    _check_writable(logdir)
    chosen_modes = tuple(dict.fromkeys(modes or CORE_MODES))
    if levers:
        chosen_modes = tuple(dict.fromkeys(chosen_modes + LEVER_MODES))
    preset = harness.QUICK if quick else harness.DEFAULTS
    config = harness.RunConfig(
        cases=tuple(dict.fromkeys(cases)) or tuple(registry),
        modes=chosen_modes,
        batch_size=batch_size,
        steps=steps or preset["steps"],
        repeats=repeats or preset["repeats"],
        seed=seed,
        loop_steps=loop_steps,
        min_block_s=preset["min_block_s"],
        threads=threads,
        quick=quick,
        profile=profile,
    )
    try:
        result = harness.run(config, registry, logdir, run_name,
                             progress=lambda line: click.echo(line, err=True))
    except KeyboardInterrupt:
        click.echo("Interrupted: the finished cases are in results.json.", err=True)
        sys.exit(130)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(compare.table(result))
        if levers or any(m in LEVER_MODES for m in chosen_modes):
            from tfcompare.levers import lever_report

            click.echo("\nLevers: how far each TF2 mode takes the step relative to tf1-graph\n")
            click.echo(compare.lever_table(lever_report(result)))
        click.echo(f"\nresults: {Path(result.run_dir) / 'results.json'}   TensorBoard: tensorboard --logdir {logdir}")
    sys.exit(0 if result.ok else 1)


@cli.command()
@click.option("--logdir", default="logs", show_default=True, help="The log directory to serve.")
@click.option("--port", type=click.IntRange(0, 65535), default=6006, show_default=True,
              help="Port on 127.0.0.1 (0: any free port).")
def tensorboard(logdir, port):
    """Start TensorBoard on the log directory, bound to 127.0.0.1 only; Ctrl-C stops it."""
    from tfcompare.server import TensorBoard, TensorBoardError

    try:
        board = TensorBoard(logdir, port)
        url = board.start()
    except TensorBoardError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(f"TensorBoard on {logdir} at {url}/  (Ctrl-C to stop)")
    try:
        board.proc.wait()
    except KeyboardInterrupt:
        click.echo("stopping TensorBoard")
    finally:
        board.stop()


def main():
    cli()
