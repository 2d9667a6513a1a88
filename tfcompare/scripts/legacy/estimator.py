"""`tf.estimator` basics (removed in TF 2.16) on `tf.compat.v1`: an Estimator runs a user's model_fn in a fresh
graph, trains in a `MonitoredTrainingSession` (checkpoints in model_dir, one `Session.run([train_op, loss])` per
step, so whatever observes Session.run sees each training step), evaluates and predicts from the last checkpoint.

Source checked: TF 1.15 / tensorflow_estimator 1.15 `tensorflow_estimator/python/estimator/estimator.py`
(`_train_with_estimator_spec`: `while not mon_sess.should_stop(): _, loss = mon_sess.run([train_op, loss])`;
StopAtStepHook(num_steps=steps, last_step=max_steps); evaluate adds `loss: metrics.mean(loss)` and
`global_step`), `model_fn.py` (EstimatorSpec, ModeKeys TRAIN 'train', EVAL 'eval', PREDICT 'infer'),
`run_config.py` (save_summary_steps 100, save_checkpoints_secs 600, keep_checkpoint_max 5,
log_step_count_steps 100) and `inputs/numpy_io.py` (numpy_input_fn: batch_size 128, num_epochs 1, `shuffle`
must be given; the final smaller batch is kept when num_epochs is set). numpy_input_fn is built on tf.data here
instead of TF1's queue runners: the same batches in order when shuffle is False.
"""

from __future__ import annotations

import collections
import inspect
import tempfile

import numpy as np
import tensorflow as tf

__all__ = ["ModeKeys", "EstimatorSpec", "RunConfig", "Estimator", "TrainSpec", "EvalSpec", "train_and_evaluate",
           "numpy_input_fn", "contents", "inputs_contents"]

_v1 = tf.compat.v1


class ModeKeys:
    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


class EstimatorSpec(collections.namedtuple("EstimatorSpec", [
        "mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs", "training_chief_hooks",
        "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks"])):
    """What a model_fn returns; TRAIN needs loss and train_op, EVAL needs loss, PREDICT needs predictions."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None, export_outputs=None,
                training_chief_hooks=None, training_hooks=None, scaffold=None, evaluation_hooks=None,
                prediction_hooks=None):
        if mode == ModeKeys.TRAIN and (loss is None or train_op is None):
            raise ValueError("Missing loss or train_op." if loss is not None or train_op is not None else
                             "Missing loss.")
        if mode == ModeKeys.EVAL and loss is None:
            raise ValueError("Missing loss.")
        if mode == ModeKeys.PREDICT and predictions is None:
            raise ValueError("Missing predictions.")
        return super().__new__(cls, mode, predictions, loss, train_op, dict(eval_metric_ops or {}), export_outputs,
                               tuple(training_chief_hooks or ()), tuple(training_hooks or ()), scaffold,
                               tuple(evaluation_hooks or ()), tuple(prediction_hooks or ()))


class RunConfig:
    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100, save_checkpoints_steps=None,
                 save_checkpoints_secs=None, session_config=None, keep_checkpoint_max=5,
                 keep_checkpoint_every_n_hours=10000, log_step_count_steps=100, train_distribute=None,
                 device_fn=None, protocol=None, eval_distribute=None, experimental_distribute=None,
                 experimental_max_worker_delay_secs=None, session_creation_timeout_secs=7200):
        if save_checkpoints_steps is None and save_checkpoints_secs is None:
            save_checkpoints_secs = 600
        self.model_dir, self.tf_random_seed = model_dir, tf_random_seed
        self.save_summary_steps, self.save_checkpoints_steps = save_summary_steps, save_checkpoints_steps
        self.save_checkpoints_secs, self.session_config = save_checkpoints_secs, session_config
        self.keep_checkpoint_max, self.log_step_count_steps = keep_checkpoint_max, log_step_count_steps
        self.keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self.is_chief, self.num_worker_replicas, self.task_type, self.task_id = True, 1, "worker", 0

    def replace(self, **kwargs) -> "RunConfig":
        values = {k: v for k, v in vars(self).items() if k in inspect.signature(RunConfig).parameters}
        values.update(kwargs)
        return RunConfig(**values)


def _call(fn, available: dict):
    """Call `fn` with those of `available`'s arguments its signature names (TF1's model_fn/input_fn contract)."""
    params = inspect.signature(fn).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return fn(**available)
    return fn(**{k: v for k, v in available.items() if k in params})


def _features_and_labels(result):
    if isinstance(result, tf.data.Dataset):
        result = _v1.data.make_one_shot_iterator(result).get_next()
    if isinstance(result, (tuple, list)) and len(result) == 2:
        return result[0], result[1]
    return result, None


class Estimator:
    """model_fn(features, labels, mode, params, config) -> EstimatorSpec; model_dir a temporary folder if none."""

    def __init__(self, model_fn, model_dir=None, config=None, params=None, warm_start_from=None):
        if warm_start_from is not None:
            raise NotImplementedError("Estimator(warm_start_from=...) is not provided by tfcompare's legacy runtime;"
                                      " restore the weights with tf.train.Checkpoint")
        self._config = config or RunConfig()
        self._model_dir = model_dir or self._config.model_dir or tempfile.mkdtemp(prefix="estimator-")
        self._config = self._config.replace(model_dir=self._model_dir)
        self._model_fn, self._params = model_fn, dict(params or {})

    model_dir = property(lambda self: self._model_dir)
    config = property(lambda self: self._config)
    params = property(lambda self: dict(self._params))
    model_fn = property(lambda self: self._model_fn)

    def _spec(self, input_fn, mode):
        if self._config.tf_random_seed is not None:
            _v1.set_random_seed(self._config.tf_random_seed)
        global_step = _v1.train.get_or_create_global_step()
        with tf.device("/cpu:0"):
            features, labels = _features_and_labels(_call(input_fn, {"mode": mode, "params": self._params,
                                                                     "config": self._config}))
        spec = _call(self._model_fn, {"features": features, "labels": labels, "mode": mode,
                                      "params": self._params, "config": self._config})
        if not isinstance(spec, EstimatorSpec):
            raise ValueError(f"model_fn should return an EstimatorSpec. Given: {type(spec)}")
        return spec, global_step

    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Train until input_fn ends, `steps` more steps, or global step `max_steps`; returns self."""
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if max_steps is not None and self.latest_checkpoint():
            done = _v1.train.load_variable(self.latest_checkpoint(), "global_step")
            if max_steps <= done:
                return self
        if saving_listeners:
            raise NotImplementedError("Estimator.train(saving_listeners=...) is not provided by tfcompare's legacy "
                                      "runtime; use tf.train.CheckpointManager in a custom training loop")
        with tf.Graph().as_default():
            spec, global_step = self._spec(input_fn, ModeKeys.TRAIN)
            # what `tfcompare convert` reads at the first step (the metrics, predictions; the input_fn to build an
            # EVAL spec's metric names in a graph of its own)
            self._train_spec, self._train_input_fn = spec, input_fn
            all_hooks = list(hooks or []) + list(spec.training_hooks)
            if steps is not None or max_steps is not None:
                all_hooks.append(_v1.train.StopAtStepHook(num_steps=steps, last_step=max_steps))
            all_hooks.append(_v1.train.NanTensorHook(spec.loss))
            config = self._config
            if config.log_step_count_steps is not None:  # TF 1.15 logs "loss = ..., step = ..." (INFO)
                all_hooks.append(_v1.train.LoggingTensorHook({"loss": spec.loss, "step": global_step},
                                                             every_n_iter=config.log_step_count_steps))
            with _v1.train.MonitoredTrainingSession(
                    checkpoint_dir=self._model_dir, scaffold=spec.scaffold, hooks=all_hooks,
                    chief_only_hooks=list(spec.training_chief_hooks),
                    save_checkpoint_secs=config.save_checkpoints_secs if config.save_checkpoints_steps is None
                    else None, save_checkpoint_steps=config.save_checkpoints_steps,
                    save_summaries_steps=config.save_summary_steps, config=config.session_config,
                    log_step_count_steps=config.log_step_count_steps) as session:
                while not session.should_stop():
                    session.run([spec.train_op, spec.loss])
        return self

    def latest_checkpoint(self):
        return _v1.train.latest_checkpoint(self._model_dir)

    def get_variable_names(self):
        return [name for name, _ in _v1.train.list_variables(self._checkpoint(None))]

    def get_variable_value(self, name):
        return _v1.train.load_variable(self._checkpoint(None), name)

    def _checkpoint(self, checkpoint_path):
        path = checkpoint_path or self.latest_checkpoint()
        if not path:
            raise ValueError(f"Could not find trained model in model_dir: {self._model_dir}.")
        return path

    def _restored(self, checkpoint_path):
        session = _v1.Session(config=self._config.session_config)
        _v1.train.Saver().restore(session, self._checkpoint(checkpoint_path))
        session.run([_v1.local_variables_initializer(), _v1.tables_initializer()])
        return session

    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """The eval_metric_ops' values (plus `loss`, its mean, and `global_step`) over input_fn or `steps` batches."""
        with tf.Graph().as_default():
            spec, global_step = self._spec(input_fn, ModeKeys.EVAL)
            metrics = dict(spec.eval_metric_ops)
            metrics["loss"] = _v1.metrics.mean(spec.loss)
            values = {k: v[0] for k, v in metrics.items()}
            updates = [v[1] for v in metrics.values()]
            self._checkpoint(checkpoint_path)
            with self._restored(checkpoint_path) as session:
                done = 0
                try:
                    while steps is None or done < steps:
                        session.run(updates)
                        done += 1
                except tf.errors.OutOfRangeError:
                    pass
                results = session.run(values)
                results["global_step"] = session.run(global_step)
        return results

    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None, yield_single_examples=True):
        """Yield the model_fn's predictions for every example input_fn gives (a dict per example for a dict)."""
        with tf.Graph().as_default():
            spec, _ = self._spec(input_fn, ModeKeys.PREDICT)
            predictions = spec.predictions
            if isinstance(predictions, dict) and predict_keys is not None:
                predictions = {k: v for k, v in predictions.items() if k in predict_keys}
            self._checkpoint(checkpoint_path)
            with self._restored(checkpoint_path) as session:
                while True:
                    try:
                        batch = session.run(predictions)
                    except tf.errors.OutOfRangeError:
                        return
                    if not yield_single_examples:
                        yield batch
                    elif isinstance(batch, dict):
                        for i in range(len(next(iter(batch.values())))):
                            yield {k: v[i] for k, v in batch.items()}
                    else:
                        yield from batch


TrainSpec = collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks"], defaults=(None, ()))
EvalSpec = collections.namedtuple("EvalSpec", ["input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs",
                                               "throttle_secs"], defaults=(100, None, (), None, 120, 600))


def train_and_evaluate(estimator, train_spec, eval_spec):
    """Local, one process: train to max_steps, then evaluate once (TF1 evaluated after each checkpoint too)."""
    estimator.train(train_spec.input_fn, hooks=list(train_spec.hooks), max_steps=train_spec.max_steps)
    return estimator.evaluate(eval_spec.input_fn, steps=eval_spec.steps, name=eval_spec.name), None


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None, queue_capacity=1000, num_threads=1):
    """An input_fn over numpy arrays (x: an array or a dict of them): batches of `batch_size`, `num_epochs` times
    (None: forever), shuffled with a buffer of `queue_capacity` when `shuffle`."""
    if not isinstance(shuffle, bool):
        raise ValueError(f"shuffle must be provided and explicitly set as boolean (it is recommended to set it as "
                         f"True for training); got {shuffle}")

    def input_fn():
        features = {k: np.asarray(v) for k, v in x.items()} if isinstance(x, dict) else np.asarray(x)
        data = (features, np.asarray(y)) if y is not None else features
        dataset = tf.data.Dataset.from_tensor_slices(data)
        if shuffle:
            dataset = dataset.shuffle(queue_capacity)
        dataset = dataset.repeat(num_epochs).batch(batch_size)
        return _v1.data.make_one_shot_iterator(dataset).get_next()

    return input_fn


def inputs_contents() -> dict:
    return {"numpy_input_fn": numpy_input_fn}


def contents() -> dict:
    """The names `tf.estimator` provides (its `inputs` submodule is added by the runtime)."""
    train = _v1.train
    return {"Estimator": Estimator, "EstimatorSpec": EstimatorSpec, "ModeKeys": ModeKeys, "RunConfig": RunConfig,
            "TrainSpec": TrainSpec, "EvalSpec": EvalSpec, "train_and_evaluate": train_and_evaluate,
            "SessionRunHook": train.SessionRunHook, "SessionRunArgs": train.SessionRunArgs,
            "LoggingTensorHook": train.LoggingTensorHook, "StopAtStepHook": train.StopAtStepHook,
            "CheckpointSaverHook": train.CheckpointSaverHook, "NanTensorHook": train.NanTensorHook,
            "SummarySaverHook": train.SummarySaverHook}
