"""`tfcompare debug`: when modes disagree or blow up, find the op, the Grappler pass or the step that did it.

One module per question: `numerics` (the first non-finite value, per mode), `grappler` (which optimizer pass,
switched off, brings a graph mode back to eager's numbers), `divergence` (the first step a mode leaves
tolerance against tf1-graph, and the variables that left first), `dumps` (Grappler's per-pass graphs, XLA's
HLO, a Debugger V2 dump); `session` runs them on one case, `report` holds and prints the findings.
"""

from tfcompare.tools.debug.report import DebugReport
from tfcompare.tools.debug.session import DebugOptions, debug_case

__all__ = ["DebugOptions", "DebugReport", "debug_case"]
