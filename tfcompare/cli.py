"""The `tfcompare` command: a thin click layer, one library call per subcommand."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sys
from pathlib import Path

import click

from tfcompare.core.modes import CORE_MODES, LEVER_MODES, MODES
from tfcompare.core.results import json_text
from tfcompare.tools.migrate.classify import CLASSES as MIGRATE_CLASSES

__all__ = ["main", "cli"]

_POSITIVE = click.IntRange(min=1)
_SEED = click.IntRange(0, 2**32 - 1)  # numpy's seeds
_MAX_INSPECT_REPEATS = 1000  # rounds of interleaved blocks: a median and IQR settle long before; a bound, not a hang
_MAX_NAME = 200  # folder names: most file systems stop at 255, and temporary names add a few characters


def _registry(cases_file: str | None) -> tuple[dict, tuple[str, ...]]:
    """The built-in cases (the debug cases last) plus the user's `--cases-file` cases (imported only when named),
    and the cases a run without --case runs: the user's when a cases file is given, else the built-in ones
    (the debug cases differ between modes on purpose, so they run only when named)."""
    from tfcompare.core.cases import CaseError, load_cases_file
    from tfcompare.registry import CASES, DEBUG_CASES

    registry, mine = {**CASES, **DEBUG_CASES}, tuple(CASES)
    if cases_file is not None:
        try:
            loaded = load_cases_file(cases_file)
        except CaseError as exc:
            raise click.BadParameter(str(exc), param_hint="'--cases-file'") from None
        registry.update({case.name: case for case in loaded})
        mine = tuple(case.name for case in loaded)
    return registry, mine


def _case(registry: dict, name: str, hint: str = "'CASE'"):
    """The named case, or the one usage error that lists the choices."""
    from tfcompare.core.cases import CaseError, find_case

    try:
        return find_case(registry, name)
    except CaseError as exc:
        raise click.BadParameter(str(exc), param_hint=hint) from None


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


class _Folder(click.ParamType):
    """A folder option, checked once here for every command (see `core.paths`): usage error naming it and why."""

    name = "folder"

    def __init__(self, read: bool = False):
        self.read = read

    def convert(self, value, param, ctx):
        from tfcompare.core.paths import BadPath, input_folder, output_folder

        try:
            (input_folder if self.read else output_folder)(value)
        except BadPath as exc:
            self.fail(str(exc), param, ctx)
        return value


_LOGDIR, _SERVED = _Folder(), _Folder(read=True)


def _case_options(ctx, param, values):
    """`--option depth=3` -> {"depth": 3}; the value must be a positive integer."""
    out = {}
    for item in values:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{item!r} is not KEY=VALUE (e.g. depth=3)")
        try:
            value = int(raw)
        except ValueError:
            value = None
        if value is None or value < 1:
            raise click.BadParameter(f"{key}={raw!r}: the value must be a positive integer")
        out[key] = value
    return out


def _lengths(ctx, param, value):
    if value is None:
        return ()
    try:
        out = tuple(int(x) for x in value.split(","))
    except ValueError:
        out = ()
    if not out or any(n < 1 for n in out):
        raise click.BadParameter(f"{value!r} must be comma-separated positive integers, e.g. 7,13,20,31")
    return out


def _seconds(ctx, param, value):
    if value != value:  # NaN passes every range comparison
        raise click.BadParameter(f"{value} is not a number of seconds")
    return value


def _run_name(ctx, param, value):
    if value is not None and (not value.strip() or "/" in value or "\\" in value or value in (".", "..")
                              or "\0" in value):
        raise click.BadParameter(f"{value!r} must be a plain folder name (no '/', not '.' or '..')")
    if value is not None and len(value) > _MAX_NAME:
        raise click.BadParameter(f"{value[:40]!r}... is {len(value)} characters; a run name has at most {_MAX_NAME}")
    return value


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tfcompare")
def cli():
    """Compare one model written for TensorFlow 1.x and 2.x: equivalence, cost, graphs, TensorBoard."""


@cli.command("list")
@click.option("--cases-file", type=click.Path(dir_okay=False), help="Also list the cases defined in this file.")
def list_(cases_file):
    """List the cases (with a one-line description) and the execution modes."""
    from tfcompare.registry import DEBUG_CASES

    registry, _ = _registry(cases_file)
    click.echo("cases:")
    width = max(len(n) for n in registry)
    for name, case in registry.items():
        extra = "".join(f"  [--option {k}={v}]" for k, v in case.options.items())
        extra += "  [--seq-lens]" if case.make_varied_batch else ""
        extra += "  (debug case: tfcompare debug; run only with --case)" if name in DEBUG_CASES else ""
        click.echo(f"  {name.ljust(width)}  {case.description}{extra}")
    click.echo("audit scenarios (tfcompare audit --scenario NAME):")
    from eager_models.retracing_scenarios import SCENARIOS

    width = max(len(n) for n in SCENARIOS)
    for name, scenario in SCENARIOS.items():
        click.echo(f"  {name.ljust(width)}  {scenario.description} ({scenario.traces} traces expected)")
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
    else:
        click.echo(tables.table(result))
        if levers or any(m in LEVER_MODES for m in chosen_modes):
            from tfcompare.run.levers import lever_report, lever_table

            click.echo("\nLevers: how far each TF2 mode takes the step relative to tf1-graph\n")
            click.echo(lever_table(lever_report(result)))
        if result.variable_shapes:
            from tfcompare.run.shapes import variants_table

            click.echo("\nVariable lengths: tf.function variants on the same stream\n")
            click.echo(variants_table(result.variable_shapes))
        click.echo(f"\nresults: {Path(result.run_dir) / 'results.json'}   TensorBoard: tensorboard --logdir {logdir}")
    _exit(0 if result.ok else 1)


@cli.command()
@click.argument("case_name", metavar="CASE")
@click.option("--cases-file", type=click.Path(dir_okay=False), help="A Python file of your own cases.")
def autograph(case_name, cases_file):
    """Show AutoGraph's rewrite of CASE's TF2 step and the control-flow ops of its TF1 and tf.function graphs."""
    from tfcompare.tools.autograph import autograph_view

    click.echo(autograph_view(_case(_registry(cases_file)[0], case_name)).text())


def _grappler_items(ctx, param, values):
    out = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep:
            raise click.BadParameter(f"{item!r} is not KEY=VALUE (e.g. remapping=off)")
        out[key] = value
    return out


@cli.command()
@click.argument("case_name", metavar="CASE")
@click.option("--mode", "modes", multiple=True, type=click.Choice(["tf1-graph", "tf2-function", "tf2-xla"]),
              help="A graph mode to inspect (repeatable). Default: all three.")
@click.option("--no-remapping", is_flag=True, help="Also run with Grappler's remapper (op fusion) off.")
@click.option("--no-constant-folding", is_flag=True, help="Also run with Grappler's constant folding off.")
@click.option("--grappler", "grappler_items", multiple=True, callback=_grappler_items, metavar="KEY=on|off",
              help="Also run with this Grappler option (repeatable), e.g. arithmetic_optimization=off.")
@click.option("--repeats", type=click.IntRange(1, _MAX_INSPECT_REPEATS), default=10, show_default=True,
              help=f"Timed rounds per variant (at most {_MAX_INSPECT_REPEATS}: each round times every variant).")
@click.option("--logdir", type=_LOGDIR, default="logs", show_default=True, help="TensorBoard log directory.")
@click.option("--json", "as_json", is_flag=True, help="Print the inspection as JSON.")
@click.option("--cases-file", type=click.Path(dir_okay=False), help="A Python file of your own cases.")
def inspect(case_name, modes, no_remapping, no_constant_folding, grappler_items, repeats, logdir, as_json,
            cases_file):
    """What Grappler and XLA did to CASE: graphs before/after, fused kernels, HLO; the time it bought."""
    from tfcompare.report.tensorboard import write_inspection
    from tfcompare.tools.inspect import inspect_case, parse_grappler

    case = _case(_registry(cases_file)[0], case_name)
    items = dict(grappler_items)
    if no_remapping:
        items["remapping"] = "off"
    if no_constant_folding:
        items["constant_folding"] = "off"
    try:
        options = parse_grappler(items)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--grappler'") from None
    found = inspect_case(case, tuple(modes) or ("tf1-graph", "tf2-function", "tf2-xla"), options, repeats=repeats)
    text = found.text()
    write_inspection(Path(logdir) / "inspect" / case_name, found, text)
    click.echo(json_text(found.to_json()) if as_json else text)


@cli.command()
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


@cli.command()
@click.argument("case_name", metavar="CASE")
@click.option("--to", "dest", help="Export folder. Default: exports/<case>.")
@click.option("--overwrite", is_flag=True, help="Replace a folder that exists and is not empty.")
@click.option("--no-tflite", is_flag=True, help="SavedModels only.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--cases-file", type=click.Path(dir_okay=False), help="A Python file of your own cases.")
def export(case_name, dest, overwrite, no_tflite, as_json, cases_file):
    """Export CASE as SavedModel (TF2 and TF1) and TFLite (float, dynamic-range quantised); reload each
    without the model's code and compare it with the original. Exits 1 if any format fails or disagrees."""
    from tfcompare.tools.export import ExportError, export_case

    case = _case(_registry(cases_file)[0], case_name)
    try:
        report = export_case(case, Path("exports") / case_name if dest is None else dest, overwrite=overwrite,
                             tflite=not no_tflite)
    except ExportError as exc:
        raise click.BadParameter(str(exc), param_hint="'--to'") from None
    click.echo(json_text(report.to_json()) if as_json else report.text())
    sys.exit(0 if report.ok else 1)


@cli.command()
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
        click.echo(text(found, run_dir))
    sys.exit(1 if any(r.verdict == ERROR for r in found) else 0)


@cli.command()
@click.option("--only", multiple=True, metavar="NAME", help="Run only this demonstration (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the measurements as JSON.")
def pitfalls(only, as_json):
    """Run small self-checking demonstrations of what tracing does to Python code, with measured counts."""
    from tfcompare.tools.pitfalls import PITFALLS, run_pitfalls

    unknown = [n for n in only if n not in PITFALLS]
    if unknown:
        raise click.BadParameter(f"unknown demonstration {unknown[0]!r}; choose from {', '.join(PITFALLS)}",
                                 param_hint="'--only'")
    found = run_pitfalls(only or None)
    if as_json:
        click.echo(json_text([p.to_json() for p in found]))
    else:
        for p in found:
            click.echo(p.text())
    sys.exit(0 if all(p.holds and not p.error for p in found) else 1)


@cli.command(context_settings={"ignore_unknown_options": True})
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
            click.echo(json_text(figures) if as_json else
                       f"{scenario}: plain {figures['plain_s']:.3f} s, audited {figures['audited_s']:.3f} s "
                       f"(medians of {figures['repeats']}, interleaved): {figures['ratio']:.2f}x")
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
    click.echo(json_text(report.to_json()) if as_json else text)
    if report.status == "interrupted":
        _exit(130)
    if report.status == "failed":
        sys.exit(3)
    too_many = max_traces is not None and any(f.traces > max_traces for f in report.functions)
    retraced = fail_on_retrace and any(f.avoidable_retraces for f in report.functions)
    sys.exit(1 if too_many or retraced else 0)


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("tf1_script", metavar="TF1_SCRIPT", type=click.Path(exists=True, dir_okay=False))
@click.argument("tf2_script", metavar="TF2_SCRIPT", type=click.Path(exists=True, dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--steps", type=click.IntRange(1, 20), default=3, show_default=True,
              help="Training steps compared (each script is stopped after them).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1, max=3600), default=120, show_default=True,
              callback=_seconds, help="Seconds each script may take to reach its steps.")
@click.option("--emit-case", "emit_case", type=click.Path(dir_okay=False), metavar="OUT.py",
              help="When the pair agrees, write a cases file for `tfcompare run --cases-file OUT.py` "
                   "(refuses an existing file).")
@click.option("--logdir", type=_LOGDIR, default="logs", show_default=True, help="TensorBoard log directory.")
@click.option("--run-name", callback=_run_name, help="Folder under --logdir. Default: pair-<tf2 script>-<time>.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def pair(tf1_script, tf2_script, args, steps, timeout_s, emit_case, logdir, run_name, as_json):
    """Does TF2_SCRIPT train like TF1_SCRIPT? Each runs unchanged in its own process (ARGS after `--` go to both);
    TF2 gets TF1's initial weights and batches; the first steps' losses, gradients and weights are compared and
    each known cause of a difference is named (optimizer, learning rate, loss reduction, extra ops, initialisation).
    Exit codes: 0 agree, 1 differ, 2 usage error, 3 could not compare (a script failed, did not train in time, or
    its variables cannot be paired; the message says which)."""
    import importlib
    import threading

    from tfcompare.core.files import FolderTaken, check_claimable, claim_folder
    from tfcompare.tools.pair import AGREE, FAILED, PairOptions, pair_scripts
    from tfcompare.tools.pair.emit import check_target, emit

    if emit_case is not None:
        try:
            check_target(Path(emit_case))
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--emit-case'") from None
    try:  # before both scripts run, not after
        check_claimable(Path(logdir).absolute(), run_name)
    except FolderTaken as exc:
        raise click.BadParameter(str(exc), param_hint="'--run-name'") from None
    # TensorFlow (for the TensorBoard run) is imported here while the two scripts run in their own processes
    importer = threading.Thread(target=importlib.import_module, args=("tfcompare.report.tensorboard",), daemon=True)
    importer.start()
    result = pair_scripts(tf1_script, tf2_script, PairOptions(steps=steps, timeout_s=timeout_s, args=tuple(args)))
    importer.join()  # never exit with TensorFlow half imported
    folder = None
    if result.status != FAILED or result.findings:  # a run that could not compare keeps what it learned
        from tfcompare.report.tensorboard import write_pair
        from tfcompare.run.harness import default_run_name

        try:
            default = f"pair-{Path(tf2_script).stem}-{default_run_name()}"
            folder = claim_folder(Path(logdir).absolute(), run_name, default)
        except FolderTaken as exc:
            raise click.BadParameter(str(exc), param_hint="'--run-name'") from None
        result.tensorboard = str(folder)
        write_pair(folder, [dataclasses.asdict(c) for c in result.checks], result.lines())
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
        click.echo("\n".join(result.lines()))
        if folder is not None:
            click.echo(f"\nTensorBoard: tensorboard --logdir {folder}")
    sys.exit({AGREE: 0, FAILED: 3}.get(result.status, 1))


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("tf1_script", metavar="OLD.py", type=click.Path(exists=True, dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False), metavar="NEW.py",
              help="The TF2 script to write (refuses an existing file unless --force).")
@click.option("--style", type=click.Choice(["module"]), default="module", show_default=True,
              help="The model as a tf.Module (a Keras 3 Model style is not written yet).")
@click.option("--force", is_flag=True, help="Overwrite NEW.py if it exists.")
@click.option("--steps", type=click.IntRange(1, 20), default=3, show_default=True,
              help="Training steps `pair` compares to prove the rewrite.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1, max=3600), default=120, show_default=True,
              callback=_seconds, help="Seconds the TF1 script (and each side of the pair) may take to reach its steps.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def convert(tf1_script, args, output, style, force, steps, timeout_s, as_json):
    """Write a TF2 rewrite of the TF1 training script OLD.py to NEW.py, then prove it with `pair OLD.py NEW.py`.
    OLD.py runs to its first training step (ARGS after `--`), as pair's TF1 side runs it; its graph becomes a
    tf.Module, a Keras optimizer with TF1's settings and a @tf.function step; the script's own code is carried
    over; what cannot be translated is marked TODO(tfcompare). Exit codes: 0 written and pair agrees, 1 written
    and pair differs, 2 usage error, 3 not written or not compared (the message says why)."""
    from tfcompare.tools.pair.convert import FAILED, WRITTEN_AGREES, ConvertOptions, convert_script

    target = Path(output)
    if target.resolve() == Path(tf1_script).resolve():
        raise click.BadParameter(f"{output} is OLD.py itself: write the TF2 script to another file", param_hint="'-o'")
    if target.exists() and not force:
        raise click.BadParameter(f"{output} exists (use --force to overwrite it)", param_hint="'-o'")
    if not target.parent.resolve().is_dir():
        raise click.BadParameter(f"{target.parent} is not a folder", param_hint="'-o'")
    result = convert_script(tf1_script, target, ConvertOptions(args=tuple(args), timeout_s=timeout_s, steps=steps))
    click.echo(result.json_text() if as_json else "\n".join(result.lines()))
    failed = result.status == FAILED or (result.pair is not None and result.pair.status == "failed")
    sys.exit(0 if result.status == WRITTEN_AGREES else 3 if failed else 1)


@cli.command("run-tf1", context_settings={"ignore_unknown_options": True})
@click.argument("script", metavar="SCRIPT", type=click.Path(exists=True, dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option("--steps", type=click.IntRange(1, 20), default=5, show_default=True,
              help="Training steps observed before the script is stopped.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=1, max=3600), default=120, show_default=True,
              callback=_seconds, help="Seconds the script may take.")
@click.option("--logdir", type=_LOGDIR, default="logs", show_default=True, help="TensorBoard log directory.")
@click.option("--run-name", callback=_run_name, help="Folder under --logdir. Default: run-tf1-<script>-<time>.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def run_tf1(script, args, steps, timeout_s, logdir, run_name, as_json):
    """Does the TF1 SCRIPT run here, unchanged? It runs as `pair` runs its TF1 side (ARGS after `--`): `import
    tensorflow` as tensorflow.compat.v1, tf.contrib and tf.estimator from tfcompare's legacy runtime (TF 1.15's
    definitions), known dataset loaders replaced by seeded synthetic data; each training step's loss is printed
    and written to TensorBoard. Exit codes: 0 it trained (or ran to its end), 2 usage error, 3 it failed or ran
    out of time (the reason is printed)."""
    from tfcompare.core.files import FolderTaken, claim_folder
    from tfcompare.tools.pair.run_tf1 import FAILED, run_tf1 as run

    result = run(script, steps=steps, timeout_s=timeout_s, args=tuple(args))
    folder = None
    if result.losses:
        from tfcompare.report.tensorboard import write_run_tf1
        from tfcompare.run.harness import default_run_name

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
    sys.exit(3 if result.status == FAILED else 0)


@cli.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--markdown", "markdown_out", type=click.Path(dir_okay=False), metavar="FILE",
              help="Also write the report as Markdown to FILE (refuses an existing file).")
@click.option("--fail-on", type=click.Choice(MIGRATE_CLASSES),
              help="Exit 1 when a finding of this class or a worse one exists (for CI). A file or folder that "
                   "cannot be read is `unparsable`, the worst class: a partial scan fails every --fail-on.")
@click.option("--scaffold", "scaffold_out", type=click.Path(dir_okay=False), metavar="OUT.py",
              help="Write a starter cases file from the (single) TF1 file given (refuses an existing file).")
@click.option("--no-upgrade", is_flag=True, help="Do not run tf_upgrade_v2 (faster; no renamed/left column).")
def migrate(paths, as_json, markdown_out, fail_on, scaffold_out, no_upgrade):
    """What in TF1 source breaks on this TensorFlow: each reference resolved and classified, what tf_upgrade_v2
    renames, misses or breaks, and the TF2 idiom. Reads PATH... (files or folders); never edits or runs them.
    Only regular files of at most 1 MiB are read; anything else is reported as that file's `unparsable` finding."""
    from tfcompare.tools.migrate import MigrateError, OutputError, check_outputs, migrate as run_migrate, write_outputs

    try:
        check_outputs(paths, markdown_out, scaffold_out)
        report = run_migrate(paths, upgrade=not no_upgrade)
        write_outputs(report, paths, markdown_out, scaffold_out)
    except MigrateError as exc:
        raise click.BadParameter(str(exc), param_hint="'PATH'") from None
    except OutputError as exc:
        raise click.BadParameter(str(exc), param_hint=f"'{exc.option}'") from None
    click.echo(json_text(report.to_json()) if as_json else report.text())
    if scaffold_out and not as_json:
        click.echo(f"starter cases file: {scaffold_out}  (next: fill in its TODOs, then "
                   f"tfcompare run --cases-file {scaffold_out})")
    sys.exit(1 if fail_on and report.fails(fail_on) else 0)


@cli.command()
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


def _exit(code: int):
    """Exit with `code`; if a piece of the run hung past its limit, without waiting for it at shutdown.
    An interrupt that was a SIGTERM or SIGHUP exits 128 + that signal, as an unhandled one would."""
    from tfcompare.core.watchdog import abandoned_threads

    if code == 130 and _STOPPED_BY:
        code = 128 + _STOPPED_BY
    if _ENTRY_POINT and (abandoned_threads() or code >= 128):  # after Ctrl-C, TF's threads may be mid-call
        sys.stdout.flush()
        sys.stderr.flush()
        _REMOVE_TEMP()  # os._exit skips atexit
        os._exit(code)
    sys.exit(code)


_ENTRY_POINT = False  # True under the console script; never under click's in-process test runner
_STOPPED_BY = 0  # SIGTERM or SIGHUP, turned into an interrupt
_REMOVE_TEMP = lambda: None  # noqa: E731  (the console script's own temporary folder)


def _stop_as_interrupt(signum, frame):
    """SIGTERM and SIGHUP stop a command as Ctrl-C does (children stopped, what finished kept, temporary files
    removed), where their default action would end the process on the spot."""
    global _STOPPED_BY
    if _STOPPED_BY:  # the second one: stop now
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    _STOPPED_BY = signum
    handler = signal.getsignal(signal.SIGINT)  # a run's deferred handler, or Python's default
    if not callable(handler):  # SIGINT ignored (a background job): stop all the same
        raise KeyboardInterrupt
    handler(signal.SIGINT, frame)


def main():
    """The console script: click's own handling, except that Ctrl-C anywhere (even while TensorFlow is
    still importing) exits 130 as interrupted, not 1 as click's "Aborted!"; SIGTERM and SIGHUP stop it the
    same way. Its temporary files go into a folder of its own (see `files.private_tempdir`); processes a killed
    tfcompare left are stopped (see `children.kill_strays`)."""
    global _ENTRY_POINT, _REMOVE_TEMP
    from tfcompare.core.children import kill_strays
    from tfcompare.core.files import private_tempdir

    _ENTRY_POINT = True
    _REMOVE_TEMP = private_tempdir()
    kill_strays()  # what the scripts of a tfcompare killed by SIGKILL detached and left running
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:  # under nohup, SIGHUP stays ignored
            signal.signal(sig, _stop_as_interrupt)
    try:
        code = cli.main(standalone_mode=False)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Interrupted.", err=True)
        _exit(130)
    sys.exit(code if isinstance(code, int) else 0)
