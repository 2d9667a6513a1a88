"""What `source.rewrite` is told and what it hands back: the plan (what the run of the TF1 script told about its
global names) and the carried code (the script's own statements around the graph, rewritten for TF2).

TODO_MARK and NOTE_MARK start the string constants the rewrite leaves where a TODO or a NOTE comment goes; the
writer turns them into `pass  # TODO(tfcompare): ...` and `# NOTE(tfcompare): ...` lines. GENERATED are the
names the generated code binds.
"""

from __future__ import annotations

import dataclasses

__all__ = ["Plan", "Carried", "TODO_MARK", "NOTE_MARK", "GENERATED", "ITERATOR_OUTPUTS"]

TODO_MARK = "__tfcompare_todo__"
NOTE_MARK = "__tfcompare_note__"  # a comment the TF2 script gets above a statement whose meaning changed
GENERATED = ("train_step", "model", "optimizer", "Model")
# a tf.data iterator's batch, or a queue's (written as tf.data, queues): the step's arguments
ITERATOR_OUTPUTS = ("IteratorGetNext", "IteratorGetNextSync", "QueueDequeueManyV2", "QueueDequeueUpToV2")


@dataclasses.dataclass
class Plan:
    """What the run of the TF1 script told about its global names."""

    graph: set  # names bound to graph things (tensors, ops, variables, optimizers, sessions, cells)
    train: set  # names bound to the train op
    methods: dict  # tensor's global name -> (expression prefix, [placeholder names in argument order])
    step_args: list  # placeholder names train_step takes, in order
    loss: str | None  # the loss's global name, when it has one
    tf_names: set  # names bound to the tensorflow module
    placeholders: set = dataclasses.field(default_factory=set)  # names bound to placeholders
    untranslated: set = dataclasses.field(default_factory=set)  # fetched tensors with no translation (None)
    late: set = dataclasses.field(default_factory=set)  # graph names the script binds after its first step (late.py)
    values: dict = dataclasses.field(default_factory=dict)  # fetched variable or step counter -> its TF2 expression
    after: set = dataclasses.field(default_factory=set)  # of those, read after the step (TF1's global step)
    # fetched summary's global name -> [(tag, "scalar" | "histogram", method prefix, placeholder names, is the loss)]
    summaries: dict = dataclasses.field(default_factory=dict)
    summary_lines: set = dataclasses.field(default_factory=set)  # TF1 lines of the summary ops written in TF2
    # a tf.data input: names bound to datasets (their code is TF2's too), to their TF1 iterators (`iter(dataset)`
    # in TF2), and to the tensors an iterator's get_next() handed out (the step's arguments, pulled per run)
    datasets: set = dataclasses.field(default_factory=set)
    iterators: set = dataclasses.field(default_factory=set)
    pipeline: set = dataclasses.field(default_factory=set)
    # several optimizers (a GAN): a train op's global name -> (its step function, its placeholder names, its loss's
    # global names); a name not here is the first train op's: `train_step(step_args)`, `loss`
    steps: dict = dataclasses.field(default_factory=dict)
    loss_names: set = dataclasses.field(default_factory=set)  # every global bound to the loss (`G_loss = D_fake`)
    # train ops that share no variable with any other (two networks trained side by side): run in one Session.run,
    # each is its step's call, in the fetch's order
    independent: set = dataclasses.field(default_factory=set)
    # train ops that read each other's variables, run together (a GAN): frozenset of their global names -> (the
    # joint step, its placeholder names, each train op's loss global names in the order the step returns them)
    joint: dict = dataclasses.field(default_factory=dict)
    # a fed keep_prob that is the `training` argument (training_flag): its global name -> (the argument's name,
    # {ast.dump of a value the script feeds it: True (the training value) or False (1.0)})
    flags: dict = dataclasses.field(default_factory=dict)

    # fetches run with a computed tensor fed (a VAE's decoder from a fed `z`, cut_fetches): (fetched name,
    # frozenset of the fed computed names) -> (method prefix, fed names in argument order); `cuts`: every such name
    cut_methods: dict = dataclasses.field(default_factory=dict)
    cuts: set = dataclasses.field(default_factory=set)
    lists: set = dataclasses.field(default_factory=set)  # fetched names of lists of tensors: methods return lists
    # names fetched together in one run (`sess.run([loss, accuracy])`) -> (method prefix, placeholder names): one
    # forward pass for all of them (fetch_groups)
    groups: dict = dataclasses.field(default_factory=dict)
    step_extras: tuple = ()  # names the first step returns after its loss (step_metrics)
    # a fed name a run may leave out, as TF1 then computed it (a stateful RNN's zero state, rnn_state) -> the TF2
    # global passed in its place
    defaults: dict = dataclasses.field(default_factory=dict)
    # an Estimator's script (estimator_runs): the names bound to Estimators, each numpy_input_fn's name -> (its dict's
    # keys or None, whether it gives labels), and the free names the training loop binds (features, labels)
    estimators: set = dataclasses.field(default_factory=set)
    estimator_inputs: dict = dataclasses.field(default_factory=dict)
    estimator_names: tuple = ("features", "labels")
    # each evaluation metric: (its key, the method of its predictions, the Keras metric's name, its constructor);
    # None: evaluate is not written
    estimator_metrics: list | None = None
    # its loss's mean over the evaluation's batches: ("loss", (method prefix, arguments), metric name, constructor)
    estimator_loss: tuple | None = None
    # a class the script builds several times (instances): the rewrite writes it itself, and rebuilds each instance
    # (its global name -> the statement that builds it in TF2)
    classes: set = dataclasses.field(default_factory=set)
    rebuilt: dict = dataclasses.field(default_factory=dict)
    optimizer_name: str = "optimizer"  # the first train op's Keras optimizer (`optimizer.iterations`: its step)
    tf1_restore: bool = False  # the model has restore_tf1_checkpoint (a TF1 variable name for each of its own)
    shadows: str = ""  # the ExponentialMovingAverage's shadows as a list (code), saved and restored with the model

    # the first train op's step function: `train_step`, or, beside the steps of other optimizers, named after its
    # train op as they are (`D_solver_step` beside `G_solver_step`)
    step_name: str = "train_step"

    def step_of(self, name: str) -> tuple[str, list, set]:
        """(step function, its placeholder names, the global names of its loss) of a train op's global name."""
        return self.steps.get(name, (self.step_name, self.step_args, {self.loss} | self.loss_names))


@dataclasses.dataclass
class Carried:
    head: list  # statements before the graph (unparsed source lines)
    tail: list  # statements after it
    imports: list
    todos: list
    loader: bool  # read_data_sets must be written into the script
    summaries: bool = False  # a FileWriter's add_summary became add_summary(writer, ...): the helper is written
    docstring: str = ""  # the TF1 script's module docstring as written ("" when it has none)
    restores: bool = False  # a Saver's restore became restore_checkpoint(path): the helper is written
    saves: bool = False  # a Saver's save with a global_step became save_checkpoint(path, step): that one too
