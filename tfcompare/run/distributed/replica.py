"""One process of a distributed mode, given its case: the harness starts `python -m tfcompare.worker SPEC.json`,
which finds the case (built in, or from the cases file) and calls `run` here.

The spec names the mode, this process's task, the seeds and sizes; the process rebuilds the same weights and
batches as the harness, computes the forward pass and the averaged gradients, runs K steps, times steady steps,
and writes its result JSON atomically.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

__all__ = ["run"]


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


def _write(spec: dict, out: dict) -> None:
    path = f"{spec['out']}-{spec.get('task', 0)}.json"
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(out, f)
    os.replace(tmp, path)


def _data(case, spec):
    seed, size = spec["seed"], spec["batch_size"]
    weights = case.init_weights(np.random.default_rng(seed))
    batch = case.make_batch(np.random.default_rng(seed + 1), size)
    batches = [case.make_batch(np.random.default_rng(seed + 2 + i), size) for i in range(spec["steps"])]
    return weights, batch, batches


def _wait_for(path: str, what: str, limit_s: float = 120) -> None:
    deadline = time.monotonic() + limit_s
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError(f"the chief did not {what} within {limit_s:g} s")
        time.sleep(0.02)


def _tf1_ps(case, spec: dict, t0: float) -> int:
    """TF1 between-graph replication: this process is the parameter server (serves until killed) or worker i,
    which builds its own graph with the variables on the ps (`replica_device_setter`), the case's optimizer in
    `SyncReplicasOptimizer`, and feeds its shard of each global batch."""
    import tensorflow as tf

    from tfcompare.core.graph_builder import replicated, weight_loader

    tf1 = tf.compat.v1
    threads = spec.get("threads") or 1
    config = tf1.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
    cluster = tf1.train.ClusterSpec(spec["cluster"])
    task = spec["task"]
    role = "ps" if task == "ps" else "worker"
    server = tf1.train.Server(cluster, job_name=role, task_index=0 if role == "ps" else task, config=config)
    if role == "ps":
        server.join()
        return 0
    n, size = spec["workers"], spec["batch_size"]
    weights, batch, batches = _data(case, spec)
    part = slice(task * size // n, (task + 1) * size // n)
    with tf1.Graph().as_default():
        setter = tf1.train.replica_device_setter(worker_device=f"/job:worker/task:{task}", cluster=cluster)
        with tf1.device(setter), replicated(n) as replication:
            parts = case.build_graph(case.inputs)
            names = list(weights)
            grads = tf1.gradients(parts.loss, [parts.variables[k] for k in names])
            load, load_feeds = weight_loader(parts.variables)
        hook = replication["optimizer"].make_session_run_hook(task == 0, num_tokens=0)

        def feed(b):
            b = case.tf1_inputs(b)
            return {p: np.asarray(b[k])[part] if np.ndim(b[k]) else b[k] for k, p in parts.inputs.items()}

        initialised, ready = spec["out"] + ".initialised", spec["out"] + ".weights-loaded"
        if task != 0:  # a worker session that finds the model uninitialised sleeps 30 s before it looks again
            _wait_for(initialised, "initialise the variables")
        with tf1.train.MonitoredTrainingSession(master=server.target, is_chief=task == 0, hooks=[hook],
                                                config=config) as sess:
            if task == 0:  # the chief loads the shared weights onto the ps before anyone steps
                open(initialised, "w").close()
                sess.run(load, {p: weights[k] for k, p in load_feeds.items()})
                open(ready, "w").close()
            else:
                _wait_for(ready, "load the weights")
            ready_s = time.perf_counter() - t0
            forward = sess.run(parts.output, feed(batch))
            gradients = sess.run(grads, feed(batch))
            t1 = time.perf_counter()
            losses = [float(sess.run([parts.train_op, parts.loss], feed(batches[0]))[1])]
            first = time.perf_counter() - t1
            losses += [float(sess.run([parts.train_op, parts.loss], feed(b))[1]) for b in batches[1:]]
            final = sess.run([parts.variables[k] for k in names])
            fetches, timed = [parts.train_op, parts.loss], feed(batch)
            times = []
            for _ in range(spec["repeats"]):  # every worker steps the same number of times: each step is synchronous
                t = time.perf_counter()
                sess.run(fetches, timed)
                times.append(time.perf_counter() - t)
            values = {"forward": np.asarray(forward), "losses": np.asarray(losses)}
            values.update({f"gradients[{k!r}]": np.asarray(g) for k, g in zip(names, gradients)})
            values.update({f"weights[{k!r}]": np.asarray(v) for k, v in zip(names, final)})
            _write(spec, {"mode": spec["mode"], "workers": n, "strategy": "SyncReplicasOptimizer", "task": task,
                          "ready_s": ready_s, "first_call_s": first, "step_times_s": times, "traces": 0,
                          "values": {k: v.tolist() for k, v in values.items()}})
            sys.stdout.flush()
            os._exit(0)  # the session's queue-runner threads would wait for a ps that serves forever


def run(case, spec: dict, t0: float) -> int:
    """This process's part of `spec["mode"]` for `case`; 0 when its result is written."""
    if spec["mode"] == "tf1-ps":
        return _tf1_ps(case, spec, t0)
    import tensorflow as tf

    threads = spec.get("threads")
    if threads:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    strategy = _strategy(spec)
    n, size = spec["workers"], spec["batch_size"]
    weights, batch, batches = _data(case, spec)
    batch, batches = case.tf2_inputs(batch), [case.tf2_inputs(b) for b in batches]
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
    from tfcompare.run.distributed.cluster import STRATEGIES

    out = {"mode": spec["mode"], "workers": n, "strategy": STRATEGIES[spec["mode"]], "task": spec.get("task", 0),
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
    _write(spec, out)
    return 0

