"""What the rewrite of the script's own code keeps track of as it goes, statement by statement, and the small
questions it asks of a node (the names it reads or binds, whether it uses TensorFlow); the TODO and NOTE
statements it leaves. The base of `statements.Rewriter` and of its parts (`session_runs`, `saving`).
"""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.plan import GENERATED, NOTE_MARK, TODO_MARK, Plan

__all__ = ["RewriteState"]

_SESSIONS = {"Session", "InteractiveSession", "MonitoredTrainingSession", "MonitoredSession"}


_SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)


def _free_names(node, bound: frozenset = frozenset()) -> set:
    """The names loaded in `node` that no enclosing comprehension or lambda inside it binds."""
    if isinstance(node, ast.Name):
        return {node.id} if isinstance(node.ctx, ast.Load) and node.id not in bound else set()
    if isinstance(node, ast.Lambda):
        args = node.args
        own = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
        defaults = [d for d in [*args.defaults, *args.kw_defaults] if d is not None]
        return set().union(*(_free_names(d, bound) for d in defaults), _free_names(node.body, bound | own))
    if isinstance(node, _SCOPES):
        out, inner = set(), set(bound)
        for i, gen in enumerate(node.generators):
            # the first iterable is read outside the comprehension; the later ones see its targets
            out |= _free_names(gen.iter, frozenset(bound if i == 0 else inner))
            inner |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
            for test in gen.ifs:
                out |= _free_names(test, frozenset(inner))
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        return out.union(*(_free_names(p, frozenset(inner)) for p in parts))
    return set().union(*(_free_names(child, bound) for child in ast.iter_child_nodes(node)))


class RewriteState:
    """The rewrite's state: the plan, the TF1 source lines, the TODOs so far and what each global name now is."""

    def __init__(self, plan: Plan, source_lines: list[str]):
        self.plan, self.lines = plan, source_lines
        self.tree = ast.Module([], [])  # the script's module, its statements the ones rewritten (source.rewrite)
        self.todos: list[str] = []
        self.marks: list[str] = []  # TODOs of the statement being rewritten, to mark above it (`statement`)
        self.loader = False
        # the names the generated code binds (the step function, the model, the Keras optimizer) replace the
        # script's graph things of those names (a train op called `train_step` or `optimizer`): no TF1 values now
        self.tainted = set(plan.graph) - set(GENERATED) - plan.datasets - plan.iterators - set(plan.defaults.values())
        # the script's graph-building functions dropped under a name the generated code binds (cookbook's
        # `def model(X, A1, ...)`): the generated `model` is not tainted by them, a use of the script's own is a TODO
        self.shadowed: set = set()
        self.eager: set = set()  # names bound to TF values computed eagerly after training (eager_tail)
        self.eager_summaries: set = set()  # names bound to TF1 summaries of such values, now summary dicts
        self.sessions: set = set()
        self.graphs: set = set()  # names bound to tf.Graph(): `with g.as_default():` gives way to its body
        self.savers: set = set()  # names bound to a tf.train.Saver() of all variables
        self.padded: set = set()  # those of them whose Saver pads the step number (pad_step_number=True)
        self.writers: set = set()  # names bound to a FileWriter, now a tf.summary.create_file_writer
        self.summaries = False
        self.restores = False  # a Saver's restore is now restore_checkpoint(path) (saving.restore_helper)
        self.saves = False  # a Saver's save with a global_step is now save_checkpoint(path, step)
        self.feed_vars: dict = {}  # name bound to a feed dict literal -> its keys (which become strings)
        self.feed_keysets: dict = {}  # and the keys of each dict bound to it
        self.estimator_inputs: dict = {}  # a numpy_input_fn written as a tf.data pipeline -> what its batches hold
        self.noted_input = False  # the note on the first of them said
        self.model_parts = 0  # graph statements dropped before the first step: the generated model replaces them
        self.tf_imported = False
        self.first_step_line = 10**9
        self.iterator_of: dict = {}  # a TF1 iterator's name -> the dataset expression it iterates (`iter(...)` in TF2)
        self.pull_targets: dict = {}  # an iterator's name -> the targets of the script's `X, Y = it.get_next()`
        self.pulled_by: dict = {}  # each of those target names -> its iterator's name
        self.deferred: dict = {}  # a dataset made of fed placeholders -> its statements, run at its initializer
        self.pulls: list = []  # iterators the statement being rewritten pulls a batch from, once each (`_pull`)
        self.producers: dict = {}  # a queue producer's tensors' names -> its arguments (queues)
        self.coordinators: set = set()  # names bound to a tf.train.Coordinator or its queue-runner threads
        self.queue_sources = None  # the names queue producers slice (queues._queue_sources)
        self.file_queues: dict = {}  # a string_input_producer's name -> its arguments (queues)
        self.readers: dict = {}  # a TextLineReader's / TFRecordReader's name -> (its kind, skip_header_lines)
        self.reader_functions: dict = {}  # the script's read_and_decode(filename_queue) -> (reader kind, skip)
        self.read = None  # the record being read and what is computed from it, until its batcher (queues)

    # -- helpers ------------------------------------------------------------------------------------------------
    def _todo(self, node, what: str) -> ast.stmt:
        line = getattr(node, "lineno", 0)
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        message = f"{what} from TF1 line {line}: {text}"[:150]
        self.todos.append(message)
        return ast.Expr(ast.Constant(f"{TODO_MARK}{message}"))

    def _loads(self, node) -> set:
        """The names `node` reads from outside it: a comprehension's or a lambda's own variables are not read
        (`{c: i for i, c in enumerate(chars)}` reads `chars`, not a global `c` the script binds to a tensor later)."""
        try:
            return _free_names(node)
        except RecursionError:  # an expression nested deeper than Python's stack: every name it loads
            return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}

    def _free_loads(self, node) -> set:
        """The module names a function or class reads: its loads less the names it binds itself (parameters,
        assignments, loop targets, its own defs and imports) unless declared global. A NumPy helper whose locals
        are named as the graph's placeholders (`inputs`, `targets`) reads no graph value."""
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return self._loads(node)
        bound = self._stores(node)
        for n in ast.walk(node):
            if isinstance(n, ast.arg):
                bound.add(n.arg)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not node:
                bound.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                bound |= {(a.asname or a.name).split(".")[0] for a in n.names}
        declared = {name for n in ast.walk(node) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
        return self._loads(node) - (bound - declared)

    def _stores(self, node) -> set:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}

    def _path(self, func) -> str | None:
        """`tf.image.decode_png` -> "image.decode_png" for a name bound to TensorFlow; None otherwise."""
        parts = []
        while isinstance(func, ast.Attribute):
            parts.append(func.attr)
            func = func.value
        if not (isinstance(func, ast.Name) and func.id in self.plan.tf_names) or not parts:
            return None
        return ".".join(reversed(parts))

    def _uses_tf(self, node) -> bool:
        return bool(self._loads(node) & self.plan.tf_names)

    def _is_session(self, expr) -> bool:
        return any(isinstance(n, ast.Attribute) and n.attr in _SESSIONS for n in ast.walk(expr))

    def _pulled_names(self, iterator: str) -> list[str]:
        """The names `X, Y = iterator.get_next()` binds (`pull_targets`)."""
        return [n.id for n in ast.walk(self.pull_targets[iterator]) if isinstance(n, ast.Name)]

    def _note(self, text: str) -> ast.stmt:
        return ast.Expr(ast.Constant(f"{NOTE_MARK}{text}"))
