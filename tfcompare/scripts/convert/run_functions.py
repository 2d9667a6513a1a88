"""A function of the script that runs the model and computes on what it fetched, as MorvanZhou's tutorials
evaluate:

    def compute_accuracy(v_xs, v_ys):
        y_pre = sess.run(prediction, feed_dict={xs: v_xs, keep_prob: 1})
        correct_prediction = tf.equal(tf.argmax(y_pre, 1), tf.argmax(v_ys, 1))
        accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
        return sess.run(accuracy, feed_dict={xs: v_xs, ys: v_ys, keep_prob: 1})

In TF2 the same function runs eagerly: a fetch of the model's tensor is its method's call (`model(v_xs,
training=False).numpy()`), the TF ops on fetched arrays and arguments run as they read, and a fetch of a tensor
the function itself built is its value (`accuracy.numpy()`). Written only where that is the same computation:
nothing in the function reads a graph name other than through a Session.run, every TF name it calls exists in
TF 2, and every fetch is a model method or one of its own tensors; otherwise it stays a TODO, as before.
"""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.rewrite_state import RewriteState

__all__ = ["RunFunctions"]

_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.If, ast.For, ast.While, ast.Pass)


class RunFunctions(RewriteState):
    """`statements.Rewriter`'s part that writes a script function running the model (`_run_function`)."""

    def _run_function(self, s) -> ast.FunctionDef | None:
        """`s` rewritten to run eagerly, or None where it is not such a function or cannot be written."""
        if not isinstance(s, ast.FunctionDef) or s.name in self.plan.graph or s.decorator_list:
            return None
        runs = [n for n in ast.walk(s) if self._is_run(n)]
        if not runs:
            return None
        body = [b for b in s.body if not (isinstance(b, ast.Global) and set(b.names) <= self.plan.graph)]
        if not body or not all(isinstance(n, _STATEMENTS) for b in body for n in ast.walk(b) if isinstance(n, ast.stmt)):
            return None
        params = {a.arg for a in [*s.args.posonlyargs, *s.args.args, *s.args.kwonlyargs]}
        local = {n.id for b in body for n in ast.walk(b) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        graph = (self.plan.graph | self.tainted | self.sessions) - params - local
        built = set()  # its own tensors: locals bound by an expression that calls TF
        for b in body:
            for n in ast.walk(b):
                if isinstance(n, (ast.Assign, ast.AnnAssign)) and self._uses_tf(n.value) and \
                        not any(self._is_run(c) for c in ast.walk(n.value)):
                    built |= self._stores(n)
        rewriter = self
        failed = []

        class Runs(ast.NodeTransformer):
            def visit_Call(self, node):
                self.generic_visit(node)
                if not rewriter._is_run(node):
                    return node
                new = rewriter._eager_fetch(node, built)
                if new is None:
                    failed.append(node)
                    return node
                return ast.copy_location(new, node)

        new_body = [Runs().visit(ast.parse(ast.unparse(b)).body[0]) for b in body]
        if failed or self.pulls or self.marks:
            self.pulls, self.marks = [], []
            return None
        module = ast.Module(new_body, [])
        if self._loads(module) & graph or not self._tf2_names(module):
            return None
        out = ast.FunctionDef(s.name, s.args, new_body, [], s.returns, getattr(s, "type_comment", None),
                              **({"type_params": []} if "type_params" in ast.FunctionDef._fields else {}))
        return ast.fix_missing_locations(ast.copy_location(out, s))

    def _is_run(self, node) -> bool:
        """`sess.run(fetches, ...)` of a global Session (a graph name other than a train op, tensor or placeholder)."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run"
                and isinstance(node.func.value, ast.Name) and node.args):
            return False
        name = node.func.value.id
        return name in self.sessions or (name in self.plan.graph and name not in self.plan.train and
                                         name not in self.plan.methods and name not in self.plan.placeholders)

    def _eager_fetch(self, call: ast.Call, built: set):
        """A Session.run inside the function as TF2 runs it: its own tensors' values, or the model's methods."""
        fetches = call.args[0]
        items = list(fetches.elts) if isinstance(fetches, (ast.List, ast.Tuple)) else [fetches]
        if not all(isinstance(i, ast.Name) for i in items):
            return None
        names = [i.id for i in items]
        if all(n in built for n in names):
            values = [ast.parse(f"{n}.numpy()", mode="eval").body for n in names]
            return values[0] if len(values) == 1 and items[0] is fetches else ast.List(values, ast.Load())
        if any(n in built for n in names) or any(n in self.plan.train or n in self.plan.untranslated
                                                 for n in names):
            return None
        saved = self.sessions
        self.sessions = self.sessions | {call.func.value.id}
        try:
            return self._run(call, fetches, self._feed(call, 1))
        finally:
            self.sessions = saved

    def _tf2_names(self, module: ast.Module) -> bool:
        """Every `tf.a.b` the function reads exists in TF 2 (`tf.log`, `tf.to_float` do not: not written)."""
        import tensorflow as tf

        for node in ast.walk(module):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                path, root = [], node
                while isinstance(root, ast.Attribute):
                    path.insert(0, root.attr)
                    root = root.value
                if isinstance(root, ast.Name) and root.id in self.plan.tf_names:
                    found = tf
                    for part in path:
                        found = getattr(found, part, None)
                        if found is None:
                            return False
        return True
