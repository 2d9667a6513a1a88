"""Counting what is in a graph: op types of a GraphDef, its control flow, its fused kernels, HLO text."""

from __future__ import annotations

import collections
import re

__all__ = ["CONTROL_FLOW_OPS", "op_counts", "control_flow_ops", "fused_ops", "fused_kinds", "hlo_counts"]

CONTROL_FLOW_OPS = ("While", "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase",
                    "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond")

_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%?[\w.\-]+\s*=\s*\S+")


def op_counts(graph_def, *, library: bool = True) -> collections.Counter:
    """Op types of a GraphDef, including the bodies in its function library when `library`."""
    ops = collections.Counter(n.op for n in graph_def.node)
    if library:
        for fn in graph_def.library.function:
            ops.update(n.op for n in fn.node_def)
    return ops


def control_flow_ops(graph_def) -> dict[str, int]:
    counts = op_counts(graph_def)
    return {op: counts[op] for op in CONTROL_FLOW_OPS if counts[op]}


def fused_ops(graph_def) -> list[dict]:
    """Every fused kernel node: `{"node", "op", "absorbed": [ops it absorbed, from its fused_ops attr]}`."""
    out = []
    for node in graph_def.node:
        if "Fused" in node.op:
            absorbed = [s.decode() for s in node.attr["fused_ops"].list.s] if "fused_ops" in node.attr else []
            out.append({"node": node.name, "op": node.op, "absorbed": absorbed})
    return out


def fused_kinds(fused: list[dict]) -> collections.Counter:
    """`_FusedMatMul(BiasAdd)` -> how many such kernels."""
    return collections.Counter(f"{f['op']}({'+'.join(f['absorbed'])})" if f["absorbed"] else f["op"] for f in fused)


def hlo_counts(text: str) -> tuple[int, int]:
    """(instructions of the ENTRY computation, fusion instructions anywhere in the module) in HLO text."""
    instructions = fusions = 0
    in_entry = False
    for line in text.splitlines():
        if line.startswith("ENTRY "):
            in_entry = True
        elif in_entry and line.startswith("}"):
            in_entry = False
        if _INSTRUCTION.match(line):
            instructions += in_entry
            fusions += bool(re.search(r"\bfusion\(", line))
    return instructions, fusions
