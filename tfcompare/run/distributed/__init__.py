"""Distributed modes: the case's step on TensorFlow's own distributed runtime, in real processes the harness starts
and stops.

`tf2-mirrored`: `MirroredStrategy` over N logical CPU devices in one child process (logical devices must be set
before TensorFlow starts, which the harness's own process has done long ago). `tf2-multiworker`:
`MultiWorkerMirroredStrategy` over N worker processes with `TF_CONFIG` each, gRPC on 127.0.0.1 ports chosen free
at run time, a custom training loop (`strategy.run` in a `tf.function`), not Keras `fit`. Each replica takes its
contiguous shard of the global batch; gradients and losses are averaged across replicas with the strategy's
all-reduce and applied once, so the result is comparable with the single-process run on the whole batch.
`tf1-ps`: TF1 between-graph replication, a parameter server and N workers (`SyncReplicasOptimizer`).
`cluster` starts, waits for and stops the processes; `replica` is what one process computes.
"""

from tfcompare.run.distributed.cluster import DIST_MODES, run_distributed, supported

__all__ = ["DIST_MODES", "run_distributed", "supported"]
