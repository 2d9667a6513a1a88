"""What the script saves, in its own code: a `tf.train.Saver`'s save/restore becomes a `tf.train.Checkpoint`'s
write/read of the model and optimizer at the same path, a `tf.summary.FileWriter` a TF2 summary writer (its
add_summary of a fetched summary a call of the helper `summaries.HELPER`, which the writer puts into the script).
"""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.rewrite_state import RewriteState

__all__ = ["SaversAndWriters"]

_CHECKPOINT = "tf.train.Checkpoint(model=model, optimizer=optimizer)"
_WRITER_OPTIONS = {"max_queue": "max_queue", "filename_suffix": "filename_suffix"}  # FileWriter -> create_file_writer


class SaversAndWriters(RewriteState):
    """The Saver and FileWriter rewrites of `statements.Rewriter`."""

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

    def _all_variables(self, args: list) -> bool:
        """A Saver's arguments that save every variable: none, or `tf.global_variables()` (`tf.all_variables()`)."""
        return not args or (len(args) == 1 and isinstance(args[0], ast.Call) and not args[0].args and any(
            self._is_tf_call(args[0], name) for name in ("global_variables", "all_variables")))

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
                    if f.attr == "add_summary" and len(node.args) == 2 and not node.keywords and (
                            (rewriter.plan.summaries and not rewriter.plan.untranslated) or
                            (isinstance(node.args[0], ast.Name) and node.args[0].id in rewriter.eager_summaries)):
                        rewriter.summaries = True
                        return ast.copy_location(ast.Call(ast.Name("add_summary", ast.Load()),
                                                          [f.value, *node.args], []), node)
                    if f.attr == "add_graph" and node is getattr(s, "value", None) and isinstance(s, ast.Expr) and \
                            len(node.args) == 1 and isinstance(node.args[0], ast.Attribute) and \
                            node.args[0].attr == "graph" and not node.keywords:  # the statement itself: dropped
                        notes.append("TF1's FileWriter.add_graph(sess.graph) is not written: TF2 has no session graph "
                                     "(tf.summary.trace_on(graph=True) before a tf.function's first call and "
                                     "tf.summary.trace_export after it write the function's)")
                        return None
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
                             "the same path; the format differs (object-based names, not TF1's): a checkpoint the TF1 "
                             "script wrote loads with model.restore_tf1_checkpoint(path)" +
                             ("; no `checkpoint` state file is written (tf.train.latest_checkpoint does not see it)"
                              if method == "write" else ""))
                return ast.copy_location(ast.parse(f"{_CHECKPOINT}.{method}({ast.unparse(path)})",
                                                   mode="eval").body, node)

        new = Calls().visit(s)
        if isinstance(new, ast.Expr) and getattr(new, "value", None) is None:  # a call not written (add_graph)
            new = None
        return None if bad else (new, notes)
