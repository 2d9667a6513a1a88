"""TF2 optimizers whose update is exactly the one `tf.compat.v1.train` applies (same formulas, defaults and
slot initial values), so a TF2 rewrite can be checked against its TF1 original step for step.

Their slot variables exist from construction, so the harness can snapshot and restore every
variable of a model (weights and optimizer state) between phases. Keras's optimizers differ from TF1's in
defaults and formulas (Adam's epsilon 1e-7 vs 1e-8 and where it is added, RMSprop's initial accumulator,
Adagrad's epsilon); these do not.
"""

from __future__ import annotations

import tensorflow as tf

__all__ = ["SGD", "Momentum", "Adam", "RMSProp", "Adagrad", "Adadelta"]


def _c(value, variable):
    return tf.cast(value, variable.dtype)


class SGD(tf.Module):
    """`tf.compat.v1.train.GradientDescentOptimizer`: `w -= lr * g`."""

    def __init__(self, learning_rate: float, variables):
        super().__init__(name="sgd")
        self.learning_rate = learning_rate

    def apply(self, grads, variables):
        for g, v in zip(grads, variables):
            v.assign_sub(_c(self.learning_rate, v) * g)


class Momentum(tf.Module):
    """`tf.compat.v1.train.MomentumOptimizer`: `a = m*a + g`; `w -= lr * a`, or with Nesterov
    `w -= lr * (g + m*a)`."""

    def __init__(self, learning_rate: float, variables, momentum: float = 0.9, use_nesterov: bool = False):
        super().__init__(name="momentum")
        self.learning_rate, self.momentum, self.use_nesterov = learning_rate, momentum, use_nesterov
        self.slots = [tf.Variable(tf.zeros_like(v), trainable=False, name="accum") for v in variables]

    def apply(self, grads, variables):
        for g, v, a in zip(grads, variables, self.slots):
            a.assign(_c(self.momentum, v) * a + g)
            step = g + _c(self.momentum, v) * a if self.use_nesterov else a
            v.assign_sub(_c(self.learning_rate, v) * step)


class Adam(tf.Module):
    """`tf.compat.v1.train.AdamOptimizer`: `lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t)`,
    `w -= lr_t * m / (sqrt(v) + eps)` with TF1's epsilon (1e-8) added to `sqrt(v)`, not to the bias-corrected v."""

    def __init__(self, learning_rate: float, variables, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8):
        super().__init__(name="adam")
        self.learning_rate, self.beta1, self.beta2, self.epsilon = learning_rate, beta1, beta2, epsilon
        self.m = [tf.Variable(tf.zeros_like(v), trainable=False, name="m") for v in variables]
        self.v = [tf.Variable(tf.zeros_like(v), trainable=False, name="v") for v in variables]
        dtype = variables[0].dtype if variables else tf.float32
        self.beta1_power = tf.Variable(tf.cast(beta1, dtype), trainable=False, name="beta1_power")
        self.beta2_power = tf.Variable(tf.cast(beta2, dtype), trainable=False, name="beta2_power")

    def apply(self, grads, variables):
        lr_t = self.learning_rate * tf.sqrt(1 - self.beta2_power) / (1 - self.beta1_power)
        for g, v, m, s in zip(grads, variables, self.m, self.v):
            m.assign(_c(self.beta1, v) * m + _c(1 - self.beta1, v) * g)
            s.assign(_c(self.beta2, v) * s + _c(1 - self.beta2, v) * tf.square(g))
            v.assign_sub(tf.cast(lr_t, v.dtype) * m / (tf.sqrt(s) + _c(self.epsilon, v)))
        self.beta1_power.assign(self.beta1_power * self.beta1)
        self.beta2_power.assign(self.beta2_power * self.beta2)


class RMSProp(tf.Module):
    """`tf.compat.v1.train.RMSPropOptimizer`: `ms = d*ms + (1-d)*g²` (ms starts at 1.0, as in TF1);
    `mom = m*mom + lr*g / sqrt(ms [- mg²] + eps)`; `w -= mom`. Centered keeps `mg = d*mg + (1-d)*g`."""

    def __init__(self, learning_rate: float, variables, decay: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-10, centered: bool = False):
        super().__init__(name="rmsprop")
        self.learning_rate, self.decay, self.momentum = learning_rate, decay, momentum
        self.epsilon, self.centered = epsilon, centered
        self.ms = [tf.Variable(tf.ones_like(v), trainable=False, name="rms") for v in variables]
        self.mom = [tf.Variable(tf.zeros_like(v), trainable=False, name="momentum") for v in variables]
        self.mg = [tf.Variable(tf.zeros_like(v), trainable=False, name="mg") for v in variables] if centered else []

    def apply(self, grads, variables):
        for i, (g, v) in enumerate(zip(grads, variables)):
            ms, mom = self.ms[i], self.mom[i]
            ms.assign(_c(self.decay, v) * ms + _c(1 - self.decay, v) * tf.square(g))
            denom = ms
            if self.centered:
                mg = self.mg[i]
                mg.assign(_c(self.decay, v) * mg + _c(1 - self.decay, v) * g)
                denom = ms - tf.square(mg)
            mom.assign(_c(self.momentum, v) * mom + _c(self.learning_rate, v) * g / tf.sqrt(denom + _c(self.epsilon, v)))
            v.assign_sub(mom)


class Adagrad(tf.Module):
    """`tf.compat.v1.train.AdagradOptimizer`: `acc += g²` (acc starts at 0.1); `w -= lr * g / sqrt(acc)`, no
    epsilon (Keras's Adagrad adds one)."""

    def __init__(self, learning_rate: float, variables, initial_accumulator_value: float = 0.1):
        super().__init__(name="adagrad")
        self.learning_rate = learning_rate
        self.acc = [tf.Variable(tf.fill(tf.shape(v), tf.cast(initial_accumulator_value, v.dtype)), trainable=False,
                                name="accumulator") for v in variables]

    def apply(self, grads, variables):
        for g, v, acc in zip(grads, variables, self.acc):
            acc.assign_add(tf.square(g))
            v.assign_sub(_c(self.learning_rate, v) * g / tf.sqrt(acc))


class Adadelta(tf.Module):
    """`tf.compat.v1.train.AdadeltaOptimizer` (Keras 3's Adadelta computes the same, slots from 0): `acc = rho * acc
    + (1 - rho) * g²`; `d = sqrt(acc_update + eps) / sqrt(acc + eps) * g`; `acc_update = rho * acc_update + (1 - rho)
    * d²`; `w -= lr * d`."""

    def __init__(self, learning_rate: float, variables, rho: float = 0.95, epsilon: float = 1e-8):
        super().__init__(name="adadelta")
        self.learning_rate, self.rho, self.epsilon = learning_rate, rho, epsilon
        self.accum = [tf.Variable(tf.zeros_like(v), trainable=False, name="accum") for v in variables]
        self.accum_update = [tf.Variable(tf.zeros_like(v), trainable=False, name="accum_update") for v in variables]

    def apply(self, grads, variables):
        for g, v, acc, update in zip(grads, variables, self.accum, self.accum_update):
            rho, eps = _c(self.rho, v), _c(self.epsilon, v)
            acc.assign(rho * acc + (1 - rho) * tf.square(g))
            d = tf.sqrt(update + eps) / tf.sqrt(acc + eps) * g
            update.assign(rho * update + (1 - rho) * tf.square(d))
            v.assign_sub(_c(self.learning_rate, v) * d)
