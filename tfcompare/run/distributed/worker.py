"""One process of a distributed mode: `python -m tfcompare.run.distributed.worker SPEC.json`.

The spec names the case (built in, or from a cases file), the mode, this process's task, the seeds and sizes; the
process rebuilds the same weights and batches as the harness, runs the forward pass, the averaged gradients and
K steps under the strategy, then times steady steps, and the chief writes the result JSON atomically. Imports
none of the harness: only the case contract, the registry and TensorFlow.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np


def _case(spec):
    if spec.get("cases_file"):
        from tfcompare.core.cases import load_cases_file

        return {c.name: c for c in load_cases_file(spec["cases_file"])}[spec["case"]]
    from tfcompare.registry import CASES, DEBUG_CASES

    return {**CASES, **DEBUG_CASES}[spec["case"]]


def _strategy(spec):
    import tensorflow as tf

    n = spec["workers"]
    if spec["mode"] == "tf2-mirrored":
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * n)
        return tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])
    os.environ["TF_CONFIG"] = json.dumps({"cluster": {"worker": spec["addresses"]},
                                          "task": {"type": "worker", "index": spec["task"]}})
    return tf.distribute.MultiWorkerMirroredStrategy()


def main(path: str) -> int:
    with open(path) as f:
        spec = json.load(f)
    t0 = time.perf_counter()
    import tensorflow as tf

    threads = spec.get("threads")
    if threads:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    strategy = _strategy(spec)
    case = _case(spec)
    n, seed, size = spec["workers"], spec["seed"], spec["batch_size"]
    weights = case.init_weights(np.random.default_rng(seed))
    batch = case.tf2_inputs(case.make_batch(np.random.default_rng(seed + 1), size))
    batches = [case.tf2_inputs(case.make_batch(np.random.default_rng(seed + 2 + i), size))
               for i in range(spec["steps"])]
    with strategy.scope():
        model = case.tf2_model(weights)
    names = list(model.variables_by_name)
    variables = [model.variables_by_name[k] for k in names]
    shard = size // n

    def distribute(b):
        def piece(ctx):
            i = ctx.replica_id_in_sync_group
            return {k: tf.constant(v[i * shard:(i + 1) * shard]) for k, v in b.items()}
        return strategy.experimental_distribute_values_from_function(piece)

    def replica_grads(inputs):
        with tf.GradientTape() as tape:
            loss = model.loss(inputs)
        grads = tape.gradient(loss, variables)
        ctx = tf.distribute.get_replica_context()
        return ctx.all_reduce("MEAN", loss), ctx.all_reduce("MEAN", grads)

    @tf.function
    def grads_fn(inputs):
        loss, grads = strategy.run(replica_grads, args=(inputs,))
        return strategy.experimental_local_results(loss)[0], strategy.experimental_local_results(grads)[0]

    @tf.function
    def step(inputs):
        loss, grads = strategy.run(replica_grads, args=(inputs,))
        model.optimizer.apply(strategy.experimental_local_results(grads)[0], variables)  # once, cross-replica
        return strategy.experimental_local_results(loss)[0]

    @tf.function
    def forward(inputs):
        return strategy.gather(strategy.run(model.__call__, args=(inputs,)), axis=0)

    ready_s = time.perf_counter() - t0
    public = {"tf2-mirrored": "MirroredStrategy", "tf2-multiworker": "MultiWorkerMirroredStrategy"}[spec["mode"]]
    out = {"mode": spec["mode"], "workers": n, "strategy": public, "task": spec.get("task", 0),
           "replicas": strategy.num_replicas_in_sync, "ready_s": ready_s}
    values = {"forward": np.asarray(forward(distribute(batch)))}
    _, grads = grads_fn(distribute(batch))
    values.update({f"gradients[{k!r}]": np.asarray(g) for k, g in zip(names, grads)})
    t1 = time.perf_counter()
    losses = [float(step(distribute(batches[0])))]
    out["first_call_s"] = time.perf_counter() - t1
    losses += [float(step(distribute(b))) for b in batches[1:]]
    values["losses"] = np.asarray(losses)
    values.update({f"weights[{k!r}]": v.numpy() for k, v in zip(names, variables)})
    timed = distribute(batch)
    times = []
    for _ in range(spec["repeats"]):
        t = time.perf_counter()
        step(timed).numpy()
        times.append(time.perf_counter() - t)
    out["step_times_s"] = times
    out["traces"] = step.experimental_get_tracing_count()
    out["values"] = {k: np.asarray(v).tolist() for k, v in values.items()}
    if spec.get("task", 0) == 0:
        tmp = spec["out"] + f".tmp-{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(out, f)
        os.replace(tmp, spec["out"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
