"""`tfcompare convert`: a TF1 training script rewritten as TF2, then proven by `pair`."""

from __future__ import annotations

import sys

import click

from tfcompare.cli._params import _SCRIPT, _seconds
from tfcompare.cli._process import own_failure_exits_3

__all__ = ["convert"]


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("tf1_script", metavar="OLD.py", type=_SCRIPT)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("-o", "--output", "output", required=True, metavar="NEW.py",
              help="The TF2 script to write (refuses an existing file unless --force; never a link).")
@click.option("--style", type=click.Choice(["module", "keras"]), default="module", show_default=True,
              help="The model as a tf.Module, or as a Keras 3 Model of Keras layers where TF1's ops are exactly "
                   "one (Dense, Conv2D, pooling, Flatten, Dropout at a fixed rate; op by op elsewhere).")
@click.option("--force", is_flag=True, help="Overwrite NEW.py if it exists and is a regular file (a link is refused).")
@click.option("--steps", type=click.IntRange(1, 20), default=3, show_default=True,
              help="Training steps `pair` compares to prove the rewrite.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1, max=3600), default=120, show_default=True,
              callback=_seconds, help="Seconds the TF1 script (and each side of the pair) may take to reach its steps.")
@click.option("--no-levers", is_flag=True,
              help="Write the plain rewrite: do not try the speed levers (jit_compile=True on the step), each of "
                   "which is otherwise written only if its own pair agrees and it is measured faster (one more pair "
                   "per lever).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@own_failure_exits_3
def convert(tf1_script, args, output, style, force, steps, timeout_s, no_levers, as_json):
    """Write a TF2 rewrite of the TF1 training script OLD.py to NEW.py, then prove it with `pair OLD.py NEW.py`.
    OLD.py runs to its first training step (ARGS after `--`), as pair's TF1 side runs it; its graph becomes a
    tf.Module (--style keras: a keras.Model of Keras layers), a Keras optimizer with TF1's settings and a
    @tf.function step; the script's own code is carried over; what cannot be translated is marked TODO(tfcompare).
    Both training steps are timed; a speed lever is written only when the rewrite with it still agrees and is
    faster beyond both intervals. Exit codes: 0 written and pair agrees, 1 written and pair differs, 2 usage
    error, 3 not written or not compared (the message says why), or tfcompare itself failed (its traceback saved
    to a file it names)."""
    from tfcompare.scripts.convert import LEVERS, WRITTEN_AGREES, WRITTEN_DIFFERS, ConvertOptions, check_paths, \
        convert_script

    try:  # before the TF1 script runs: a path found bad after it would be blamed on the script
        check_paths(tf1_script, output, force)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'-o'") from None
    options = ConvertOptions(args=tuple(args), timeout_s=timeout_s, steps=steps, style=style, force=force,
                             levers=() if no_levers else LEVERS)
    result = convert_script(tf1_script, output, options)
    click.echo(result.json_text() if as_json else "\n".join(result.lines()))
    sys.exit({WRITTEN_AGREES: 0, WRITTEN_DIFFERS: 1}.get(result.status, 3))  # the status --json prints, 1:1
