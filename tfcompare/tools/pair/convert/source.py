"""The script's own code around the graph, carried over: data loading, batch size, loops, logging.

The TF1 script's syntax tree is rewritten statement by statement: graph-building statements (they bound a
placeholder, variable, tensor, optimizer or session when the script reached its first training step) become
the generated model; `with tf.Session() as sess:` gives way to its body; `sess.run(...)` / `t.eval(...)` become
calls of the generated step and model methods; `input_data.read_data_sets` (gone from TF 2) becomes a loader
written into the script; what remains of TF1 becomes `pass  # TODO(tfcompare): ...`, never a silent change.
"""

from __future__ import annotations

import ast
import dataclasses
import textwrap

__all__ = ["Plan", "Carried", "rewrite", "TODO_MARK", "NOTE_MARK", "GENERATED"]

TODO_MARK = "__tfcompare_todo__"
NOTE_MARK = "__tfcompare_note__"  # a comment the TF2 script gets above a statement whose meaning changed
_CHECKPOINT = "tf.train.Checkpoint(model=model, optimizer=optimizer)"
_SAVER_OPTIONS = {"max_to_keep", "keep_checkpoint_every_n_hours", "name", "save_relative_paths", "pad_step_number"}
_WRITER_OPTIONS = {"max_queue": "max_queue", "filename_suffix": "filename_suffix"}  # FileWriter -> create_file_writer
_SESSIONS = {"Session", "InteractiveSession", "MonitoredTrainingSession", "MonitoredSession"}
_DROP_CALLS = {"disable_v2_behavior", "disable_eager_execution", "reset_default_graph", "set_verbosity",
               "enable_resource_variables"}
_LOADER = "read_data_sets"
GENERATED = ("train_step", "model", "optimizer", "Model")


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


@dataclasses.dataclass
class Carried:
    head: list  # statements before the graph (unparsed source lines)
    tail: list  # statements after it
    imports: list
    todos: list
    loader: bool  # read_data_sets must be written into the script
    summaries: bool = False  # a FileWriter's add_summary became add_summary(writer, ...): the helper is written


class _Rewriter:
    def __init__(self, plan: Plan, source_lines: list[str]):
        self.plan, self.lines = plan, source_lines
        self.todos: list[str] = []
        self.loader = False
        # the names the generated code binds (the step function, the model, the Keras optimizer) replace the
        # script's graph things of those names (a train op called `train_step` or `optimizer`): no TF1 values now
        self.tainted = set(plan.graph) - set(GENERATED)
        self.sessions: set = set()
        self.graphs: set = set()  # names bound to tf.Graph(): `with g.as_default():` gives way to its body
        self.savers: set = set()  # names bound to a tf.train.Saver() of all variables
        self.writers: set = set()  # names bound to a FileWriter, now a tf.summary.create_file_writer
        self.summaries = False
        self.feed_vars: dict = {}  # name bound to a feed dict literal -> its keys (which become strings)
        self.model_parts = 0  # graph statements dropped before the first step: the generated model replaces them
        self.tf_imported = False
        self.first_step_line = 10**9

    # -- helpers ------------------------------------------------------------------------------------------------
    def _todo(self, node, what: str) -> ast.stmt:
        line = getattr(node, "lineno", 0)
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        message = f"{what} from TF1 line {line}: {text}"[:150]
        self.todos.append(message)
        return ast.Expr(ast.Constant(f"{TODO_MARK}{message}"))

    def _loads(self, node) -> set:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}

    def _stores(self, node) -> set:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}

    def _uses_tf(self, node) -> bool:
        return bool(self._loads(node) & self.plan.tf_names)

    def _is_session(self, expr) -> bool:
        return any(isinstance(n, ast.Attribute) and n.attr in _SESSIONS for n in ast.walk(expr))

    # -- calls --------------------------------------------------------------------------------------------------
    def _feed(self, call: ast.Call, position: int):
        feed = next((k.value for k in call.keywords if k.arg == "feed_dict"), None)
        if feed is None and len(call.args) > position:
            feed = call.args[position]
        if feed is None:
            return {}
        if isinstance(feed, ast.Name) and feed.id in self.feed_vars:
            return {p: ast.Subscript(ast.Name(feed.id, ast.Load()), ast.Constant(p), ast.Load())
                    for p in self.feed_vars[feed.id]}
        if not isinstance(feed, ast.Dict) or not all(isinstance(k, ast.Name) for k in feed.keys):
            return None
        return {k.id: v for k, v in zip(feed.keys, feed.values)}

    def _fetch(self, name: str, feed: dict, step: bool = False):
        if name in self.plan.summaries:
            return self._summary_values(name, feed, step)
        if name in self.plan.values:
            return ast.parse(self.plan.values[name], mode="eval").body
        prefix, args = self.plan.methods[name]
        if any(a not in feed for a in args):
            return None
        return ast.parse(f"{prefix}({', '.join(ast.unparse(feed[a]) for a in args)}).numpy()", mode="eval").body

    def _summary_values(self, name: str, feed: dict, step: bool):
        """{tag: (tf.summary.scalar | histogram, value)} for a fetched TF1 summary; in the training step the loss's
        value is the step's own (added by `_run`), the others are computed before the step, as TF1's were."""
        parts = []
        for tag, kind, prefix, args, is_loss in self.plan.summaries[name]:
            if is_loss and step:
                continue
            if any(a not in feed for a in args):
                return None
            value = f"{prefix}({', '.join(ast.unparse(feed[a]) for a in args)}).numpy()"
            parts.append(f"{tag!r}: (tf.summary.{kind}, {value})")
        return ast.parse("{" + ", ".join(parts) + "}", mode="eval").body

    def _with_loss(self, name: str, param: str) -> str:
        """The step's fetched summary: the values computed before it, and the loss the step returned."""
        losses = [f"{tag!r}: (tf.summary.{kind}, loss_value)" for tag, kind, _, _, is_loss in self.plan.summaries[name]
                  if is_loss]
        return "{" + ", ".join([f"**{param}", *losses]) + "}" if losses else param

    def _run(self, call: ast.Call, fetches, feed: dict | None):
        """The TF2 expression for one Session.run / eval, or None when it cannot be written."""
        if feed is None:
            return None
        single = not isinstance(fetches, (ast.List, ast.Tuple))
        items = [fetches] if single else list(fetches.elts)
        if not all(isinstance(i, ast.Name) for i in items):
            return None
        names = [i.id for i in items]
        known = self.plan.train | set(self.plan.methods) | self.plan.untranslated | set(self.plan.values) | \
            set(self.plan.summaries)
        if any(n not in known for n in names):
            return None
        for n in names:
            if n in self.plan.untranslated:
                self.todos.append(f"the fetch {n} has no TF2 translation (None in its place) from TF1 line "
                                  f"{call.lineno}: {self.lines[call.lineno - 1].strip()}"[:150])
        if not any(n in self.plan.train for n in names):
            parts = [ast.Constant(None) if n in self.plan.untranslated else self._fetch(n, feed) for n in names]
            if any(p is None for p in parts):
                return None
            return parts[0] if single else ast.List(parts, ast.Load())
        if any(a not in feed for a in self.plan.step_args):
            return None
        step = f"train_step({', '.join(ast.unparse(feed[a]) for a in self.plan.step_args)})"
        if single:
            return ast.parse(step, mode="eval").body
        extras = [n for n in names if n not in self.plan.train and n != self.plan.loss and
                  n not in self.plan.untranslated]
        if not extras:  # one call: the tuple's order is TF1's
            values = ", ".join("None" if n in self.plan.train or n in self.plan.untranslated else f"{step}.numpy()"
                               for n in names)
            return ast.parse(f"({values})" if len(names) > 1 else step, mode="eval").body
        fetched = [self._fetch(n, feed, step=True) for n in extras]
        if any(p is None for p in fetched):
            return None
        params = [f"value_{i}" for i in range(len(extras))]
        values = ", ".join("None" if n in self.plan.train or n in self.plan.untranslated else
                           "loss_value" if n == self.plan.loss else
                           self._with_loss(n, params[extras.index(n)]) if n in self.plan.summaries else
                           params[extras.index(n)] for n in names)
        # arguments are evaluated in order: what TF1 computed for the step is read before it, a TF1 ref variable
        # the step increments (the global step) after it, as its fetch returned it
        before = [i for i, n in enumerate(extras) if n not in self.plan.after]
        after = [i for i, n in enumerate(extras) if n in self.plan.after]
        order = [params[i] for i in before] + ["loss_value"] + [params[i] for i in after]
        calls = [*(ast.unparse(fetched[i]) for i in before), f"{step}.numpy()",
                 *(ast.unparse(fetched[i]) for i in after)]
        code = f"(lambda {', '.join(order)}: ({values}))({', '.join(calls)})"
        return ast.parse(code, mode="eval").body

    def _calls(self, stmt):
        """Rewrite the Session.run / eval calls inside `stmt`; returns (stmt, ok, had_any)."""
        state = {"ok": True, "any": False}
        rewriter = self

        class Calls(ast.NodeTransformer):
            def visit_Attribute(self, node):
                self.generic_visit(node)
                if isinstance(node.value, ast.Name) and node.value.id == "input_data" and node.attr == _LOADER:
                    rewriter.loader = True
                    return ast.copy_location(ast.Name(_LOADER, ast.Load()), node)
                return node

            def visit_Call(self, node):
                self.generic_visit(node)
                f = node.func
                if isinstance(f, ast.Attribute) and f.attr == "run" and isinstance(f.value, ast.Name) and \
                        f.value.id in rewriter.sessions and node.args:
                    state["any"] = True
                    new = rewriter._run(node, node.args[0], rewriter._feed(node, 1))
                elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and (
                        (f.attr == "eval" and f.value.id in rewriter.plan.methods) or
                        (f.attr == "run" and f.value.id in rewriter.plan.train)):  # loss.eval(...), train_op.run(...)
                    state["any"] = True
                    new = rewriter._run(node, f.value, rewriter._feed(node, 0))
                else:
                    return node
                if new is None:
                    state["ok"] = False
                    return node
                return ast.copy_location(new, node)

        stmt = Calls().visit(stmt)
        return stmt, state["ok"], state["any"]

    # -- statements ---------------------------------------------------------------------------------------------
    def body(self, stmts: list, before_step: bool) -> list:
        out = []
        for s in stmts:
            out.extend(self.statement(s, before_step))
        return out

    def statement(self, s, before_step: bool) -> list:
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            return self._import(s)
        if isinstance(s, ast.With) and all(self._is_session(i.context_expr) or self._is_graph_default(i.context_expr)
                                           for i in s.items):
            for item in s.items:
                if item.optional_vars is not None:
                    self.sessions |= self._stores(item.optional_vars)
            return self.body(s.body, before_step)
        if isinstance(s, (ast.FunctionDef, ast.ClassDef)):
            if self._uses_tf(s) or self._loads(s) & self.tainted:
                if s.name in self.plan.graph or before_step:
                    self.tainted.add(s.name)
                    self.model_parts += 1
                    return []
                self.tainted.add(s.name)
                return [self._todo(s, f"the function {s.name} builds TF1 graph code")]
            return [s]
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and self._dropped_call(s.value):
            return []
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)):
            return self._simple(s, before_step)
        if isinstance(s, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
            if isinstance(s, ast.If) and not self._has_run(s) and self._stores(s) and \
                    self._stores(s) <= self.plan.graph:
                self.model_parts += 1  # e.g. the choice of optimizer: the generated model has the one the script ran
                return [self._todo(s, "a choice between TF1 graph alternatives (the TF2 script has the branch this "
                                      "run took)")]
            test = getattr(s, "test", None) or getattr(s, "iter", None)
            if test is not None and (self._loads(test) & self.tainted or self._uses_tf(test)):
                return [self._todo(s, "a loop or condition on TF1 graph values")]
            parts = self.model_parts
            emptied = []
            for field in ("body", "orelse", "finalbody"):
                if hasattr(s, field) and getattr(s, field):
                    new = self.body(getattr(s, field), before_step)
                    emptied.append(not new)
                    setattr(s, field, new or [ast.Pass()])
            if before_step and all(emptied) and self.model_parts > parts and not isinstance(s, ast.Try):
                return []  # e.g. a loop that stacks layers: the generated model has them
            if isinstance(s, ast.Try):
                for h in s.handlers:
                    h.body = self.body(h.body, before_step) or [ast.Pass()]
            return [s]
        if self._uses_tf(s) or self._loads(s) & self.tainted:
            return [self._todo(s, "TF1 code")]
        return [s]

    def _is_graph(self, expr) -> bool:
        """`tf.Graph()`: TF2 has no graph to build in; the model's variables live in the program."""
        return self._is_tf_call(expr, "Graph") and not expr.args and not expr.keywords

    def _is_graph_default(self, expr) -> bool:
        """`g.as_default()` of a `g = tf.Graph()`, or `tf.Graph().as_default()`."""
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and
                expr.func.attr == "as_default" and not expr.args):
            return False
        owner = expr.func.value
        return (isinstance(owner, ast.Name) and owner.id in self.graphs) or self._is_graph(owner)

    def _is_tf_call(self, expr, attr: str) -> bool:
        return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == attr and \
            self._uses_tf(expr.func)

    def _note(self, text: str) -> ast.stmt:
        return ast.Expr(ast.Constant(f"{NOTE_MARK}{text}"))

    def _file_writer(self, s) -> list | None:
        """`w = tf.summary.FileWriter(dir, graph=...)` -> `w = tf.summary.create_file_writer(dir)`: TF2 writes no graph."""
        call = s.value
        options = {k.arg: k.value for k in call.keywords}
        if not call.args or len(call.args) > 2 or not set(options) <= {"graph", "flush_secs", *_WRITER_OPTIONS}:
            return None
        keywords = [ast.keyword(_WRITER_OPTIONS[k], v) for k, v in options.items() if k in _WRITER_OPTIONS]
        if "flush_secs" in options:
            keywords.append(ast.keyword("flush_millis", ast.BinOp(options["flush_secs"], ast.Mult(), ast.Constant(1000))))
        self.writers |= self._stores(s)
        self.tainted -= self._stores(s)
        new = ast.Assign(s.targets, ast.Call(ast.parse("tf.summary.create_file_writer", mode="eval").body,
                                             [call.args[0]], keywords), lineno=s.lineno)
        dropped = " (TF1's graph= is not written: TF2 has no graph to show)" if len(call.args) > 1 or \
            "graph" in options else ""
        return [self._note(f"TF1's FileWriter as a TF2 summary writer{dropped}"), new]

    def _saver_calls(self, s):
        """`saver.save(sess, path)` -> a tf.train.Checkpoint's write(path); `saver.restore(sess, path)` -> read(path).
        Returns (statement, notes) or None when a call has arguments this does not map."""
        notes, bad = [], []
        rewriter = self

        class Calls(ast.NodeTransformer):
            def visit_Call(self, node):
                self.generic_visit(node)
                f = node.func
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in rewriter.writers:
                    # a fetch written as None (a summary kind not translated) must not reach add_summary
                    if f.attr == "add_summary" and len(node.args) == 2 and not node.keywords and \
                            rewriter.plan.summaries and not rewriter.plan.untranslated:
                        rewriter.summaries = True
                        return ast.copy_location(ast.Call(ast.Name("add_summary", ast.Load()),
                                                          [f.value, *node.args], []), node)
                    if f.attr not in ("close", "flush"):  # TF2's writer has these two of FileWriter's methods
                        bad.append(node)
                    return node
                if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and
                        f.value.id in rewriter.savers and f.attr in ("save", "restore")):
                    return node
                options = {k.arg: k.value for k in node.keywords}
                path = node.args[1] if len(node.args) > 1 else options.pop("save_path", None)
                step = options.pop("global_step", None) if f.attr == "save" else None
                if path is None or len(node.args) > 2 or options.keys() - {"sess"}:
                    bad.append(node)
                    return node
                if step is not None:  # TF1 saves to PATH-STEP and returns that
                    path = ast.parse(f"'%s-%d' % ({ast.unparse(path)}, {ast.unparse(step)})", mode="eval").body
                # write/read, not save/restore: the checkpoint keeps TF1's exact path (save would add -N)
                method = "write" if f.attr == "save" else "read"
                notes.append(f"TF1's Saver.{f.attr} as tf.train.Checkpoint.{method} of the model and optimizer at "
                             "the same path; the format differs: object-based names (model/weights_1/...), not TF1's "
                             "variable names, so a TF1 checkpoint does not restore here nor this one into TF1" +
                             ("; no `checkpoint` state file is written (tf.train.latest_checkpoint does not see it)"
                              if method == "write" else ""))
                return ast.copy_location(ast.parse(f"{_CHECKPOINT}.{method}({ast.unparse(path)})",
                                                   mode="eval").body, node)

        new = Calls().visit(s)
        return None if bad else (new, notes)

    def _has_run(self, node) -> bool:
        return any(isinstance(n, ast.Attribute) and n.attr in ("run", "eval") for n in ast.walk(node))

    def _dropped_call(self, call: ast.Call) -> bool:
        f = call.func
        if isinstance(f, ast.Attribute) and f.attr in _DROP_CALLS and self._uses_tf(f):
            return True
        if isinstance(f, ast.Attribute) and f.attr == "close" and isinstance(f.value, ast.Name) and \
                f.value.id in self.sessions:
            return True
        if isinstance(f, ast.Attribute) and f.attr == "run" and not call.args and not call.keywords and (
                (isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Attribute) and
                 "initializ" in f.value.func.attr) or
                (isinstance(f.value, ast.Name) and f.value.id in self.plan.graph and
                 f.value.id not in self.plan.train)):
            return True  # tf.global_variables_initializer().run(), init.run(): variables start initialised in TF2
        if isinstance(f, ast.Attribute) and f.attr == "run" and isinstance(f.value, ast.Name) and \
                f.value.id in self.sessions and call.args:
            fetch = call.args[0]
            if isinstance(fetch, ast.Call) and isinstance(fetch.func, ast.Attribute) and \
                    "initializer" in fetch.func.attr:
                return True
            if isinstance(fetch, ast.Name) and fetch.id in self.plan.graph and fetch.id not in self.plan.train and \
                    fetch.id not in self.plan.methods:
                return True  # sess.run(init)
        return False

    def _simple(self, s, before_step: bool) -> list:
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Dict) and s.value.keys and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name) and \
                all(isinstance(k, ast.Name) and k.id in self.plan.placeholders for k in s.value.keys):
            # feed = {x: ..., y: ...} -> {'x': ..., 'y': ...}
            self.feed_vars[s.targets[0].id] = [k.id for k in s.value.keys]
            self.tainted.discard(s.targets[0].id)
            s.value.keys = [ast.Constant(k.id) for k in s.value.keys]
            return [s]
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and self._is_session(s.value.func):
            self.sessions |= self._stores(s)
            return []
        if isinstance(s, ast.Assign) and self._is_graph(s.value) and all(isinstance(t, ast.Name) for t in s.targets):
            self.graphs |= self._stores(s)  # tainted still: any other use of the graph is a TODO
            self.model_parts += before_step
            return []
        if isinstance(s, ast.Assign) and self._is_tf_call(s.value, "Saver") and not s.value.args and \
                {k.arg for k in s.value.keywords} <= _SAVER_OPTIONS and all(isinstance(t, ast.Name) for t in s.targets):
            self.savers |= self._stores(s)  # all variables: the model's and the optimizer's, as a Checkpoint has
            self.model_parts += before_step
            return []
        if isinstance(s, ast.Assign) and self._is_tf_call(s.value, "FileWriter") and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name):
            new = self._file_writer(s)
            if new is not None:
                return new
        if self.plan.summary_lines and isinstance(s, ast.Expr) and s.lineno in self.plan.summary_lines and \
                self._uses_tf(s):
            self.model_parts += before_step  # written by the TF2 script where TF1 fetched and wrote the summary
            return []
        if self._loads(s) & (self.savers | self.writers):
            saved = self._saver_calls(s)
            if saved is None or self._loads(saved[0]) & self.savers:
                self.tainted |= self._stores(s)
                return [self._todo(s, "a TF1 Saver or FileWriter use tfcompare does not map")]
            s = saved[0]
            if not self._loads(s) & (self.tainted | self.sessions) - self.writers:
                self.tainted -= self._stores(s)
                return [self._note(n) for n in saved[1]] + [s]
        stores = self._stores(s) if not isinstance(s, ast.Expr) else set()
        if self._has_run(s):
            new, ok, had = self._calls(s)
            if had:
                if not ok:
                    self.tainted |= stores
                    return [self._todo(s, "a Session.run whose fetches or feed_dict tfcompare cannot map")]
                if self._loads(new) & (self.tainted | self.sessions):
                    self.tainted |= stores
                    return [self._todo(s, "TF1 graph values")]
                self.tainted -= stores
                return [new]
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and self._is_tf_seed(s.value):
            s.value.func = ast.parse("tf.random.set_seed", mode="eval").body
            return [s]
        if stores and stores <= self.plan.graph and before_step:
            self.model_parts += 1
            return []
        if stores and stores <= self.plan.late and not self._has_run(s):
            self.tainted |= stores
            return []  # graph code after the first step, defined by `late`: the model's methods have it
        if self._uses_tf(s) or self._loads(s) & (self.tainted | self.sessions):
            if before_step and stores and not self._has_run(s):
                self.tainted |= stores
                self.model_parts += 1
                return []
            self.tainted |= stores
            return [self._todo(s, "TF1 code with no TF2 translation" if s.lineno < self.first_step_line else
                               "TF1 graph code run after the first training step")]
        new, _, _ = self._calls(s)  # input_data.read_data_sets -> read_data_sets
        return [new]

    def _is_tf_seed(self, call) -> bool:
        f = call.func
        return isinstance(f, ast.Attribute) and f.attr == "set_random_seed" and self._uses_tf(f)

    def _import(self, s) -> list:
        if isinstance(s, ast.Import):
            kept = [a for a in s.names if not a.name.startswith("tensorflow")]
            if len(kept) == len(s.names):
                return [s]
            tf2 = [] if self.tf_imported else [ast.Import([ast.alias("tensorflow", "tf")])]
            self.tf_imported = True
            return tf2 + ([ast.Import(kept)] if kept else [])
        module = s.module or ""
        if module.startswith("tensorflow") or module == "tensorflow":
            if any(a.name == "input_data" for a in s.names):
                self.loader = True
            return []
        return [s]


def rewrite(source: str, plan: Plan, first_step_line: int) -> Carried:
    """Carry the script's statements over; the generated model goes where its graph code was. A statement that
    comes through unchanged keeps its own text (comments inside it, line breaks); a rewritten one is unparsed."""
    tree = ast.parse(source)
    lines = source.splitlines()
    original = {id(n): ast.dump(n) for n in ast.walk(tree) if isinstance(n, ast.stmt)}
    rewriter = _Rewriter(plan, lines)
    rewriter.first_step_line = first_step_line
    head, tail, imports = [], [], []
    placed = False
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) and \
            isinstance(body[0].value.value, str):
        body = body[1:]  # the TF1 docstring: the writer gives the TF2 script its own

    starts = {id(n): n.body[0].lineno for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While, ast.If))}
    headers = {id(n): ast.dump(n.target if isinstance(n, ast.For) else n.test) for n in ast.walk(tree)
               if isinstance(n, (ast.For, ast.While, ast.If))}
    iters = {id(n): ast.dump(n.iter) for n in ast.walk(tree) if isinstance(n, ast.For)}

    def text(node) -> str:
        line = getattr(node, "lineno", 0)  # 0: a statement this rewrite made
        gap = "\n" if line >= 2 and not lines[line - 2].strip() else ""
        if id(node) in original and ast.dump(node) == original[id(node)]:
            segment = ast.get_source_segment(source, node)
            if segment is not None:
                return gap + textwrap.dedent(" " * node.col_offset + segment)
        if id(node) in starts and not node.orelse and \
                headers[id(node)] == ast.dump(node.target if isinstance(node, ast.For) else node.test) and \
                (not isinstance(node, ast.For) or iters[id(node)] == ast.dump(node.iter)):
            header = textwrap.dedent("\n".join(" " * node.col_offset + lines[i].lstrip() if i == node.lineno - 1
                                               else lines[i] for i in range(node.lineno - 1, starts[id(node)] - 1)))
            inner = "\n".join(text(child) for child in node.body)
            return gap + header + "\n" + textwrap.indent(inner, "    ")
        return gap + ast.unparse(node)

    for s in body:
        before = s.lineno <= first_step_line and not (s.lineno <= first_step_line <= s.end_lineno)
        new = rewriter.statement(s, before)
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            imports.extend(new)
            continue
        if not placed and (rewriter.model_parts or not before):
            placed = True  # the first graph statement: the model goes here
        (tail if placed else head).extend(new)
    return Carried([text(x) for x in head], [text(x) for x in tail], [ast.unparse(x) for x in imports],
                   rewriter.todos, rewriter.loader, rewriter.summaries)
