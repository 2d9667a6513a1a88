"""What the script saves, in its own code: a `tf.train.Saver`'s save with a global_step becomes `save_checkpoint`,
a `tf.train.CheckpointManager`'s save (TF1's file names and `checkpoint` state file), its other save a
`tf.train.Checkpoint`'s write of the model and optimizer at the same path, a restore `restore_checkpoint` (either
format: the rewrite's, or the TF1 script's by its variable names), a `tf.summary.FileWriter` a TF2 summary writer (its
add_summary of a fetched summary a call of the helper `summaries.HELPER`, which the writer puts into the script).
"""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.optimizers import stepped_variables
from tfcompare.scripts.convert.rewrite_state import RewriteState

__all__ = ["RESTORE_HELPER", "SAVE_HELPER", "SaversAndWriters", "restore_helper", "save_helper"]

RESTORE_HELPER, SAVE_HELPER = "restore_checkpoint", "save_checkpoint"
_WRITER_OPTIONS = {"max_queue": "max_queue", "filename_suffix": "filename_suffix"}  # FileWriter -> create_file_writer


def _checkpoint(optimizer: str, shadows: str = "") -> str:
    """The rewrite's checkpoint: the model, the optimizer and, where the step keeps an ExponentialMovingAverage
    (`shadows`: the list of its shadow variables, as code), the averages, which TF1's Saver saved too."""
    return f"tf.train.Checkpoint(model=model, optimizer={optimizer}{f', averages={shadows}' if shadows else ''})"


def _shadows_line(shadows: str) -> list[str]:
    return [f"    averages = {shadows}  # TF1's Saver kept them too"] if shadows else []


def restore_helper(optimizer: str, tf1: bool, averages: str = "", shadows: str = "", train_op=None) -> list[str]:
    """`restore_checkpoint(path)`, in the rewrite: TF1's `saver.restore(sess, path)` read either format, since a
    team's folder holds the TF1 script's checkpoints before it holds the rewrite's. Strict as TF1's restore was:
    every variable the model and optimizer have is in the file (the optimizer's slots once it has made them).
    `averages`: the script's ExponentialMovingAverage, whose shadows are read too (`shadows`, as `_checkpoint`);
    `train_op`: TF1's, whose global step (one it counts) the optimizer's count goes on from, so a schedule and the
    averages' decay do as TF1's did after its restore."""
    stepped = sorted(stepped_variables(train_op.graph, train_op)) if train_op is not None else []
    step = stepped[0] if len(stepped) == 1 else ""
    lines = [f"def {RESTORE_HELPER}(path):",
             '    """The checkpoint at PATH into the model and the optimizer: one this script wrote, or one',
             '    the TF1 script\'s tf.train.Saver wrote (by TF1\'s names: model.restore_tf1_checkpoint)."""']
    if tf1:
        lines += ['    reader = tf.train.load_checkpoint(path)',
                  '    if not reader.has_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"):  # name-based: the TF1 script\'s',
                  f"        model.restore_tf1_checkpoint(path{f', {averages}' if averages else ''})",
                  *([f"        {optimizer}.iterations.assign(reader.get_tensor({step!r}))  # its step count"]
                    if step else []),
                  "        return"]
    checkpoint = _checkpoint(optimizer, "averages" if shadows else "")
    return lines + [*_shadows_line(shadows), f"    status = {checkpoint}.read(path)",
                    "    status.expect_partial()  # a CheckpointManager's save counter is in the file, not read here",
                    "    status.assert_existing_objects_matched()  # as TF1's restore, which failed on a missing "
                    "variable"]


def save_helper(optimizer: str, shadows: str = "") -> list[str]:
    """`save_checkpoint(path, step)`, in the rewrite: TF1's `saver.save(sess, path, global_step=step)`. Every
    checkpoint is kept: a manager's max_to_keep also deletes the checkpoints of earlier runs its folder's
    `checkpoint` file lists (the TF1 script's among them), where TF1's Saver deleted only those it had saved."""
    return [f"def {SAVE_HELPER}(path, step):",
            '    """The model and the optimizer at PATH-STEP, named in the folder\'s `checkpoint` file (what',
            "    tf.train.latest_checkpoint reads), as TF1's Saver.save with a global_step. Every one is kept,",
            '    the TF1 script\'s too (a max_to_keep here would delete those its `checkpoint` file lists)."""',
            *_shadows_line(shadows),
            "    manager = tf.train.CheckpointManager(",
            *([f"        {_checkpoint(optimizer, 'averages')},", "        os.path.dirname(path),"] if shadows else
              [f"        {_checkpoint(optimizer)}, os.path.dirname(path),"]),
            "        max_to_keep=None, checkpoint_name=os.path.basename(path))",
            "    return manager.save(checkpoint_number=step)"]


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
        """`saver.save(sess, path, global_step=n)` -> `save_checkpoint(path, n)`; `saver.save(sess, path)` -> a
        tf.train.Checkpoint's write(path); `saver.restore(sess, path)` -> `restore_checkpoint(path)`. Returns
        (statement, notes) or None when a call has arguments this does not map."""
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
                if path is None or len(node.args) > 2 or options.keys() - {"sess"} or (
                        step is not None and f.value.id in rewriter.padded):  # a padded number: not a manager's
                    bad.append(node)
                    return node
                if step is not None:  # TF1 saves to PATH-STEP and names it in the folder's `checkpoint` file
                    rewriter.saves = True
                    notes.append("TF1's Saver.save with a global_step as save_checkpoint(path, step): a "
                                 "tf.train.CheckpointManager's save of the model and optimizer")
                    return ast.copy_location(ast.Call(ast.Name(SAVE_HELPER, ast.Load()), [path, step], []), node)
                if f.attr == "restore":  # either format: this script's checkpoints or the TF1 script's
                    rewriter.restores = True
                    notes.append("TF1's Saver.restore as restore_checkpoint(path): a checkpoint this script wrote "
                                 "(object-based) or one the TF1 script wrote (by TF1's variable names)" +
                                 ("" if rewriter.plan.tf1_restore else ", if the model had a TF1 name for each "
                                  "variable (it has none here: such a checkpoint fails to load)"))
                    return ast.copy_location(ast.Call(ast.Name(RESTORE_HELPER, ast.Load()), [path], []), node)
                # write, not save: the checkpoint keeps TF1's exact path (save would add -N)
                notes.append("TF1's Saver.save as tf.train.Checkpoint.write of the model and optimizer at the same "
                             "path; the format differs (object-based names, not TF1's); no `checkpoint` state file "
                             "is written (tf.train.latest_checkpoint does not see it)")
                checkpoint = _checkpoint(rewriter.plan.optimizer_name, rewriter.plan.shadows)
                return ast.copy_location(ast.parse(f"{checkpoint}.write({ast.unparse(path)})", mode="eval").body,
                                         node)

        new = Calls().visit(s)
        if isinstance(new, ast.Expr) and getattr(new, "value", None) is None:  # a call not written (add_graph)
            new = None
        return None if bad else (new, notes)
