"""The option types and callbacks the commands share: one check, one message, for every command."""

from __future__ import annotations

import click

_POSITIVE = click.IntRange(min=1)
_SEED = click.IntRange(0, 2**32 - 1)  # numpy's seeds
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


class _Script(click.ParamType):
    """A user's script argument (convert, run-tf1, pair): a regular file under `MAX_SCRIPT_BYTES`, checked from
    `os.stat` alone before anything runs: a FIFO is never opened (that blocks), /dev/zero never read (endless);
    then read in its declared encoding and compiled, so binary data or a SyntaxError is a usage error naming the
    file and line, not a traceback from a child."""

    name = "script"

    def convert(self, value, param, ctx):
        from tfcompare.core.source_files import SourceError, check_script, read_script

        try:
            check_script(value)
            text = read_script(value)  # a regular file under the cap: safe to read here, in the parent
        except SourceError as exc:
            self.fail(f"{value!r} {exc}", param, ctx)
        try:
            compile(text, value, "exec", dont_inherit=True)
        except SyntaxError as exc:  # ValueError: NUL bytes, caught by read_script
            self.fail(f"{value!r} is not valid Python: {exc.msg} (line {exc.lineno})", param, ctx)
        return value


_SCRIPT = _Script()


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


def _grappler_items(ctx, param, values):
    out = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep:
            raise click.BadParameter(f"{item!r} is not KEY=VALUE (e.g. remapping=off)")
        out[key] = value
    return out
