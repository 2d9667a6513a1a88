"""`tfcompare tensorboard`: TensorBoard on a log directory, on 127.0.0.1 only."""

from __future__ import annotations

import signal

import click

from tfcompare.cli._params import _SERVED

__all__ = ["tensorboard"]


@click.command()
@click.option("--logdir", type=_SERVED, default="logs", show_default=True, help="The log directory to serve.")
@click.option("--port", type=click.IntRange(0, 65535), default=6006, show_default=True,
              help="Port on 127.0.0.1 (0: any free port).")
def tensorboard(logdir, port):
    """Start TensorBoard on the log directory, bound to 127.0.0.1 only; Ctrl-C stops it."""
    from tfcompare.report.server import TensorBoard, TensorBoardError

    try:
        board = TensorBoard(logdir, port)
        url = board.start()
    except TensorBoardError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(f"TensorBoard on {logdir} at {url}/  (Ctrl-C to stop)")

    def stop_on(signum, frame):  # SIGTERM and SIGHUP stop the server as Ctrl-C does
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, stop_on) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        board.proc.wait()
    except KeyboardInterrupt:
        click.echo("stopping TensorBoard")
    finally:
        board.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
