"""The entry point of a distributed mode's processes: `python -m tfcompare.worker SPEC.json`.

It sits above the registry (it must find a built-in case by name, or load the user's cases file) and hands the
case to `run.distributed.replica`; the harness starts it by name, never imports it.
"""

from __future__ import annotations

import json
import sys
import time


def _case(spec: dict):
    if spec.get("cases_file"):
        from tfcompare.core.cases import load_cases_file

        case = {c.name: c for c in load_cases_file(spec["cases_file"])}[spec["case"]]
    else:
        from tfcompare.registry import CASES, DEBUG_CASES

        case = {**CASES, **DEBUG_CASES}[spec["case"]]
    return case.with_options(**spec["options"]) if spec.get("options") else case  # as the run configured it


def main(path: str) -> int:
    t0 = time.perf_counter()
    with open(path) as f:
        spec = json.load(f)
    from tfcompare.run.distributed import replica

    return replica.run(_case(spec), spec, t0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
