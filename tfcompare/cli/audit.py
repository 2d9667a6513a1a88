"""`tfcompare audit`: every tf.function retrace of a target explained."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from tfcompare.cli._params import _LOGDIR, _POSITIVE
from tfcompare.cli._process import _exit
from tfcompare.core.results import json_text
from tfcompare.report.glossary import with_words

__all__ = ["audit"]


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("target", required=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--scenario", metavar="NAME", help="Audit a built-in scenario instead (see `tfcompare list`).")
@click.option("--static", "static_path", type=click.Path(exists=True),
              help="Only read this file or folder for hazards; run nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--max-traces", type=_POSITIVE, help="Exit 1 when any function traces more often than this.")
@click.option("--fail-on-retrace", is_flag=True, help="Exit 1 on any avoidable retrace.")
@click.option("--logdir", type=_LOGDIR,
              help="Also write per-function trace counts and tracing time to TensorBoard here.")
@click.option("--overhead", is_flag=True, help="With --scenario: time it plain and audited, interleaved.")
def audit(target, args, scenario, static_path, as_json, max_traces, fail_on_retrace, logdir, overhead):
    """Explain every tf.function retrace of TARGET: argument, cause, cost, fix; and the hazards TF never warns about.

    TARGET is a script (run as __main__ with ARGS after `--`) or package.module:function (called with no
    arguments). Exit codes: 0 fine, 1 a --max-traces/--fail-on-retrace gate failed, 2 usage error (a missing
    script, module or function), 3 the target itself failed: it raised, or exited with a non-zero code through
    sys.exit or os._exit (its traceback is shown, and the traces seen until then are reported); 130 interrupted
    (the traces seen until then are reported).
    """
    from tfcompare.tools import audit as audit_lib

    if overhead and not scenario:
        raise click.BadParameter("--overhead goes with --scenario NAME: it times a built-in scenario plain and "
                                 "audited (tfcompare list shows them)", param_hint="'--overhead'")
    chosen = [x for x in (target, scenario, static_path) if x]
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of TARGET, --scenario NAME or --static PATH")
    if target and ":" in target and not Path(target).exists():
        module_name, _, attr = target.partition(":")
        if not module_name or not attr:
            raise click.BadParameter(f"{target!r} is neither a script nor package.module:function",
                                     param_hint="'TARGET'")
    if static_path:
        report = audit_lib.static_report(static_path)
    elif scenario:
        from eager_models.retracing_scenarios import SCENARIOS

        if scenario not in SCENARIOS:
            raise click.BadParameter(f"unknown scenario {scenario!r}; choose from {', '.join(SCENARIOS)}",
                                     param_hint="'--scenario'")
        if overhead:
            figures = audit_lib.measure_overhead(SCENARIOS[scenario].run)
            click.echo(json_text(figures) if as_json else with_words(
                       f"{scenario}: plain {figures['plain_s']:.3f} s, audited {figures['audited_s']:.3f} s "
                       f"(medians of {figures['repeats']}, interleaved): {figures['ratio']:.2f}x"))
            return
        report = audit_lib.audit_callable(SCENARIOS[scenario].run, f"scenario {scenario}", static=False)
    else:
        # the target's own prints go to stderr when stdout carries the JSON document
        with contextlib.redirect_stdout(sys.stderr) if as_json else contextlib.nullcontext():
            try:
                report = audit_lib.audit_target(target, tuple(args))
            except audit_lib.TargetError as exc:
                raise click.BadParameter(str(exc), param_hint="'TARGET'") from None
    text = report.text()
    if logdir:
        from tfcompare.report.tensorboard import write_audit

        write_audit(Path(logdir) / "audit", report, text)
    click.echo(json_text(report.to_json()) if as_json else with_words(text))
    if report.status == "interrupted":
        _exit(130)
    if report.status == "failed":
        sys.exit(3)
    too_many = max_traces is not None and any(f.traces > max_traces for f in report.functions)
    retraced = fail_on_retrace and any(f.avoidable_retraces for f in report.functions)
    sys.exit(1 if too_many or retraced else 0)
