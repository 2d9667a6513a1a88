"""The TF2 side: run a TF2 training script unchanged, with TF1's initial weights and batches, and record its steps.

Observed, in the script's own process: variable creation (`tf.variable_creator_scope`: order, shape, site;
TF1's initial value injected into the provisionally paired variable), variable reads (the order of use),
`GradientTape.gradient` (a gradient of the loss with respect to paired variables is one training step: its
target is the loss), the Keras optimizer's `apply` (what `apply_gradients` and `fit` call) and `Model.fit`.
Step inputs are replaced by TF1's: `fit` gets TF1's batches; a function of the script that takes a gradient
is wrapped (in the compiled code only, the file is unchanged) and its batch arguments are replaced.
`tf.function` bodies run eagerly so that every step can be read: the comparison is of eager numerics.

Its parts: `tf2_variables` (creation, injection, reads), `tf2_tape` (the gradient tape: the steps),
`tf2_inputs` (TF1's batches for TF2's step), `tf2_step_wrapper` (the script's step functions wrapped),
`tf2_keras` (the optimizer's apply, `fit`, dropout) and `tf2_after_steps` (the probes after the steps).
"""

from __future__ import annotations

import tensorflow as tf

from tfcompare.scripts.child import draws, dropout, signatures
from tfcompare.scripts.child.activations import ActivationObserver
from tfcompare.scripts.child.inference_mode import InferencePass
from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.child.tf2_after_steps import AfterSteps
from tfcompare.scripts.child.tf2_inputs import InputSubstitution, SubstitutionError
from tfcompare.scripts.child.tf2_keras import KerasObserver
from tfcompare.scripts.child.tf2_step_wrapper import STEP_WRAPPER, StepWrapper, wrap_steps
from tfcompare.scripts.child.tf2_tape import StepObserver
from tfcompare.scripts.child.tf2_traced import TracedReplay
from tfcompare.scripts.child.tf2_variables import VariableObserver

__all__ = ["TF2Probe", "STEP_WRAPPER", "SubstitutionError", "wrap_steps"]


class TF2Probe(VariableObserver, StepObserver, InputSubstitution, StepWrapper, KerasObserver, AfterSteps,
               TracedReplay, InferencePass, ActivationObserver):
    """Install with `install()` (and `creator` as the script's variable creator scope); `finish()` after the
    script stops fills in the probes. Everything observed goes into `record`."""

    def __init__(self, record: SideRecord, tf1: SideRecord, steps: int, script: str,
                 dropout_mode: str = dropout.AS_WRITTEN):
        # TF1's record as written, and as seen in the Keras layouts of its RNN cells (layouts.virtualise)
        self.tf1_written = tf1
        self.record, self.tf1, self.steps, self.script = record, tf1, steps, script
        self.dropout_mode = dropout_mode
        self.variables: dict[str, tf.Variable] = {}  # trainable, by key
        self.by_id: dict[int, str] = {}
        self.every: list[tf.Variable] = []  # every variable the script made (restored after probes)
        self.state_vars: list = []  # (variable, facts, initial value) of each non-trainable float variable
        self._state_keys: list = []  # (record key, variable) of the state compared
        self.pairs: dict[str, str] = {}  # tf2 key -> tf1 key
        self.injected: dict[str, object] = {}  # tf2 key -> the TF1 initial value it was created with
        self.assigned: set[str] = set()  # tf2 keys the script assigned before its first step (see _own_start)
        self.made: dict[tuple, int] = {}  # trainable variables made so far, per shape
        self.unpaired = False  # the first step showed the variables cannot be paired: stop after it
        self.reads: list[str] = []
        self.pending: dict[str, str] = {}  # tf2 key -> tf1 key paired as created, unchecked yet (align.LATER)
        self.later_reads: list[str] = []  # the reads of the step being taken, while some are pending
        self.busy = False
        self.mode = "normal"  # normal | loss | ops
        self.probed = None
        self.probed_windows: list = []  # the forward pass's convolutions and poolings (windows.window_ops)
        self.calls = 0
        self.fit_model = None
        self.step_fn = None
        self.step_args = None
        self.step_calls: list = []  # each compared call: (function, args, kwargs), TF1's batches in place (tf2_traced)
        self.timing = None  # set by the child in a timed pair: (step or None, tracing count or why) -> None
        self.initial_values: list = []  # (variable, its value at creation) of every variable the script made
        self.after_taken = -1
        self.step_keys: list[set] = []  # each step's variables (keys) its gradient was taken of
        self.applied_steps: set[int] = set()  # the steps an optimizer's apply ended (tf2_tape._take_after_apply)
        self.finishing = False  # K steps taken, an earlier one's update still to come: later gradients not steps
        self.call_steps: dict[int, tuple[int, int]] = {}  # step_calls index -> the steps it took [first, end)
        self.applies = 0  # updates applied so far, and how deep in the script's step functions (tf2_step_wrapper)
        self.in_step = 0
        self.optimizer = None  # the first step's (its settings are compared)
        self.optimizers: list = []  # every one a step applied, in order of first use
        self.applied: dict | None = None  # the first step's gradient transform by hand (KerasObserver)
        self.clip_called: dict | None = None  # the script's own tf.clip_by_* call in the first step (the same)
        self.mixed = False  # the step's batch arguments cannot all take TF1's feeds: none are replaced
        self.draws = None  # draws.TF2Draws: TF1's random draws given to the forward pass's own calls

    # --- installation -------------------------------------------------------------------------------------
    def _install_draws(self) -> None:
        """TF1's draws of each step, for the same calls of TF2's forward pass (draws.TF2Draws)."""
        tf1 = self.tf1
        if not tf1.draws or tf1.draws_unmatched:
            return
        alike = draws.alike(tf1.draws)
        if alike:
            self.record.draws_unmatched = [alike]
            return
        n = len(tf1.draws)
        values = [[tf1.arrays[f"draw/{k}/{i}"] for i in range(n)] for k in range(tf1.steps)
                  if all(f"draw/{k}/{i}" in tf1.arrays for i in range(n))]
        if values:
            self.draws = draws.TF2Draws([d["kind"] for d in tf1.draws], values)
            self.draws.install()

    def install(self) -> dict:
        """Patch TF and Keras; returns the globals the compiled script needs (the step wrapper)."""
        tf.config.run_functions_eagerly(True)
        signatures.install()  # an input_signature still casts when the bodies run eagerly
        self._install_tape()
        self._install_reads()
        self._install_keras()
        self._install_clip_calls()
        self._install_draws()
        if self.dropout_mode == dropout.OFF:  # outermost: the calls never reach _install_dropout's wrappers
            self.record.dropout_replaced = 0
            dropout.switch_off(tf.identity, self._count_replaced)
        return {STEP_WRAPPER: self._step_wrapper}
