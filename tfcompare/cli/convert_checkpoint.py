"""`tfcompare convert-checkpoint`: a TF1 Saver checkpoint as a TF2 checkpoint of convert's rewrite, proven."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tfcompare.cli._params import _SCRIPT
from tfcompare.cli._process import own_failure_exits_3

__all__ = ["convert_checkpoint"]


@click.command("convert-checkpoint")
@click.argument("new_script", metavar="NEW.py", type=_SCRIPT)
@click.argument("tf1_checkpoint", metavar="TF1_CKPT", type=click.Path(path_type=Path))
@click.option("-o", "--output", "output", required=True, metavar="PREFIX", type=click.Path(path_type=Path),
              help="The TF2 checkpoint's prefix to write (PREFIX.index, PREFIX.data-*); refused if it exists "
                   "unless --force.")
@click.option("--force", is_flag=True, help="Replace an existing checkpoint at PREFIX.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@own_failure_exits_3
def convert_checkpoint(new_script, tf1_checkpoint, output, force, as_json):
    """Convert TF1_CKPT (what the TF1 script's tf.train.Saver wrote: a prefix, or its folder) into a TF2
    checkpoint of NEW.py's model (the rewrite `tfcompare convert` wrote), read with
    tf.train.Checkpoint(model=model).read(PREFIX). NEW.py's setup runs (everything above `model = Model()`, none
    of its training); the model loads TF1's variables by name with its restore_tf1_checkpoint, is written, and
    is read back into a fresh model whose every mapped variable must equal TF1's bit for bit; what of TF1's
    checkpoint is left (optimizer slots, the global step) is listed. Exit codes: 0 converted and proven, 1 a
    variable read back differs (nothing written), 2 usage error, 3 not converted (the rewrite's code failed, or
    tfcompare did: the message says which)."""
    from tfcompare.scripts.convert.checkpoints import CONVERTED, DIFFERS, check_checkpoint_paths
    from tfcompare.scripts.convert.checkpoints import convert_checkpoint as convert

    new_script = Path(new_script)
    try:  # before NEW.py's code runs
        check_checkpoint_paths(new_script, tf1_checkpoint, output, force)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    result = convert(new_script, tf1_checkpoint, output, force)
    click.echo(result.json_text() if as_json else "\n".join(result.lines()))
    sys.exit({CONVERTED: 0, DIFFERS: 1}.get(result.status, 3))
