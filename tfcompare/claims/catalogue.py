"""Every claim by number: the one list the CLI's choices, the runner and the tests read."""

from __future__ import annotations

from tfcompare.claims import (batch_size, compiled_vs_eager, first_call_vs_depth, fusion, large_matmul, memory,
                              partial_conversion, resnet_figures, serialisation, shape_errors, tracing_semantics,
                              variable_lengths)
from tfcompare.claims.claim import Claim

__all__ = ["CLAIMS"]

CLAIMS: dict[int, Claim] = {m.CLAIM.number: m.CLAIM for m in (
    compiled_vs_eager, large_matmul, fusion, tracing_semantics, variable_lengths, first_call_vs_depth, batch_size,
    memory, shape_errors, serialisation, resnet_figures, partial_conversion)}
