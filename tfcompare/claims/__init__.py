"""`tfcompare claims`: the textbook statements about static and dynamic graphs, measured here.

Each claim is a module named for what it measures, holding its experiment (`measure`, which runs
TensorFlow), its judgement (`judge`, a pure function of the measurements that states its threshold)
and, where a picture helps, its `plot`. A verdict is `holds`, `does not hold`, or `inconclusive` when
the noise is larger than the distance to the threshold; an experiment that fails is `error`. The
judgement keeps the interval it judged and the bar (`Check`), so every verdict line shows them.
Nothing here states a verdict in advance: every verdict is computed from this run's numbers.
"""

from tfcompare.claims.catalogue import CLAIMS
from tfcompare.claims.claim import Claim, ClaimResult, Judged
from tfcompare.claims.report import run_claims, text
from tfcompare.claims.verdicts import (ERROR, FAILS, HOLDS, INCONCLUSIVE, Check, at_least, at_most, check, ratio_noise,
                                       speed_ratio)

__all__ = ["Claim", "ClaimResult", "Judged", "Check", "CLAIMS", "check", "at_least", "at_most", "ratio_noise",
           "speed_ratio", "run_claims", "text", "HOLDS", "FAILS", "INCONCLUSIVE", "ERROR"]
