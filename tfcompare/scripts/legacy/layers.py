"""`tf.contrib.layers` and `tf.contrib.framework` basics as TensorFlow 1.15 defined them, on `tf.compat.v1`.

Source checked: TF 1.15 `tensorflow/contrib/layers/python/layers/layers.py` (fully_connected: scope
`fully_connected`, variables `weights`/`biases`, activation relu, no bias when a normalizer_fn is given;
convolution2d: scope `Conv`, SAME padding, stride 1; max_pool2d: stride 2, VALID; flatten; batch_norm: scope
`BatchNorm`, decay 0.999, epsilon 0.001, center on, scale off, moving averages through UPDATE_OPS),
`initializers.py` (xavier_initializer = variance_scaling_initializer(1.0, FAN_AVG, uniform); variance_scaling:
factor 2.0, FAN_IN, truncated normal with stddev sqrt(1.3 * factor / n), uniform limit sqrt(3 * factor / n)),
`regularizers.py` (l2_regularizer: scale * l2_loss(w)), `optimizers.py` (optimize_loss) and
`tensorflow/contrib/framework/python/ops/arg_scope.py`.
"""

from __future__ import annotations

import contextlib
import functools
import math

import tensorflow as tf

__all__ = ["arg_scope", "add_arg_scope", "has_arg_scope", "xavier_initializer", "variance_scaling_initializer",
           "l2_regularizer", "l1_regularizer", "fully_connected", "conv2d", "convolution2d", "max_pool2d",
           "avg_pool2d", "flatten", "batch_norm", "dropout", "optimize_loss", "layers_contents",
           "framework_contents", "slim_contents", "OPTIMIZER_CLS_NAMES"]

_v1 = tf.compat.v1
_ARG_SCOPE_STACK: list[dict] = [{}]


def _key(op) -> str:
    return getattr(op, "_key_op", str(op))


@contextlib.contextmanager
def arg_scope(list_ops_or_scope, **kwargs):
    """Default keyword arguments for the listed functions (each decorated with add_arg_scope) within the block."""
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("When attempting to re-use a scope by suppling a dictionary, kwargs must be empty.")
        _ARG_SCOPE_STACK.append(list_ops_or_scope)
    else:
        current = {k: dict(v) for k, v in _ARG_SCOPE_STACK[-1].items()}
        for op in list_ops_or_scope:
            if not has_arg_scope(op):
                raise ValueError(f"{op} is not decorated with @add_arg_scope")
            current.setdefault(_key(op), {}).update(kwargs)
        _ARG_SCOPE_STACK.append(current)
    try:
        yield _ARG_SCOPE_STACK[-1]
    finally:
        _ARG_SCOPE_STACK.pop()


def add_arg_scope(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        merged = dict(_ARG_SCOPE_STACK[-1].get(_key(wrapper), {}))
        merged.update(kwargs)
        return func(*args, **merged)
    wrapper._key_op = _key(func)
    wrapper._add_arg_scope = True
    return wrapper


def has_arg_scope(func) -> bool:
    return getattr(func, "_add_arg_scope", False)


def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None, dtype=tf.float32):
    if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
        raise TypeError(f"Unknown mode {mode} [FAN_IN, FAN_OUT, FAN_AVG]")

    def initializer(shape, dtype=dtype, partition_info=None):
        shape = list(shape)
        fan_in = float(shape[-2]) if len(shape) > 1 else float(shape[-1]) if shape else 1.0
        fan_out = float(shape[-1]) if shape else 1.0
        for dim in shape[:-2]:
            fan_in *= float(dim)
            fan_out *= float(dim)
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]
        if uniform:
            limit = math.sqrt(3.0 * factor / n)
            return _v1.random_uniform(shape, -limit, limit, dtype, seed=seed)
        return _v1.truncated_normal(shape, 0.0, math.sqrt(1.3 * factor / n), dtype, seed=seed)

    return initializer


def xavier_initializer(uniform=True, seed=None, dtype=tf.float32):
    return variance_scaling_initializer(factor=1.0, mode="FAN_AVG", uniform=uniform, seed=seed, dtype=dtype)


def _regularizer(scale, kind: str, loss):
    if isinstance(scale, (int, float)):
        if scale < 0.0:
            raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale}")
        if scale == 0.0:
            return lambda _: None

    def regularizer(weights, name=None):
        with tf.name_scope(name or f"{kind}_regularizer"):
            my_scale = tf.convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return tf.multiply(my_scale, loss(weights), name="value")

    return regularizer


def l2_regularizer(scale, scope=None):
    return _regularizer(scale, "l2", tf.nn.l2_loss)


def l1_regularizer(scale, scope=None):
    return _regularizer(scale, "l1", lambda w: tf.reduce_sum(tf.abs(w)))


def _collect(collections, *values):
    for name in collections or ():
        for value in values:
            _v1.add_to_collection(name, value)


def _variable(name, shape, initializer, regularizer, trainable, collections, dtype):
    var = _v1.get_variable(name, shape=shape, initializer=initializer, regularizer=regularizer, trainable=trainable,
                           dtype=dtype)
    _v1.add_to_collection(_v1.GraphKeys.MODEL_VARIABLES, var)
    _collect(collections, var)
    return var


def _finish(outputs, normalizer_fn, normalizer_params, activation_fn, outputs_collections):
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    if activation_fn is not None:
        outputs = activation_fn(outputs)
    _collect(outputs_collections, outputs)
    return outputs


@add_arg_scope
def fully_connected(inputs, num_outputs, activation_fn=tf.nn.relu, normalizer_fn=None, normalizer_params=None,
                    weights_initializer=None, weights_regularizer=None, biases_initializer=tf.zeros_initializer(),
                    biases_regularizer=None, reuse=None, variables_collections=None, outputs_collections=None,
                    trainable=True, scope=None):
    """x W (+ b), then the normalizer, then the activation; rank > 2 inputs act on their last axis."""
    inputs = tf.convert_to_tensor(inputs)
    weights_initializer = weights_initializer or xavier_initializer()
    with _v1.variable_scope(scope, "fully_connected", [inputs], reuse=reuse):
        depth = _last_dim(inputs)
        weights = _variable("weights", [depth, num_outputs], weights_initializer, weights_regularizer, trainable,
                            variables_collections, inputs.dtype.base_dtype)
        if inputs.shape.rank > 2:
            outputs = tf.tensordot(inputs, weights, [[inputs.shape.rank - 1], [0]])
        else:
            outputs = tf.matmul(inputs, weights)
        if normalizer_fn is None and biases_initializer is not None:
            biases = _variable("biases", [num_outputs], biases_initializer, biases_regularizer, trainable,
                               variables_collections, inputs.dtype.base_dtype)
            outputs = tf.nn.bias_add(outputs, biases)
        return _finish(outputs, normalizer_fn, normalizer_params, activation_fn, outputs_collections)


def _last_dim(inputs) -> int:
    depth = tf.compat.dimension_value(inputs.shape[-1])
    if depth is None:
        raise ValueError(f"The last dimension of the inputs must be defined, saw shape {inputs.shape}")
    return int(depth)


def _pair(value):
    return [value, value] if isinstance(value, int) else list(value)


@add_arg_scope
def convolution2d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None, rate=1,
                  activation_fn=tf.nn.relu, normalizer_fn=None, normalizer_params=None, weights_initializer=None,
                  weights_regularizer=None, biases_initializer=tf.zeros_initializer(), biases_regularizer=None,
                  reuse=None, variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """A 2-D convolution (NHWC), weights [kh, kw, in, out], then bias, normalizer and activation."""
    if data_format not in (None, "NHWC"):
        raise NotImplementedError(f"contrib.layers.conv2d(data_format={data_format!r}) is not provided by tfcompare's"
                                  " legacy runtime (NHWC only); use keras.layers.Conv2D(data_format=...)")
    inputs = tf.convert_to_tensor(inputs)
    weights_initializer = weights_initializer or xavier_initializer()
    with _v1.variable_scope(scope, "Conv", [inputs], reuse=reuse):
        kh, kw = _pair(kernel_size)
        weights = _variable("weights", [kh, kw, _last_dim(inputs), num_outputs], weights_initializer,
                            weights_regularizer, trainable, variables_collections, inputs.dtype.base_dtype)
        outputs = tf.nn.conv2d(inputs, weights, strides=[1, *_pair(stride), 1], padding=padding.upper(),
                               dilations=[1, *_pair(rate), 1])
        if normalizer_fn is None and biases_initializer is not None:
            biases = _variable("biases", [num_outputs], biases_initializer, biases_regularizer, trainable,
                               variables_collections, inputs.dtype.base_dtype)
            outputs = tf.nn.bias_add(outputs, biases)
        return _finish(outputs, normalizer_fn, normalizer_params, activation_fn, outputs_collections)


conv2d = convolution2d


@add_arg_scope
def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC", outputs_collections=None,
               scope=None):
    with tf.name_scope(scope or "MaxPool2D"):
        return tf.nn.max_pool2d(inputs, [1, *_pair(kernel_size), 1], [1, *_pair(stride), 1], padding.upper(),
                                data_format)


@add_arg_scope
def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC", outputs_collections=None,
               scope=None):
    with tf.name_scope(scope or "AvgPool2D"):
        return tf.nn.avg_pool2d(inputs, [1, *_pair(kernel_size), 1], [1, *_pair(stride), 1], padding.upper(),
                                data_format)


@add_arg_scope
def flatten(inputs, outputs_collections=None, scope=None):
    """[batch, ...] -> [batch, k] (TF 1.15: reshape to (static or dynamic batch, -1))."""
    with tf.name_scope(scope or "Flatten"):
        inputs = tf.convert_to_tensor(inputs)
        out = tf.reshape(inputs, (tf.compat.dimension_value(inputs.shape[0]) or tf.shape(inputs)[0], -1))
        out.set_shape([tf.compat.dimension_value(inputs.shape[0]), inputs.shape[1:].num_elements()])
        return out


@add_arg_scope
def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True, outputs_collections=None, scope=None,
            seed=None):
    """TF 1.15 contrib.layers.dropout: keep_prob, and no op at all when not training."""
    with tf.name_scope(scope or "Dropout"):
        if isinstance(is_training, bool):
            return tf.nn.dropout(inputs, rate=1 - keep_prob, noise_shape=noise_shape, seed=seed) \
                if is_training else tf.identity(inputs)
        return tf.cond(is_training, lambda: tf.nn.dropout(inputs, rate=1 - keep_prob, noise_shape=noise_shape,
                                                          seed=seed), lambda: tf.identity(inputs))


@add_arg_scope
def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001, activation_fn=None,
               param_initializers=None, param_regularizers=None, updates_collections=_v1.GraphKeys.UPDATE_OPS,
               is_training=True, reuse=None, variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format="NHWC", zero_debias_moving_mean=False, scope=None,
               renorm=False, renorm_clipping=None, renorm_decay=0.99, adjustment=None):
    """Fused batch normalisation of a rank-2 or rank-4 NHWC input; in training the batch statistics normalise and
    the moving averages (moving -= (moving - batch) * (1 - decay)) are updated by ops put in
    `updates_collections` (UPDATE_OPS), or run with the output when it is None."""
    if batch_weights is not None or renorm or adjustment is not None or data_format != "NHWC":
        raise NotImplementedError("contrib.layers.batch_norm with batch_weights / renorm / adjustment / NCHW is not "
                                  "provided by tfcompare's legacy runtime; use keras.layers.BatchNormalization")
    inputs = tf.convert_to_tensor(inputs)
    rank = inputs.shape.rank
    if rank not in (2, 4):
        raise NotImplementedError(f"contrib.layers.batch_norm of a rank-{rank} input is not provided by tfcompare's "
                                  "legacy runtime (rank 2 or 4); use keras.layers.BatchNormalization")
    inits, regs = param_initializers or {}, param_regularizers or {}
    dtype = inputs.dtype.base_dtype
    with _v1.variable_scope(scope, "BatchNorm", [inputs], reuse=reuse):
        channels = _last_dim(inputs)
        beta = _variable("beta", [channels], inits.get("beta", tf.zeros_initializer()), regs.get("beta"), trainable,
                         variables_collections, dtype) if center else tf.zeros([channels], dtype)
        gamma = _variable("gamma", [channels], inits.get("gamma", tf.ones_initializer()), regs.get("gamma"),
                          trainable, variables_collections, dtype) if scale else tf.ones([channels], dtype)
        moving_mean = _variable("moving_mean", [channels], inits.get("moving_mean", tf.zeros_initializer()), None,
                                False, variables_collections, dtype)
        moving_variance = _variable("moving_variance", [channels],
                                    inits.get("moving_variance", tf.ones_initializer()), None, False,
                                    variables_collections, dtype)
        x = tf.reshape(inputs, [-1, 1, 1, channels]) if rank == 2 else inputs

        def training():
            return _v1.nn.fused_batch_norm(x, gamma, beta, epsilon=epsilon, is_training=True)

        def inference():
            return _v1.nn.fused_batch_norm(x, gamma, beta, mean=moving_mean, variance=moving_variance,
                                           epsilon=epsilon, is_training=False)

        def updates(mean, variance):
            from tensorflow.python.training import moving_averages

            return (moving_averages.assign_moving_average(moving_mean, mean, decay,
                                                          zero_debias=zero_debias_moving_mean),
                    moving_averages.assign_moving_average(moving_variance, variance, decay, zero_debias=False))

        if isinstance(is_training, bool):
            outputs, mean, variance = training() if is_training else inference()
            moving = updates(mean, variance) if is_training else None
        else:
            outputs, mean, variance = tf.cond(is_training, training, inference)
            moving = tf.cond(is_training, lambda: updates(mean, variance),
                             lambda: (tf.identity(moving_mean), tf.identity(moving_variance)))
        if moving is not None and updates_collections is None:
            with tf.control_dependencies(list(moving)):
                outputs = tf.identity(outputs)
        elif moving is not None:
            _collect([updates_collections] if isinstance(updates_collections, str) else updates_collections, *moving)
        if rank == 2:
            outputs = tf.reshape(outputs, tf.shape(inputs))
        return _finish(outputs, None, None, activation_fn, outputs_collections)


OPTIMIZER_CLS_NAMES = {
    "Adagrad": _v1.train.AdagradOptimizer,
    "Adam": _v1.train.AdamOptimizer,
    "Ftrl": _v1.train.FtrlOptimizer,
    "Momentum": lambda learning_rate: _v1.train.MomentumOptimizer(learning_rate, momentum=0.9),
    "RMSProp": _v1.train.RMSPropOptimizer,
    "SGD": _v1.train.GradientDescentOptimizer,
}


def optimize_loss(loss, global_step, learning_rate, optimizer, gradient_noise_scale=None, gradient_multipliers=None,
                  clip_gradients=None, learning_rate_decay_fn=None, update_ops=None, variables=None, name=None,
                  summaries=None, colocate_gradients_with_ops=False, increment_global_step=True):
    """The optimizer's update of `variables` (trainables by default) after UPDATE_OPS, gradients clipped by global
    norm when `clip_gradients` is a float; returns the loss with the update as a control dependency."""
    if gradient_noise_scale is not None or gradient_multipliers is not None or callable(clip_gradients):
        raise NotImplementedError("optimize_loss(gradient_noise_scale / gradient_multipliers / a clip function) is "
                                  "not provided by tfcompare's legacy runtime; write the update with "
                                  "tf.GradientTape and a keras optimizer (clipnorm=...)")
    global_step = global_step if global_step is not None else _v1.train.get_global_step()
    with _v1.variable_scope(name, "OptimizeLoss", [loss, global_step]):
        if update_ops is None:
            update_ops = set(_v1.get_collection(_v1.GraphKeys.UPDATE_OPS))
        if update_ops:
            with tf.control_dependencies(list(update_ops)):
                loss = tf.identity(loss)
        lr = learning_rate
        if isinstance(learning_rate, float):
            lr = _v1.get_variable("learning_rate", [], trainable=False,
                                  initializer=tf.constant_initializer(learning_rate))
        if learning_rate_decay_fn is not None:
            lr = learning_rate_decay_fn(lr, global_step)
        summaries = ["loss", "learning_rate"] if summaries is None else summaries
        if "loss" in summaries:
            _v1.summary.scalar("loss", loss)
        if isinstance(optimizer, str):
            opt = OPTIMIZER_CLS_NAMES[optimizer](learning_rate=lr)
        elif isinstance(optimizer, type) and issubclass(optimizer, _v1.train.Optimizer):
            opt = optimizer(learning_rate=lr)
        elif isinstance(optimizer, _v1.train.Optimizer):
            opt = optimizer
        elif callable(optimizer):
            opt = optimizer(lr) if lr is not None else optimizer()
        else:
            raise ValueError(f"Unrecognized optimizer: should be string, subclass of Optimizer, instance of "
                             f"subclass of Optimizer or function with one argument. Got {optimizer}.")
        if lr is not None and "learning_rate" in summaries:
            _v1.summary.scalar("learning_rate", lr)
        variables = _v1.trainable_variables() if variables is None else variables
        gradients = opt.compute_gradients(loss, variables, colocate_gradients_with_ops=colocate_gradients_with_ops)
        if clip_gradients is not None:
            grads, vars_ = zip(*gradients)
            clipped, _ = tf.clip_by_global_norm(list(grads), clip_gradients)
            gradients = list(zip(clipped, vars_))
        grad_updates = opt.apply_gradients(gradients, global_step=global_step if increment_global_step else None,
                                           name="train")
        with tf.control_dependencies([grad_updates]):
            return tf.identity(loss)


def layers_contents() -> dict:
    names = ["xavier_initializer", "xavier_initializer_conv2d", "variance_scaling_initializer", "l2_regularizer",
             "l1_regularizer", "fully_connected", "linear", "conv2d", "convolution2d", "max_pool2d", "avg_pool2d",
             "flatten", "batch_norm", "dropout", "optimize_loss", "OPTIMIZER_CLS_NAMES"]
    out = {n: globals()[n] for n in names if n in globals()}
    out["xavier_initializer_conv2d"] = xavier_initializer
    out["linear"] = functools.partial(fully_connected, activation_fn=None)
    return out


def framework_contents() -> dict:
    return {"arg_scope": arg_scope, "add_arg_scope": add_arg_scope, "has_arg_scope": has_arg_scope,
            "get_or_create_global_step": _v1.train.get_or_create_global_step,
            "get_global_step": _v1.train.get_global_step, "get_variables": _get_variables,
            "get_model_variables": _v1.model_variables, "get_trainable_variables": _v1.trainable_variables}


def slim_contents() -> dict:
    """`tf.contrib.slim`'s layers, initializers, regularizers and arg_scope (TF 1.15 contrib/slim/__init__.py
    re-exports them from contrib.layers and contrib.framework); slim.nets and slim.learning are refused."""
    return {**layers_contents(), **framework_contents()}


def _get_variables(scope=None, suffix=None, collection=_v1.GraphKeys.GLOBAL_VARIABLES):
    variables = _v1.get_collection(collection, scope)
    return [v for v in variables if suffix is None or v.op.name.endswith(suffix)]
