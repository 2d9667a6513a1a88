"""`tfcompare claims`: the textbook claims measured on this machine, each with a verdict."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tfcompare.cli._params import _LOGDIR, _run_name
from tfcompare.report.glossary import with_words

__all__ = ["claims"]


@click.command()
@click.option("--claim", "numbers", multiple=True, type=int, metavar="N", help="Run only claim N (repeatable).")
@click.option("--quick", is_flag=True, help="Fewer sizes and samples: about 2 minutes on 2 cores, noisier.")
@click.option("--logdir", type=_LOGDIR, default="logs", show_default=True, help="Where the claims folder goes.")
@click.option("--run-name", callback=_run_name, help="Folder under --logdir. Default: claims-<start time>.")
@click.option("--json", "as_json", is_flag=True, help="Print claims.json instead of the table.")
def claims(numbers, quick, logdir, run_name, as_json):
    """Measure the textbook claims about static vs dynamic graphs on this machine and give each a verdict.

    Writes claims.md, claims.json and plots to <logdir>/<run-name>/, and TensorBoard text and images.
    Exits 1 if an experiment failed (its verdict is `error`; the others still run).
    """
    from tfcompare.claims import CLAIMS, ERROR, run_claims, text
    from tfcompare.core.files import FolderTaken, claim_folder
    from tfcompare.run import harness

    bad = [n for n in numbers if n not in CLAIMS]
    if bad:
        raise click.BadParameter(f"no claim {bad[0]}; valid claims: {', '.join(map(str, CLAIMS))}",
                                 param_hint="'--claim'")
    try:
        run_dir = claim_folder(Path(logdir), run_name, f"claims-{harness.default_run_name()}")
    except FolderTaken as exc:
        raise click.BadParameter(str(exc), param_hint="'--run-name'") from None
    found = run_claims(list(dict.fromkeys(numbers)) or list(CLAIMS), run_dir, quick=quick,
                       progress=lambda line: click.echo(line, err=True))
    if as_json:
        click.echo((run_dir / "claims.json").read_text())
    else:
        click.echo(with_words(text(found, run_dir, quick)))
    sys.exit(1 if any(r.verdict == ERROR for r in found) else 0)
