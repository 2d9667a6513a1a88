"""`tfcompare pair` and `tfcompare run-tf1`: users' scripts run unchanged, each in its own process."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import click

from tfcompare.cli._params import _LOGDIR, _SCRIPT, _run_name, _seconds
from tfcompare.cli._process import own_failure_exits_3
from tfcompare.report.glossary import with_words

__all__ = ["pair", "run_tf1"]


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("tf1_script", metavar="TF1_SCRIPT", type=_SCRIPT)
@click.argument("tf2_script", metavar="TF2_SCRIPT", type=_SCRIPT)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--steps", type=click.IntRange(1, 20), default=3, show_default=True,
              help="Training steps compared (each script is stopped after them).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1, max=3600), default=120, show_default=True,
              callback=_seconds, help="Seconds each script may take to reach its steps.")
@click.option("--dropout", type=click.Choice(["as-written", "off"]), default="as-written", show_default=True,
              help="off: every dropout both scripts call (tf.nn.dropout, tf.compat.v1.nn.dropout, keras Dropout) is "
                   "the identity, in both processes (the files are unchanged): each side would draw its own masks, "
                   "so live dropout cannot agree step by step. The output says how many calls were replaced.")
@click.option("--emit-case", "emit_case", type=click.Path(dir_okay=False), metavar="OUT.py",
              help="When the pair agrees, write a cases file for `tfcompare run --cases-file OUT.py` "
                   "(refuses an existing file).")
@click.option("--logdir", type=_LOGDIR, default="logs", show_default=True, help="TensorBoard log directory.")
@click.option("--run-name", callback=_run_name, help="Folder under --logdir. Default: pair-<tf2 script>-<time>.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--no-timing", "no_timing", is_flag=True,
              help="Skip timing both training steps after the comparison (about a second each).")
@own_failure_exits_3
def pair(tf1_script, tf2_script, args, steps, timeout_s, dropout, emit_case, logdir, run_name, as_json, no_timing):
    """Does TF2_SCRIPT train like TF1_SCRIPT? Each runs unchanged in its own process (ARGS after `--` go to both);
    TF2 gets TF1's initial weights and batches; the first steps' losses, gradients and weights are compared and
    each known cause of a difference is named (optimizer, learning rate, loss reduction, extra ops, initialisation).
    Exit codes: 0 agree, 1 differ (or non-finite: a loss, gradient or weight NaN or inf on either side), 2 usage
    error, 3 could not compare (a script failed, did not train in time, or its variables cannot be paired; the
    message says which) or tfcompare itself failed (its traceback is saved to a file the message names)."""
    import importlib
    import threading

    from tfcompare.core.files import FolderTaken, check_claimable, claim_folder
    from tfcompare.scripts.pair import AGREE, DIFFER, FAILED, NON_FINITE, PairOptions, pair_scripts
    from tfcompare.scripts.pair.emit import check_target, emit

    if emit_case is not None:
        try:
            check_target(Path(emit_case))
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--emit-case'") from None
    try:  # before both scripts run, not after
        check_claimable(Path(logdir).absolute(), run_name)
    except FolderTaken as exc:
        raise click.BadParameter(str(exc), param_hint="'--run-name'") from None
    # the TensorBoard writer (TensorBoard's own, without TensorFlow) is imported while the two scripts run
    importer = threading.Thread(target=importlib.import_module, args=("tfcompare.report.events",), daemon=True)
    importer.start()
    options = PairOptions(steps=steps, timeout_s=timeout_s, args=tuple(args), dropout=dropout, timing=not no_timing)
    try:
        result = pair_scripts(tf1_script, tf2_script, options)
    except Exception:  # tfcompare's own failure exits 3 (`own_failure_exits_3`), not with a module half imported;
        importer.join()  # an interrupt does not wait for the import (it exits at once, see `_process._exit`)
        raise
    importer.join()  # never exit with a module half imported
    folder = None
    if result.status != FAILED or result.findings:  # a run that could not compare keeps what it learned
        from tfcompare.core.files import default_run_name
        from tfcompare.report.events import write_pair

        try:
            default = f"pair-{Path(tf2_script).stem}-{default_run_name()}"
            folder = claim_folder(Path(logdir).absolute(), run_name, default)
        except FolderTaken as exc:
            raise click.BadParameter(str(exc), param_hint="'--run-name'") from None
        result.tensorboard = str(folder)
        write_pair(folder, [dataclasses.asdict(c) for c in result.checks], result.lines(), result.timing)
    if emit_case is not None:
        if result.status == AGREE:
            try:
                emit(Path(emit_case), result)
                result.notes.append(f"cases file written: {emit_case} (tfcompare run --cases-file {emit_case})")
            except (ValueError, OSError) as exc:
                result.notes.append(f"no cases file written: {exc}")
        else:
            result.notes.append(f"no cases file written: the pair does not agree ({emit_case} not created)")
    if as_json:
        click.echo(result.json_text())
    else:
        shown = "\n".join(result.lines())
        if folder is not None:
            shown += f"\n\nTensorBoard: tensorboard --logdir {folder}"
        click.echo(with_words(shown))
    sys.exit({AGREE: 0, DIFFER: 1, NON_FINITE: 1, FAILED: 3}[result.status])


@click.command("run-tf1", context_settings={"ignore_unknown_options": True})
@click.argument("script", metavar="SCRIPT", type=_SCRIPT)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--steps", type=click.IntRange(1, 20), default=5, show_default=True,
              help="Training steps observed before the script is stopped.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1, max=3600), default=120, show_default=True,
              callback=_seconds, help="Seconds the script may take.")
@click.option("--logdir", type=_LOGDIR, default="logs", show_default=True, help="TensorBoard log directory.")
@click.option("--run-name", callback=_run_name, help="Folder under --logdir. Default: run-tf1-<script>-<time>.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@own_failure_exits_3
def run_tf1(script, args, steps, timeout_s, logdir, run_name, as_json):
    """Does the TF1 SCRIPT run here, unchanged? It runs as `pair` runs its TF1 side (ARGS after `--`): `import
    tensorflow` as tensorflow.compat.v1, tf.contrib and tf.estimator from tfcompare's legacy runtime (TF 1.15's
    definitions), known dataset loaders replaced by seeded synthetic data; each training step's loss is printed
    and written to TensorBoard. Exit codes: 0 it trained (or ran to its end), 1 a step's loss is not finite (inf or
    NaN), 2 usage error, 3 it failed or ran out of time (the reason is printed), or tfcompare itself failed (its
    traceback saved to a file it names), 130 interrupted (143 SIGTERM, 129 SIGHUP): the steps until then are
    printed and written."""
    from tfcompare.cli._process import _exit
    from tfcompare.core.files import FolderTaken, check_claimable, claim_folder
    from tfcompare.scripts.run_tf1 import FAILED, NON_FINITE, run_tf1 as run

    try:  # before the script runs, not after
        check_claimable(Path(logdir).absolute(), run_name)
    except FolderTaken as exc:
        raise click.BadParameter(str(exc), param_hint="'--run-name'") from None
    result = run(script, steps=steps, timeout_s=timeout_s, args=tuple(args))
    folder = None
    if result.losses:
        from tfcompare.core.files import default_run_name
        from tfcompare.report.events import write_run_tf1

        try:
            folder = claim_folder(Path(logdir).absolute(), run_name, f"run-tf1-{Path(script).stem}-{default_run_name()}")
        except FolderTaken as exc:
            raise click.BadParameter(str(exc), param_hint="'--run-name'") from None
        write_run_tf1(folder, result.losses, result.lines())
    if as_json:
        click.echo(result.json_text())
    else:
        click.echo("\n".join(result.lines()))
        if folder is not None:
            click.echo(f"\nTensorBoard: tensorboard --logdir {folder}")
    if result.interrupted:
        click.echo("Interrupted: the steps seen until then are above" + (" and in TensorBoard." if folder else "."),
                   err=True)
        _exit(130)  # 143 after SIGTERM, 129 after SIGHUP
    sys.exit({FAILED: 3, NON_FINITE: 1}.get(result.status, 0))
