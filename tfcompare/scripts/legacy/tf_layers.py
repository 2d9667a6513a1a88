"""`tf.layers` (`tf.compat.v1.layers`) as TensorFlow 1.15 defined it, on `tf.compat.v1` graph ops alone.

TF 2.21 keeps this API only behind Keras 2 (`tf.compat.v1.layers.dense` says "not available with Keras 3" unless
tf-keras is installed); the runtime serves this module as `tf.layers` when it is missing, as it does `nn.rnn_cell`.

Source checked: TF 1.15 `tensorflow/python/layers/{core,convolutional,pooling,normalization}.py` (the functional
wrappers and their defaults) over `tensorflow/python/keras/layers/{core,convolutional,pooling,normalization}.py`,
the same code tf-keras 2.21 ships as `legacy_tf_layers/` and `layers/normalization/batch_normalization.py`, which
the tests compare against. What each call does, as there: it opens `variable_scope(name,
default_name=<dense|conv2d|max_pooling2d|...>, reuse=reuse)` (unnamed calls get dense, dense_1, ...), creates
`kernel` / `bias` with `get_variable` (initializer None is its glorot-uniform; regularizer losses go to
REGULARIZATION_LOSSES, constraints to the variable for the optimizer), applies the activation after the bias;
`dense` of a rank > 2 input is a tensordot on the last axis.

batch_normalization: gamma, beta, then the non-trainable moving_mean / moving_variance; the two updates
`moving -= (moving - batch) * (1 - momentum)` go to UPDATE_OPS. A rank-4 input with `fused=None` (axis 1 or 3)
runs `fused_batch_norm`, whose batch variance has Bessel's correction n / (n - 1): TF 1.15 set
`_bessels_correction_test_only = True`, so the moving variance moves towards the *unbiased* variance while the
output is normalised with the biased one; any other input uses `nn.moments` (biased for both).
"""

from __future__ import annotations

import functools
import inspect

import tensorflow as tf
from tensorflow.python.framework import smart_cond as _smart

__all__ = ["dense", "dropout", "flatten", "conv1d", "conv2d", "conv3d", "conv2d_transpose", "separable_conv2d",
           "max_pooling1d", "max_pooling2d", "max_pooling3d", "average_pooling1d", "average_pooling2d",
           "average_pooling3d", "batch_normalization", "Dense", "Dropout", "Flatten", "Conv1D", "Conv2D", "Conv3D",
           "Conv2DTranspose", "SeparableConv2D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D",
           "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "BatchNormalization", "contents"]

_v1 = tf.compat.v1
_ZEROS, _ONES = tf.zeros_initializer(), tf.ones_initializer()
# rank of the convolution -> (channels_last, channels_first) data format of the ops
_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def _layer(default_name: str):
    """Run the body in `variable_scope(name, default_name=default_name, reuse=reuse)`, as each TF 1.15 layer call."""
    def decorate(body):
        signature = inspect.signature(body)

        @functools.wraps(body)
        def function(*args, **kwargs):
            arguments = signature.bind(*args, **kwargs).arguments
            with _v1.variable_scope(arguments.get("name"), default_name=default_name, values=[arguments["inputs"]],
                                    reuse=arguments.get("reuse")):
                return body(*args, **kwargs)

        function.default_name, function.body = default_name, body
        return function
    return decorate


def _channels_first(data_format: str) -> bool:
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"The `data_format` argument must be one of 'channels_first', 'channels_last'. "
                         f"Received: {data_format!r}")
    return data_format == "channels_first"


def _padding(padding: str, allowed=("valid", "same")) -> str:
    if not isinstance(padding, str) or padding.lower() not in allowed:
        raise ValueError(f"The `padding` argument must be one of {', '.join(map(repr, allowed))}. "
                         f"Received: {padding!r}")
    return padding.lower()


def _tuple(value, n: int, what: str) -> tuple:
    values = (value,) * n if isinstance(value, int) else tuple(value)
    if len(values) != n:
        raise ValueError(f"The `{what}` argument must be a tuple of {n} integers. Received: {value!r}")
    return values


def _dim(inputs, axis: int) -> int:
    value = tf.compat.dimension_value(inputs.shape[axis])
    if value is None:
        raise ValueError(f"The channel dimension of the inputs should be defined. Found `None` (shape {inputs.shape})")
    return int(value)


def _weight(name, shape, initializer, regularizer, constraint, trainable, dtype):
    return _v1.get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                            trainable=trainable, constraint=constraint)


def _finish(outputs, activation, activity_regularizer):
    """The activation, then the activity regularizer's loss (per example, as Keras's base layer divides it)."""
    if activation is not None:
        outputs = activation(outputs)
    if activity_regularizer is not None:
        with tf.name_scope("ActivityRegularizer"):
            loss = activity_regularizer(outputs)
            loss = loss / tf.cast(tf.shape(outputs)[0], loss.dtype)
        _v1.add_to_collection(_v1.GraphKeys.REGULARIZATION_LOSSES, loss)
    return outputs


def _add_bias(outputs, bias, channels_first: bool):
    if not channels_first:
        return tf.nn.bias_add(outputs, bias)
    return outputs + tf.reshape(bias, [1, -1] + [1] * (outputs.shape.rank - 2))


@_layer("dense")
def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None, bias_initializer=_ZEROS,
          kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
          bias_constraint=None, trainable=True, name=None, reuse=None):
    """inputs @ kernel (+ bias), then the activation; a rank > 2 input is multiplied on its last axis."""
    inputs = tf.convert_to_tensor(inputs)
    dtype = inputs.dtype.base_dtype
    kernel = _weight("kernel", [_dim(inputs, -1), units], kernel_initializer, kernel_regularizer, kernel_constraint,
                     trainable, dtype)
    rank = inputs.shape.rank
    if rank > 2:
        outputs = tf.tensordot(inputs, kernel, [[rank - 1], [0]])
        outputs.set_shape(inputs.shape[:-1].concatenate([units]))
    else:
        outputs = tf.matmul(inputs, kernel)
    if use_bias:
        bias = _weight("bias", [units], bias_initializer, bias_regularizer, bias_constraint, trainable, dtype)
        outputs = tf.nn.bias_add(outputs, bias)
    return _finish(outputs, activation, activity_regularizer)


@_layer("dropout")
def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """tf.nn.dropout(rate=...) when `training` (a Python bool or a bool tensor), else the identity."""
    inputs = tf.convert_to_tensor(inputs)
    if noise_shape is not None:
        noise_shape = [tf.shape(inputs)[i] if d is None else d for i, d in enumerate(noise_shape)]
    return _smart.smart_cond(training, lambda: tf.nn.dropout(inputs, noise_shape=noise_shape, seed=seed, rate=rate),
                             lambda: tf.identity(inputs))


@_layer("flatten")
def flatten(inputs, name=None, data_format="channels_last"):
    """[batch, ...] -> [batch, k]; channels_first inputs are first moved to channels_last, as TF 1.15 did."""
    inputs = tf.convert_to_tensor(inputs)
    rank = inputs.shape.rank
    if _channels_first(data_format) and rank is not None and rank > 1:
        inputs = tf.transpose(inputs, [0, *range(2, rank), 1])
    if rank == 1:
        inputs = tf.expand_dims(inputs, 1)
    batch = tf.compat.dimension_value(inputs.shape[0])
    outputs = tf.reshape(inputs, (batch or tf.shape(inputs)[0], -1))
    outputs.set_shape([batch, inputs.shape[1:].num_elements()])
    return outputs


def _convolution(rank, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
                 use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                 activity_regularizer, kernel_constraint, bias_constraint, trainable):
    """TF 1.15 keras Conv.call: kernel kernel_size + (in, filters), the convolution, the bias, the activation."""
    inputs = tf.convert_to_tensor(inputs)
    first = _channels_first(data_format)
    padding = _padding(padding, ("valid", "same", "causal") if rank == 1 else ("valid", "same"))
    kernel_size = _tuple(kernel_size, rank, "kernel_size")
    dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
    dtype = inputs.dtype.base_dtype
    kernel = _weight("kernel", [*kernel_size, _dim(inputs, 1 if first else -1), filters], kernel_initializer,
                     kernel_regularizer, kernel_constraint, trainable, dtype)
    if padding == "causal":  # pad the time axis on the left only, then a valid convolution
        left = dilation_rate[0] * (kernel_size[0] - 1)
        inputs = tf.pad(inputs, [[0, 0], [0, 0], [left, 0]] if first else [[0, 0], [left, 0], [0, 0]])
        padding = "valid"
    outputs = tf.nn.convolution(inputs, kernel, strides=_tuple(strides, rank, "strides"), padding=padding.upper(),
                                data_format=_FORMATS[rank][first], dilations=dilation_rate)
    if use_bias:
        bias = _weight("bias", [filters], bias_initializer, bias_regularizer, bias_constraint, trainable, dtype)
        outputs = _add_bias(outputs, bias, first)
    return _finish(outputs, activation, activity_regularizer)


def _conv_function(rank: int):
    """conv<rank>d with TF 1.15's signature (strides and dilation_rate default to 1 on each axis)."""
    ones = 1 if rank == 1 else (1,) * rank

    @_layer(f"conv{rank}d")
    def conv(inputs, filters, kernel_size, strides=ones, padding="valid", data_format="channels_last",
             dilation_rate=ones, activation=None, use_bias=True, kernel_initializer=None, bias_initializer=_ZEROS,
             kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
             bias_constraint=None, trainable=True, name=None, reuse=None):
        return _convolution(rank, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate,
                            activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                            bias_regularizer, activity_regularizer, kernel_constraint, bias_constraint, trainable)

    conv.__name__ = conv.__qualname__ = f"conv{rank}d"
    conv.__doc__ = f"TF 1.15 tf.layers.conv{rank}d: a {rank}-D convolution, its bias, its activation."
    return conv


conv1d, conv2d, conv3d = _conv_function(1), _conv_function(2), _conv_function(3)


def _transposed_length(size, kernel: int, stride: int, padding: str):
    """TF 1.15 conv_utils.deconv_output_length (no output padding, no dilation)."""
    return size * stride + max(kernel - stride, 0) if padding == "valid" else size * stride


@_layer("conv2d_transpose")
def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     activation=None, use_bias=True, kernel_initializer=None, bias_initializer=_ZEROS,
                     kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """The gradient of a conv2d: kernel (kh, kw, filters, in), output (h * s [+ max(k - s, 0) when valid])."""
    inputs = tf.convert_to_tensor(inputs)
    first, padding = _channels_first(data_format), _padding(padding)
    (kh, kw), (sh, sw) = _tuple(kernel_size, 2, "kernel_size"), _tuple(strides, 2, "strides")
    dtype = inputs.dtype.base_dtype
    kernel = _weight("kernel", [kh, kw, filters, _dim(inputs, 1 if first else -1)], kernel_initializer,
                     kernel_regularizer, kernel_constraint, trainable, dtype)
    h_axis, w_axis = (2, 3) if first else (1, 2)
    dynamic = tf.shape(inputs)
    static = inputs.shape.as_list()
    height = _transposed_length(static[h_axis] or dynamic[h_axis], kh, sh, padding)
    width = _transposed_length(static[w_axis] or dynamic[w_axis], kw, sw, padding)
    shape = (dynamic[0], filters, height, width) if first else (dynamic[0], height, width, filters)
    outputs = _v1.nn.conv2d_transpose(inputs, kernel, tf.stack(shape), (1, 1, sh, sw) if first else (1, sh, sw, 1),
                                      padding=padding.upper(), data_format=_FORMATS[2][first])
    outputs.set_shape([d if isinstance(d, int) else None for d in (static[0], *shape[1:])])
    if use_bias:
        bias = _weight("bias", [filters], bias_initializer, bias_regularizer, bias_constraint, trainable, dtype)
        outputs = _add_bias(outputs, bias, first)
    return _finish(outputs, activation, activity_regularizer)


@_layer("separable_conv2d")
def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                     depthwise_initializer=None, pointwise_initializer=None, bias_initializer=_ZEROS,
                     depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                     activity_regularizer=None, depthwise_constraint=None, pointwise_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """A depthwise (kh, kw, in, depth_multiplier) then pointwise (1, 1, in * depth_multiplier, filters) conv."""
    inputs = tf.convert_to_tensor(inputs)
    first, padding = _channels_first(data_format), _padding(padding)
    kh, kw = _tuple(kernel_size, 2, "kernel_size")
    sh, sw = _tuple(strides, 2, "strides")
    channels, dtype = _dim(inputs, 1 if first else -1), inputs.dtype.base_dtype
    depthwise = _weight("depthwise_kernel", [kh, kw, channels, depth_multiplier], depthwise_initializer,
                        depthwise_regularizer, depthwise_constraint, trainable, dtype)
    pointwise = _weight("pointwise_kernel", [1, 1, channels * depth_multiplier, filters], pointwise_initializer,
                        pointwise_regularizer, pointwise_constraint, trainable, dtype)
    outputs = _v1.nn.separable_conv2d(inputs, depthwise, pointwise, (1, 1, sh, sw) if first else (1, sh, sw, 1),
                                      padding.upper(), rate=_tuple(dilation_rate, 2, "dilation_rate"),
                                      data_format=_FORMATS[2][first])
    if use_bias:
        bias = _weight("bias", [filters], bias_initializer, bias_regularizer, bias_constraint, trainable, dtype)
        outputs = _add_bias(outputs, bias, first)
    return _finish(outputs, activation, activity_regularizer)


def _pool(kind, rank, inputs, pool_size, strides, padding, data_format):
    """TF 1.15 keras Pooling1D/2D/3D.call: 1-D pools as 2-D ones over an added axis; 3-D ones in NDHWC."""
    inputs, first = tf.convert_to_tensor(inputs), _channels_first(data_format)
    pool_size, strides = _tuple(pool_size, rank, "pool_size"), _tuple(strides, rank, "strides")
    padding = _padding(padding).upper()
    if rank == 3:
        pool = _v1.nn.max_pool3d if kind == "max" else _v1.nn.avg_pool3d
        outputs = pool(tf.transpose(inputs, (0, 2, 3, 4, 1)) if first else inputs, (1, *pool_size, 1),
                       (1, *strides, 1), padding)
        return tf.transpose(outputs, (0, 4, 1, 2, 3)) if first else outputs
    pool = _v1.nn.max_pool if kind == "max" else _v1.nn.avg_pool
    if rank == 1:
        axis = 3 if first else 2
        inputs, pool_size, strides = tf.expand_dims(inputs, axis), (*pool_size, 1), (*strides, 1)
    window = (1, 1, *pool_size) if first else (1, *pool_size, 1)
    steps = (1, 1, *strides) if first else (1, *strides, 1)
    outputs = pool(inputs, window, steps, padding, data_format=_FORMATS[2][first])
    return tf.squeeze(outputs, axis) if rank == 1 else outputs


def _pooling(kind: str, rank: int, default_name: str):
    """max_pooling<rank>d / average_pooling<rank>d(inputs, pool_size, strides, padding, data_format, name)."""
    @_layer(default_name)
    def pooling(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
        return _pool(kind, rank, inputs, pool_size, strides, padding, data_format)

    pooling.__name__ = pooling.__qualname__ = default_name
    pooling.__doc__ = f"TF 1.15 tf.layers.{default_name}: a {kind} pool over {rank} spatial axes (no variables)."
    return pooling


max_pooling1d = _pooling("max", 1, "max_pooling1d")
max_pooling2d = _pooling("max", 2, "max_pooling2d")
max_pooling3d = _pooling("max", 3, "max_pooling3d")
average_pooling1d = _pooling("avg", 1, "average_pooling1d")
average_pooling2d = _pooling("avg", 2, "average_pooling2d")
average_pooling3d = _pooling("avg", 3, "average_pooling3d")


def _assign_moving_average(variable, value, momentum):
    """TF 1.15 BatchNormalization._assign_moving_average: variable -= (variable - value) * (1 - momentum)."""
    with tf.name_scope("AssignMovingAvg") as scope, _v1.get_default_graph().colocate_with(variable.op):
        decay = tf.convert_to_tensor(1.0 - momentum, name="decay")
        if decay.dtype != variable.dtype.base_dtype:
            decay = tf.cast(decay, variable.dtype.base_dtype)
        return _v1.assign_sub(variable, (variable - value) * decay, name=scope)


def _fused_batch_norm(inputs, gamma, beta, moving_mean, moving_variance, epsilon, momentum, training, data_format):
    """TF 1.15 `_fused_batch_norm`: the batch variance it returns (and moves towards) has Bessel's correction."""
    def training_fn():
        return _v1.nn.fused_batch_norm(inputs, gamma, beta, epsilon=epsilon, data_format=data_format)

    def inference_fn():
        return _v1.nn.fused_batch_norm(inputs, gamma, beta, mean=moving_mean, variance=moving_variance,
                                       epsilon=epsilon, is_training=False, data_format=data_format)

    outputs, mean, variance = _smart.smart_cond(training, training_fn, inference_fn)
    training_value = _smart.smart_constant_value(training)
    if training_value is None:  # a tensor: the updates always run, with momentum 1 (no change) when not training
        momentum = _smart.smart_cond(training, lambda: momentum, lambda: 1.0)
    else:
        momentum = tf.convert_to_tensor(momentum)
    if training_value or training_value is None:
        for update in (_assign_moving_average(moving_mean, mean, momentum),
                       _assign_moving_average(moving_variance, variance, momentum)):
            _v1.add_to_collection(_v1.GraphKeys.UPDATE_OPS, update)
    return outputs


def _moments_batch_norm(inputs, axis, gamma, beta, moving_mean, moving_variance, epsilon, momentum, training):
    """TF 1.15's non-fused path: nn.moments (biased variance) for the output and the moving averages."""
    rank = inputs.shape.rank
    reduction_axes = [i for i in range(rank) if i != axis]
    shape = [1] * rank
    shape[axis] = -1

    def broadcast(v):
        return v if v is None or axis == rank - 1 else tf.reshape(v, shape)

    if _smart.smart_constant_value(training) is False:
        mean, variance = moving_mean, moving_variance
    else:
        batch_mean, batch_variance = tf.nn.moments(inputs, reduction_axes)
        mean = _smart.smart_cond(training, lambda: batch_mean, lambda: tf.convert_to_tensor(moving_mean))
        variance = _smart.smart_cond(training, lambda: batch_variance, lambda: tf.convert_to_tensor(moving_variance))
        for var, value in ((moving_mean, mean), (moving_variance, variance)):
            update = _smart.smart_cond(training, lambda: _assign_moving_average(var, value, momentum),
                                       lambda: tf.convert_to_tensor(var))
            _v1.add_to_collection(_v1.GraphKeys.UPDATE_OPS, update)
    outputs = tf.nn.batch_normalization(inputs, broadcast(mean), broadcast(variance), broadcast(beta),
                                        broadcast(gamma), epsilon)
    outputs.set_shape(inputs.shape)
    return outputs


@_layer("batch_normalization")
def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=_ZEROS, gamma_initializer=_ONES, moving_mean_initializer=_ZEROS,
                        moving_variance_initializer=_ONES, beta_regularizer=None, gamma_regularizer=None,
                        beta_constraint=None, gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99, fused=None,
                        virtual_batch_size=None, adjustment=None):
    """Normalise over every axis but `axis` with the batch's statistics when `training` (a Python bool or a bool
    tensor) and with the moving averages otherwise; the moving averages' updates go to UPDATE_OPS."""
    if renorm or virtual_batch_size is not None or adjustment is not None:
        raise NotImplementedError("tf.layers.batch_normalization(renorm / virtual_batch_size / adjustment) is not "
                                  "provided by tfcompare's legacy runtime; use keras.layers.BatchNormalization")
    inputs = tf.convert_to_tensor(inputs)
    rank = inputs.shape.rank
    axes = [axis] if isinstance(axis, int) else list(axis)
    if len(axes) != 1:
        raise NotImplementedError(f"tf.layers.batch_normalization(axis={axis!r}) over several axes is not provided "
                                  "by tfcompare's legacy runtime; use keras.layers.BatchNormalization(axis=...)")
    axis = axes[0] % rank
    dtype = tf.float32 if inputs.dtype.base_dtype in (tf.float16, tf.bfloat16) else inputs.dtype.base_dtype
    channels = _dim(inputs, axis)
    gamma = _weight("gamma", [channels], gamma_initializer, gamma_regularizer, gamma_constraint, trainable, dtype) \
        if scale else tf.constant(1.0, dtype, [channels])
    beta = _weight("beta", [channels], beta_initializer, beta_regularizer, beta_constraint, trainable, dtype) \
        if center else tf.constant(0.0, dtype, [channels])
    moving_mean = _weight("moving_mean", [channels], moving_mean_initializer, None, None, False, dtype)
    moving_variance = _weight("moving_variance", [channels], moving_variance_initializer, None, None, False, dtype)
    if fused in (None, True) and rank == 4 and axis in (1, 3):
        return _fused_batch_norm(inputs, gamma, beta, moving_mean, moving_variance, epsilon, momentum, training,
                                 "NCHW" if axis == 1 else "NHWC")
    return _moments_batch_norm(inputs, axis, gamma if scale else None, beta if center else None, moving_mean,
                               moving_variance, epsilon, momentum, training)


class _Layer:
    """A TF 1.15 layer object: its arguments at construction, its variables created on the first call (in
    `variable_scope(name, default_name=...)`) and reused by later calls; `kernel`, `bias`, ... once built."""

    _function = None

    def __init__(self, *args, **kwargs):
        self._args, self._kwargs = args, kwargs
        self.name, self._reuse = kwargs.pop("name", None), kwargs.pop("_reuse", None)
        self._scope = None
        self.built = False
        self.variables: list = []

    @property
    def trainable_variables(self) -> list:
        trainable = set(map(id, _v1.trainable_variables()))
        return [v for v in self.variables if id(v) in trainable]

    weights = property(lambda self: self.variables)

    def __call__(self, inputs, training=None, **kwargs):
        function = type(self)._function
        if training is not None:  # Dropout / BatchNormalization.call(inputs, training=False)
            kwargs["training"] = training
        if self.built:  # the first call's scope and name scope again, as TF 1.15's Layer.__call__
            with _v1.variable_scope(self._scope, reuse=True, auxiliary_name_scope=False), \
                    tf.name_scope(self._scope.original_name_scope):
                return function.body(inputs, *self._args, **{**self._kwargs, **kwargs})
        before = set(map(id, _v1.global_variables()))
        with _v1.variable_scope(self.name, default_name=function.default_name, values=[inputs],
                                reuse=self._reuse) as scope:
            self._scope = scope
            outputs = function.body(inputs, *self._args, **{**self._kwargs, **kwargs})
        self.name, self.built = scope.name.split("/")[-1], True
        self.variables = [v for v in _v1.global_variables() if id(v) not in before]
        for v in self.variables:
            setattr(self, v.op.name.split("/")[-1], v)
        return outputs

    apply = __call__


def _layer_class(name: str, function) -> type:
    return type(name, (_Layer,), {"_function": staticmethod(function),
                                  "__doc__": f"TF 1.15 tf.layers.{name}: the object form of `{function.__name__}`."})


_CLASSES = {"Dense": dense, "Dropout": dropout, "Flatten": flatten, "Conv1D": conv1d, "Conv2D": conv2d,
            "Conv3D": conv3d, "Conv2DTranspose": conv2d_transpose, "SeparableConv2D": separable_conv2d,
            "MaxPooling1D": max_pooling1d, "MaxPooling2D": max_pooling2d, "MaxPooling3D": max_pooling3d,
            "AveragePooling1D": average_pooling1d, "AveragePooling2D": average_pooling2d,
            "AveragePooling3D": average_pooling3d, "BatchNormalization": batch_normalization}
(Dense, Dropout, Flatten, Conv1D, Conv2D, Conv3D, Conv2DTranspose, SeparableConv2D, MaxPooling1D, MaxPooling2D,
 MaxPooling3D, AveragePooling1D, AveragePooling2D, AveragePooling3D, BatchNormalization) = (
    _layer_class(name, function) for name, function in _CLASSES.items())


def contents() -> dict:
    """The names `tf.layers` provides (without tf-keras)."""
    return {name: globals()[name] for name in __all__ if name != "contents"}
