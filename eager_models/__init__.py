"""TF2 implementations of the built-in cases: `tf.Module`s with a traceable `train_step`.

The base class and the TF1-exact optimizers are part of tfcompare's public case contract
(`tfcompare.core.step_module`, `tfcompare.core.optimizers`); they are re-exported here because users'
cases files import them from this package.
"""

from tfcompare.core.optimizers import SGD, Momentum
from tfcompare.core.step_module import StepModule

__all__ = ["StepModule", "SGD", "Momentum"]
