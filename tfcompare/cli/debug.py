"""`tfcompare debug`: where the modes of a case disagree or blow up."""

from __future__ import annotations

from pathlib import Path

import click

from tfcompare.cli._params import _LOGDIR, _SEED, _case, _registry, _run_name, _seconds
from tfcompare.cli._process import _exit
from tfcompare.core.modes import CORE_MODES

__all__ = ["debug"]


@click.command()
@click.argument("case_name", metavar="CASE")
@click.option("--mode", "modes", multiple=True, type=click.Choice(list(CORE_MODES)),
              help="A mode to debug (repeatable). Default: all four; tf1-graph always runs as the reference.")
@click.option("--steps", type=click.IntRange(1, 1000), default=3, show_default=True,
              help="Training steps per mode.")
@click.option("--seed", type=_SEED, default=0, show_default=True, help="Seed for weights and batches.")
@click.option("--dump", "dump_dir", help="Write Grappler's graph after each pass (graph modes) and XLA's HLO "
                                         "(XLA mode) here; a new or empty folder.")
@click.option("--debugger-v2", is_flag=True, help="Also write a Debugger V2 dump of the TF2 modes under the run's "
                                                  "TensorBoard folder.")
@click.option("--eager-functions", is_flag=True, help="Run the tf.function modes' Python step eagerly, so a "
                                                      "breakpoint() in it stops (their numbers are then eager's).")
@click.option("--overhead", is_flag=True, help="Also time each TF2 mode's step with and without numeric checking.")
@click.option("--mode-timeout", type=click.FloatRange(min=0, min_open=True), default=300, show_default=True,
              callback=_seconds, metavar="SECONDS",
              help="Wall-clock limit per mode and piece (as in run); a mode past it is an error finding.")
@click.option("--logdir", type=_LOGDIR, default="logs", show_default=True, help="TensorBoard log directory.")
@click.option("--run-name", callback=_run_name, help="Folder under --logdir. Default: debug-<case>-<time>.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option("--cases-file", type=click.Path(dir_okay=False), help="A Python file of your own cases.")
def debug(case_name, modes, steps, seed, dump_dir, debugger_v2, eager_functions, overhead, mode_timeout, logdir,
          run_name, as_json, cases_file):
    """Where modes of CASE disagree or blow up: the first non-finite op per mode, the Grappler pass that changes a
    graph's result against eager, the first step each mode leaves tf1-graph. One line per finding.
    Exit codes: 0 done (whatever was found), 1 a mode or the case failed to run or timed out, or a mode and
    tf1-graph are both non-finite (nothing to compare), 2 usage error, 130 interrupted (the findings that
    finished are written)."""
    from tfcompare.core.files import FolderTaken, claim_folder
    from tfcompare.report.tensorboard import write_debug
    from tfcompare.run.harness import default_run_name
    from tfcompare.tools.debug import DebugOptions, debug_case
    from tfcompare.tools.debug.dumps import check_folder

    case = _case(_registry(cases_file)[0], case_name)
    if dump_dir is not None:
        if not dump_dir.strip():
            raise click.BadParameter("the dump folder name is empty", param_hint="'--dump'")
        try:
            dump_dir = check_folder(Path(dump_dir))
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--dump'") from None
    try:
        folder = claim_folder(Path(logdir).absolute(), run_name, f"debug-{case.name}-{default_run_name()}")
    except FolderTaken as exc:
        raise click.BadParameter(str(exc), param_hint="'--run-name'") from None
    options = DebugOptions(modes=tuple(modes) or CORE_MODES, steps=steps, seed=seed, dump=dump_dir,
                           debugger_v2=folder if debugger_v2 else None,  # TensorBoard reads it at its logdir
                           eager_functions=eager_functions, overhead=overhead, mode_timeout_s=mode_timeout)
    found = debug_case(case, options, progress=lambda line: click.echo(line, err=True))
    write_debug(folder, found.lines())
    if as_json:
        click.echo(found.json_text())
    else:
        click.echo("\n".join(found.lines()))
        click.echo(f"\nTensorBoard: tensorboard --logdir {folder}")
    if found.interrupted:
        click.echo("Interrupted: the findings that finished are above and in TensorBoard.", err=True)
    _exit(130 if found.interrupted else 1 if found.failed() else 0)
