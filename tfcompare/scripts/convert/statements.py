"""The rewrite of the script's own code, statement by statement: imports of TensorFlow become TF2's one; graph
statements before the first training step give way to the generated model; `with tf.Session()` / `with
g.as_default()` to their bodies; calls TF2 does without (initializers, disable_v2_behavior, ...) are dropped;
loops and branches are rewritten inside; what remains of TF1 becomes a TODO.
"""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.estimator_runs import EstimatorRuns
from tfcompare.scripts.convert.plain_tf import PlainCalls
from tfcompare.scripts.convert.plan import GENERATED, NOTE_MARK, TODO_MARK
from tfcompare.scripts.convert.pulls import pull_per_item
from tfcompare.scripts.convert.queues import QueueInputs
from tfcompare.scripts.convert.run_functions import RunFunctions
from tfcompare.scripts.convert.saving import SaversAndWriters
from tfcompare.scripts.convert.seeds import seed_function
from tfcompare.scripts.convert.session_runs import SessionRuns

__all__ = ["Rewriter"]

_SAVER_OPTIONS = {"max_to_keep", "keep_checkpoint_every_n_hours", "name", "save_relative_paths", "pad_step_number"}
_ITERATOR_MAKERS = {"make_one_shot_iterator", "make_initializable_iterator"}
_TF1_DATASET = _ITERATOR_MAKERS | {"output_shapes", "output_types", "output_classes", "map_with_legacy_function",
                                   "filter_with_legacy_function"}  # gone in TF2
_DROP_CALLS = {"disable_v2_behavior", "disable_eager_execution", "reset_default_graph", "set_verbosity",
               "enable_resource_variables"}
_INITIALIZERS = {"global_variables_initializer", "initialize_all_variables", "local_variables_initializer",
                 "initialize_local_variables", "variables_initializer", "initialize_variables"}


class Rewriter(SessionRuns, SaversAndWriters, RunFunctions, EstimatorRuns, PlainCalls, QueueInputs):
    """Rewrites one statement at a time (`statement`), in the script's order; its state (`RewriteState`) carries
    what each name now is from one statement to the next."""

    def body(self, stmts: list, before_step: bool) -> list:
        out = []
        for s in stmts:
            out.extend(self.statement(s, before_step))
        return out

    def statement(self, s, before_step: bool) -> list:
        out = self._statement(s, before_step)
        if self.pulls:  # each Session.run of a tensor a tf.data iterator handed out pulled one batch: now by hand
            per_item, left = pull_per_item(out, {it: self._pulled_names(it) for it in self.pulls})
            if left:
                self.marks.append("a Session.run inside a comprehension pulled a batch per item; this one is pulled "
                                  f"once, above it, from TF1 line {s.lineno}")
            out = [ast.copy_location(ast.Assign([self.pull_targets[it]], ast.parse(f"{it}.get_next()", mode="eval")
                                                .body), s) for it in self.pulls if it not in per_item] + out
            self.pulls = []
        if self.marks:  # TODOs about a part of this statement (a fetch left None): marked above it, in the file
            out = [ast.Expr(ast.Constant(f"{TODO_MARK}{m}")) for m in self.marks] + out
            self.marks = []
        return out

    def _statement(self, s, before_step: bool) -> list:
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            return self._import(s)
        if isinstance(s, ast.With) and all(self._is_session(i.context_expr) or self._is_graph_default(i.context_expr)
                                           for i in s.items):
            for item in s.items:
                if item.optional_vars is not None:
                    self.sessions |= self._stores(item.optional_vars)
            # a block that holds the first step (`with tf.Graph().as_default():` around the graph and the loop):
            # what it builds above the step's line is the model, as at module level
            return [x for c in s.body for x in self.statement(c, before_step or c.end_lineno < self.first_step_line)]
        if isinstance(s, ast.ClassDef) and s.name in self.plan.classes:
            self.model_parts += 1  # written by the rewrite itself (instances), where the script defined it
            return []
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                s.targets[0].id in self.plan.rebuilt:
            return [ast.copy_location(ast.parse(self.plan.rebuilt[s.targets[0].id]).body[0], s)]
        if isinstance(s, (ast.FunctionDef, ast.ClassDef)):
            if self._uses_tf(s) or self._free_loads(s) & self.tainted:
                mapped = self._mapped_function(s) if isinstance(s, ast.FunctionDef) else None
                if mapped is None and isinstance(s, ast.FunctionDef):  # read_and_decode(filename_queue)
                    mapped = self._reader_function(s) or self._plain_function(s)  # or a proto helper
                if mapped is not None:  # `parse_fn` of `dataset.map(parse_fn)`: TF2 traces it as TF1 did
                    return mapped
                runs = self._run_function(s)  # one that runs the model and computes on what it fetched
                if runs is not None:
                    return [runs]
                if s.name in self.plan.graph or before_step:
                    if s.name in GENERATED:
                        self.shadowed.add(s.name)
                    else:
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
                if self._initializers_only(s):  # `init = ...` by TF version: TF2's variables start initialised
                    return []
                return [self._todo(s, "a choice between TF1 graph alternatives (the TF2 script has the branch this "
                                      "run took)")]
            if isinstance(s, (ast.While, ast.If)):
                s.test = self._unstopped(s.test)  # `while not coord.should_stop() and ...`: no queue to stop
            test = getattr(s, "test", None) or getattr(s, "iter", None)
            if test is not None and (self._loads(test) & (self.tainted | self.shadowed) or self._uses_tf(test)):
                return [self._todo(s, "a loop or condition on TF1 graph values")]
            parts = self.model_parts
            emptied = []
            main = isinstance(s, ast.If) and ast.unparse(s.test).replace('"', "'") == "__name__ == '__main__'"
            for field in ("body", "orelse", "finalbody"):
                if main and field == "body" and not before_step:  # the script's top level: the graph is built
                    # above the first step's line (`model = LSTMRNN(...)`), as at module level
                    new = [x for c in s.body for x in self.statement(c, c.end_lineno < self.first_step_line)]
                elif hasattr(s, field) and getattr(s, field):
                    new = self.body(getattr(s, field), before_step)
                else:
                    continue
                emptied.append(not new)
                if field == "finalbody" and not new and s.handlers:  # `finally: coord.request_stop()`: nothing left
                    s.finalbody = []
                    continue
                setattr(s, field, _runnable(new))
            if before_step and all(emptied) and self.model_parts > parts and not isinstance(s, ast.Try):
                return []  # e.g. a loop that stacks layers: the generated model has them
            if isinstance(s, ast.Try):
                for h in s.handlers:
                    h.body = _runnable(self.body(h.body, before_step))
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

    def _has_run(self, node) -> bool:
        return any(isinstance(n, ast.Attribute) and n.attr in ("run", "eval") for n in ast.walk(node))

    def _initializers_only(self, s: ast.If) -> bool:
        """Every branch (`if` / `elif` / `else`) only binds TF1's variable initializer, by whichever name the TF
        version has (`tf.initialize_all_variables()` before 0.12, `tf.global_variables_initializer()` after)."""
        branches, node = [], s
        while isinstance(node, ast.If):
            branches.append(node.body)
            node = node.orelse[0] if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) else \
                node.orelse
        if node:
            branches.append(node)
        return all(isinstance(b, ast.Assign) and isinstance(b.value, ast.Call) and
                   isinstance(b.value.func, ast.Attribute) and b.value.func.attr in _INITIALIZERS and
                   self._uses_tf(b.value.func) for body in branches for b in body)

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
            if self._is_tf_call(fetch, "group") and fetch.args and not fetch.keywords and \
                    all(isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and a.func.attr in _INITIALIZERS
                        and self._uses_tf(a.func) for a in fetch.args):
                return True  # sess.run(tf.group(tf.global_variables_initializer(), tf.local_variables_initializer()))
            if isinstance(fetch, ast.Name) and fetch.id in self.plan.graph and fetch.id not in self.plan.train and \
                    fetch.id not in self.plan.methods:
                return True  # sess.run(init)
        return False

    def _simple(self, s, before_step: bool) -> list:
        queued = self._queue(s, before_step)  # slice_input_producer / shuffle_batch, the Coordinator
        if queued is not None:
            return queued
        pipeline = self._pipeline(s, before_step)
        if pipeline is not None:
            return pipeline
        estimator = self._estimator(s)
        if estimator is not None:
            return estimator
        plain = self._plain(s)  # a TFRecord written, a tf.gfile call: no graph, TF2's names
        if plain is not None:
            return plain
        target = s.targets[0] if isinstance(s, ast.Assign) and len(s.targets) == 1 else None
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                target.value.id in self.feed_vars and isinstance(target.slice, ast.Name) and \
                target.slice.id in self.plan.placeholders:  # feed[init_state] = state_val: one more key
            self.feed_vars[target.value.id] = list(dict.fromkeys([*self.feed_vars[target.value.id], target.slice.id]))
            target.slice = ast.Constant(target.slice.id)
            return [s] if not self._loads(s.value) & (self.tainted | self.sessions) else \
                [self._todo(s, "TF1 graph values")]
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Dict) and s.value.keys and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name) and \
                all(isinstance(k, ast.Name) and k.id in self.plan.placeholders for k in s.value.keys):
            # feed = {x: ..., y: ...} -> {'x': ..., 'y': ...}
            name = s.targets[0].id
            self.feed_vars[name] = list(dict.fromkeys([*self.feed_vars.get(name, []), *(k.id for k in s.value.keys)]))
            self.feed_keysets.setdefault(name, []).append({k.id for k in s.value.keys})
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
        if isinstance(s, ast.Assign) and self._is_tf_call(s.value, "Saver") and self._all_variables(s.value.args) and \
                {k.arg for k in s.value.keywords} <= _SAVER_OPTIONS and all(isinstance(t, ast.Name) for t in s.targets):
            self.savers |= self._stores(s)  # all variables: the model's and the optimizer's, as a Checkpoint has
            if any(k.arg == "pad_step_number" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                   for k in s.value.keywords):
                self.padded |= self._stores(s)
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
            if saved is None or (saved[0] is not None and self._loads(saved[0]) & self.savers):
                self.tainted |= self._stores(s)
                return [self._todo(s, "a TF1 Saver or FileWriter use tfcompare does not map")]
            if saved[0] is None:  # a call TF2 has no counterpart of (add_graph): its note alone
                return [self._note(n) for n in saved[1]]
            s = saved[0]
            if not self._loads(s) & (self.tainted | self.sessions) - self.writers:
                self.tainted -= self._stores(s)
                return [self._note(n) for n in saved[1]] + [s]
        stores = self._stores(s) if not isinstance(s, ast.Expr) else set()
        if self._loads(s) & self.shadowed and not (stores and stores <= self.plan.late | self.plan.graph):
            self.tainted |= stores
            return [self._todo(s, "a use of the script's own graph-building function, whose name the TF2 model "
                                  "takes")]
        eager = None if before_step else self._eager(s)  # TF ops on plain values after training: TF2's as written
        if eager is not None:
            self.tainted -= stores
            return eager
        if self._has_run(s):
            new, ok, had = self._calls(s)
            if had:
                if not ok:
                    self.pulls = []
                    self.tainted |= stores
                    return [self._todo(s, "a Session.run whose fetches or feed_dict tfcompare cannot map")]
                pulled = {name for it in self.pulls for name in self._pulled_names(it)}
                if self._loads(ast.Module(new, [])) & (self.tainted - pulled | self.sessions):
                    self.pulls = []
                    self.tainted |= stores
                    return [self._todo(s, "TF1 graph values")]
                self.tainted -= stores
                return new
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and self._is_tf_seed(s.value):
            s.value.func = ast.parse(seed_function(self.tree, s.value), mode="eval").body
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
        return new

    def _pipeline(self, s, before_step: bool) -> list | None:
        """A tf.data input: the dataset's own code is TF2's too and stays; `dataset.make_one_shot_iterator()` (or
        initializable) becomes `iter(dataset)`, and so does running its initializer (a fresh pass over the data);
        `X, Y = iterator.get_next()` goes (each Session.run that read X pulls its batch, `_pull`). None: not one."""
        value = getattr(s, "value", None)
        stores = self._stores(s) if isinstance(s, ast.Assign) else set()
        if stores and stores <= self.plan.datasets:
            fed = self._loads(s) & self.plan.placeholders
            if not self._loads(s) & (self.tainted - fed | self.sessions) and \
                    not any(isinstance(n, ast.Attribute) and n.attr in _TF1_DATASET for n in ast.walk(s)) and \
                    all(self._is_tf_data(n) for n in ast.walk(s) if isinstance(n, ast.Attribute)):
                if not fed and not self._loads(s) & set(self.deferred):
                    return [s]
                for name in stores:  # made of what the initializer's feed_dict gives: made there (`_initializer`)
                    self.deferred.setdefault(name, []).append(s)
                self.model_parts += before_step
                return []
            self.tainted |= stores
            return [self._todo(s, "a tf.data pipeline with TF1 code in it")]
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                s.targets[0].id in self.plan.iterators and isinstance(value, ast.Call) and \
                isinstance(value.func, ast.Attribute) and value.func.attr in _ITERATOR_MAKERS:
            source = value.func.value if not value.args else value.args[0]  # dataset.make_..() / tf...make_..(ds)
            if len(value.args) == int(self._uses_tf(value.func.value)) and not value.keywords and \
                    not self._loads(source) & (self.tainted | self.sessions):
                self.iterator_of[s.targets[0].id] = source
                if value.func.attr == "make_initializable_iterator" and \
                        any(f"{s.targets[0].id}.initializer" in line for line in self.lines):
                    return []  # made where the script runs its initializer
                if self._loads(source) & set(self.deferred):
                    return [self._todo(s, "an iterator over a dataset of fed placeholders never initialised")]
                return [ast.copy_location(ast.Assign(s.targets, ast.Call(ast.Name("iter", ast.Load()), [source],
                                                                         [])), s)]
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(value, ast.Call) and \
                isinstance(value.func, ast.Attribute) and value.func.attr == "get_next" and not value.args and \
                isinstance(value.func.value, ast.Name) and value.func.value.id in self.iterator_of and \
                stores and stores <= self.plan.pipeline and \
                all(isinstance(n, (ast.Name, ast.Tuple, ast.Store)) for n in ast.walk(s.targets[0])):
            iterator = value.func.value.id
            self.pull_targets[iterator] = s.targets[0]
            self.pulled_by.update({name: iterator for name in stores})
            self.tainted |= stores  # the tensors themselves: only a Session.run of them (now a pull) reads them
            self.model_parts += before_step
            return []
        if isinstance(s, ast.Expr) and isinstance(value, ast.Call) and \
                (initialised := self._initializer(s, value)) is not None:
            return initialised
        if any(isinstance(n, ast.Attribute) and n.attr in _TF1_DATASET | {"initializer", "get_next"} and
               self._loads(n.value) & (self.plan.datasets | self.plan.iterators) for n in ast.walk(s)):
            self.tainted |= stores
            return [self._todo(s, "a TF1 use of a tf.data dataset or iterator")]
        return None

    def _initializer(self, s, call: ast.Call) -> list | None:
        """`sess.run(iterator.initializer[, feed_dict=...])` (with variable initializers beside it, or not): the
        dataset made again from what is fed (`deferred`), then `iterator = iter(dataset)`."""
        f = call.func
        if not (isinstance(f, ast.Attribute) and f.attr == "run" and isinstance(f.value, ast.Name) and
                f.value.id in self.sessions and call.args):
            return None
        fetches = call.args[0].elts if isinstance(call.args[0], (ast.List, ast.Tuple)) else [call.args[0]]
        inits = [n.value.id for n in fetches if isinstance(n, ast.Attribute) and n.attr == "initializer" and
                 isinstance(n.value, ast.Name) and n.value.id in self.iterator_of]
        others = [n for n in fetches if not (isinstance(n, ast.Attribute) and n.attr == "initializer")]
        if not inits or len(inits) + len(others) != len(fetches) or \
                not all(self._dropped_call(ast.Call(f, [n], [])) for n in others):
            return None
        feed = self._feed(call, 1)
        if feed is None or any(isinstance(v, ast.Starred) for v in (feed or {}).values()):
            return None

        class Fed(ast.NodeTransformer):
            def visit_Name(self, node):
                return ast.copy_location(feed[node.id], node) if node.id in feed else node

        out = []
        for iterator in inits:
            source = self.iterator_of[iterator]
            for name in sorted(self._loads(source) & set(self.deferred)):
                made = [Fed().visit(ast.parse(ast.unparse(d)).body[0]) for d in self.deferred[name]]
                if self._loads(ast.Module(made, [])) & self.plan.placeholders:
                    return None  # a placeholder the initializer does not feed
                out += made
            out.append(ast.Assign([ast.Name(iterator, ast.Store())],
                                  ast.Call(ast.Name("iter", ast.Load()), [source], [])))
        return [ast.copy_location(n, s) for n in out]

    def _is_tf_data(self, node: ast.Attribute) -> bool:
        """A `tf.X` attribute is `tf.data.…`; attributes of anything else are not TensorFlow's."""
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if not (isinstance(root, ast.Name) and root.id in self.plan.tf_names):
            return True
        return ast.unparse(node).split(".")[1:2] == ["data"]

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


def _runnable(block: list) -> list:
    """A block with a statement: `pass` where nothing is left of it but NOTE marks (comments in the written file)."""
    notes = all(isinstance(x, ast.Expr) and isinstance(x.value, ast.Constant) and
                str(x.value.value).startswith(NOTE_MARK) for x in block)
    return [*block, ast.Pass()] if notes else block
