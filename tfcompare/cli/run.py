"""`tfcompare run`: the built-in (or your) cases in every mode, one call to `run.harness`."""

from __future__ import annotations

import os

import click

from tfcompare.cli._params import (_LOGDIR, _POSITIVE, _SEED, _case, _case_options, _lengths, _registry, _run_name,
                                   _seconds)
from tfcompare.cli._process import _exit
from tfcompare.core.modes import CORE_MODES, LEVER_MODES, MODES
from tfcompare.core.results import json_text
from tfcompare.report.glossary import with_words

__all__ = ["run"]


def _apply_options(registry: dict, names, options: dict) -> dict:
    """Rebuild the named cases that declare these options; an option no named case has is a usage error."""
    if not options:
        return registry
    from tfcompare.core.cases import CaseError

    registry = dict(registry)
    for key in options:
        if not any(key in registry[n].options for n in names):
            known = sorted({f"{n}: {k}" for n in names for k in registry[n].options})
            raise click.BadParameter(f"no chosen case has option {key!r}; options: {', '.join(known) or 'none'}",
                                     param_hint="'--option'")
    for name in names:
        mine = {k: v for k, v in options.items() if k in registry[name].options}
        try:
            registry[name] = registry[name].with_options(**mine)
        except CaseError as exc:
            raise click.BadParameter(str(exc), param_hint="'--option'") from None
    return registry


def _split_reason(case, seed: int) -> str | None:
    """Why the case's TF2 step cannot run as partial conversion (building its model once), or None."""
    import numpy as np

    from tfcompare.core.runners import split_reason

    try:
        return split_reason(case.tf2_model(case.init_weights(np.random.default_rng(seed))))
    except Exception:  # a model that cannot even be built fails as an error row, with its message, in the run
        return None


@click.command()
@click.option("--case", "cases", multiple=True, metavar="NAME", help="A case to run (repeatable). Default: all.")
@click.option("--mode", "modes", multiple=True, type=click.Choice(list(MODES)),
              help=f"A mode to run (repeatable). Default: {', '.join(CORE_MODES)}.")
@click.option("--levers", is_flag=True, help=f"Add the TF2 lever modes ({', '.join(LEVER_MODES)}).")
@click.option("--batch-size", type=_POSITIVE, help="Batch size for every case. Default: each case's own.")
@click.option("--steps", type=_POSITIVE, help="Training steps compared for equivalence. Default: 5 (3 with --quick).")
@click.option("--repeats", type=_POSITIVE,
              help="A fixed number of timed rounds per mode. Default: adaptive (see --target, --case-budget).")
@click.option("--target", type=click.FloatRange(0, 1, min_open=True), metavar="FRACTION",
              help="Sample until every speed ratio's 95% interval is within this fraction either side. "
                   "Default: 0.03 (0.05 with --quick).")
@click.option("--case-budget", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="...or until a case's timing has taken this long (at least 6 rounds). "
                   "Default: 2 (0.5 with --quick).")
@click.option("--loop-steps", type=_POSITIVE, default=10, show_default=True, help="Steps per call in looped modes.")
@click.option("--threads", type=_POSITIVE, default=os.cpu_count() or 1, show_default=True,
              help="Intra- and inter-op threads, the same for every mode.")
@click.option("--seed", type=_SEED, default=0, show_default=True, help="Seed for weights and batches.")
@click.option("--quick", is_flag=True, help="Fewer steps, rounds and shorter blocks: a fast look, noisier.")
@click.option("--logdir", type=_LOGDIR, default="logs", show_default=True, help="TensorBoard log directory.")
@click.option("--run-name", callback=_run_name, help="Folder under --logdir. Default: the start time.")
@click.option("--overwrite", is_flag=True, help="Replace a previous run of the same --run-name (only a tfcompare run).")
@click.option("--mode-timeout", type=click.FloatRange(min=0, min_open=True), default=300, show_default=True,
              callback=_seconds, metavar="SECONDS",
              help="Wall-clock limit per mode and phase; a mode past it is an error row.")
@click.option("--cases-file", type=click.Path(dir_okay=False), help="A Python file of your own cases (CASES = [...]).")
@click.option("--option", "options", multiple=True, callback=_case_options, metavar="KEY=VALUE",
              help="A case option for the cases that have it, e.g. depth=3 for resnet (repeatable).")
@click.option("--seq-lens", callback=_lengths, metavar="N,N,...",
              help="Stream batches with these lengths through the tf.function variants (cases with varying dims).")
@click.option("--json", "as_json", is_flag=True, help="Print the results.json document instead of the table.")
@click.option("--profile", is_flag=True, help="Capture a tf.profiler trace per mode (extra 'profile' to view).")
@click.option("--distributed", type=click.IntRange(1, 8), metavar="N",
              help="Add tf2-mirrored (N logical CPUs) and tf2-multiworker (N worker processes), each compared with "
                   "tf1-graph on the whole batch.")
def run(cases, modes, levers, batch_size, steps, repeats, target, case_budget, loop_steps, threads, seed, quick, logdir,
        run_name, overwrite, mode_timeout, cases_file, options, seq_lens, as_json, profile, distributed):
    """Run cases in every mode: check equivalence with tf1-graph, time first call and steady state.

    Writes <logdir>/<run-name>/results.json and one TensorBoard run per case and mode. Exits 1 when
    any case × mode disagrees with tf1-graph or fails, 130 when interrupted (what finished is kept).
    """
    from tfcompare.core.budget import TooBig
    from tfcompare.core.files import FolderTaken
    from tfcompare.report import tables
    from tfcompare.run import harness

    registry, mine = _registry(cases_file)
    cases = cases or mine  # a cases file and no --case: that file's cases
    for name in cases:
        _case(registry, name, "'--case'")
    registry = _apply_options(registry, cases or tuple(registry), options)
    for mode in modes:  # asked for explicitly, both of them: say no now; otherwise the row is skipped
        for name in cases:
            why = registry[name].unsupported_modes.get(mode)
            if why is None and MODES[mode].partial:
                why = _split_reason(registry[name], seed)
            if why:
                raise click.BadParameter(f"case {name!r} does not support mode {mode!r}: {why}",
                                         param_hint="'--mode'")
    chosen_cases = tuple(dict.fromkeys(cases)) or tuple(registry)
    if seq_lens and not any(registry[n].make_varied_batch for n in chosen_cases):
        varying = [n for n, c in registry.items() if c.make_varied_batch]
        raise click.BadParameter(f"none of the chosen cases has a varying dim; cases that do: {', '.join(varying)}",
                                 param_hint="'--seq-lens'")
    chosen_modes = tuple(dict.fromkeys(modes or CORE_MODES))
    if levers:
        chosen_modes = tuple(dict.fromkeys(chosen_modes + LEVER_MODES))
    preset = harness.QUICK if quick else harness.DEFAULTS
    config = harness.RunConfig(
        cases=chosen_cases,
        modes=chosen_modes,
        batch_size=batch_size,
        steps=steps or preset["steps"],
        repeats=repeats or preset["repeats"],
        target=target or preset.get("target", harness.RunConfig.target),
        case_budget_s=case_budget or preset["case_budget_s"],
        seed=seed,
        loop_steps=loop_steps,
        min_block_s=preset["min_block_s"],
        threads=threads,
        quick=quick,
        profile=profile,
        seq_lens=seq_lens,
        mode_timeout_s=mode_timeout,
        distributed=distributed or 0,
        optimized_graphs=preset.get("optimized_graphs", True),
        xla_probes=preset.get("xla_probes", True),
    )
    try:
        result = harness.run(config, registry, logdir, run_name, overwrite=overwrite,
                             progress=lambda line: click.echo(line, err=True))
    except KeyboardInterrupt:
        click.echo("Interrupted: the finished cases are in results.json.", err=True)
        _exit(130)
    except TooBig as exc:
        raise click.BadParameter(str(exc), param_hint=exc.options or "'--batch-size'") from None
    except FolderTaken as exc:
        more = "" if overwrite or "already holds a run" not in str(exc) else " or pass --overwrite to replace it"
        raise click.BadParameter(f"{exc}{more}", param_hint="'--run-name'") from None
    if as_json:
        click.echo(json_text(result.to_json()))
        warning = (result.environment.get("load") or {}).get("warning")
        if warning:  # the table carries it otherwise; here stdout is the document
            click.echo(f"warning: {warning}", err=True)
    else:
        parts = [tables.table(result)]
        if levers or any(m in LEVER_MODES for m in chosen_modes):
            from tfcompare.run.levers import lever_report, lever_table

            parts += ["\nLevers: how far each TF2 mode takes the step relative to tf1-graph\n",
                      lever_table(lever_report(result))]
        if result.variable_shapes:
            from tfcompare.run.shapes import variants_table

            parts += ["\nVariable lengths: tf.function variants on the same stream\n",
                      variants_table(result.variable_shapes)]
        parts.append("\n" + tables.where_text(result, logdir))
        click.echo(with_words("\n".join(parts)))
    _exit(0 if result.ok else 1)
