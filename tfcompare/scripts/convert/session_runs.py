"""`sess.run(...)` / `t.eval(...)` / `train_op.run(...)` in the script's own code, rewritten as calls of the
generated `train_step` and model methods: the feed_dict's values become their arguments, each fetch the value
TF1's returned (the loss the step's, a fetched variable or summary what the plan says), in TF1's order.
`input_data.read_data_sets` (gone from TF 2) becomes the loader written into the script.
"""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.eager_tail import EagerTail
from tfcompare.scripts.convert.run_statements import picked, unpacked
from tfcompare.scripts.convert.training_flag import switch_argument

__all__ = ["SessionRuns"]

_LOADER = "read_data_sets"


class SessionRuns(EagerTail):
    """The Session.run / eval rewrites of `statements.Rewriter`."""

    def _feed(self, call: ast.Call, position: int):
        feed = next((k.value for k in call.keywords if k.arg == "feed_dict"), None)
        if feed is None and len(call.args) > position:
            feed = call.args[position]
        if feed is None:
            return {}
        if isinstance(feed, ast.Name) and feed.id in self.feed_vars:
            every = set.intersection(*self.feed_keysets[feed.id])
            # a key only some of the dicts give, which TF1 computed where not fed (a stateful RNN's zero state):
            # `feed_dict.get('init_s', init_s)`
            return {p: ast.Subscript(ast.Name(feed.id, ast.Load()), ast.Constant(p), ast.Load())
                    if p in every or p not in self.plan.defaults else
                    ast.Call(ast.Attribute(ast.Name(feed.id, ast.Load()), "get", ast.Load()),
                             [ast.Constant(p), ast.parse(self.plan.defaults[p], mode="eval").body], [])
                    for p in self.feed_vars[feed.id]}
        if not isinstance(feed, ast.Dict) or not all(isinstance(k, ast.Name) for k in feed.keys):
            return None
        return {k.id: v for k, v in zip(feed.keys, feed.values)}

    def _pull(self, feed: dict, names: list) -> dict:
        """`feed` plus the batch a tf.data iterator hands out where the fetches read one and the feed_dict does not
        give it: one pull of each such iterator for this Session.run, as TF1's run did (`statement` writes it)."""
        needed = [a for n in names for a in (self.plan.step_of(n)[1] if n in self.plan.train else
                                             self.plan.methods.get(n, (None, []))[1])]
        pulled = []
        for a in needed:
            iterator = self.pulled_by.get(a)
            if a not in feed and iterator is not None and iterator not in pulled:
                pulled.append(iterator)
        if not pulled:
            return feed
        self.pulls += [it for it in pulled if it not in self.pulls]
        out = dict(feed)
        for it in pulled:
            out.update({name: ast.Name(name, ast.Load()) for name in self._pulled_names(it) if name not in out})
        return out

    def _fetch(self, name: str, feed: dict, step: bool = False):
        cut = frozenset(k for k in feed if k in self.plan.cuts)  # a computed tensor fed: its own method or none
        if name in self.plan.summaries:
            return None if cut else self._summary_values(name, feed, step)
        if name in self.plan.values:
            return ast.parse(self.plan.values[name], mode="eval").body
        method = self.plan.cut_methods.get((name, cut)) if cut else self.plan.methods.get(name)  # a step's own
        # value (the clip's global norm) has no method: fetched without the step, no translation
        if method is None:
            return None
        call = _call(*method, feed, self.plan.flags)
        if call is None:
            return None
        return ast.parse(f"[value.numpy() for value in {call}]" if name in self.plan.lists else f"{call}.numpy()",
                         mode="eval").body

    def _summary_values(self, name: str, feed: dict, step: bool):
        """{tag: (tf.summary.scalar | histogram, value)} for a fetched TF1 summary; in the training step the loss's
        value is the step's own (added by `_run`), the others are computed before the step, as TF1's were."""
        parts = []
        for tag, kind, prefix, args, is_loss in self.plan.summaries[name]:
            if is_loss and step:
                continue
            call = _call(prefix, args, feed, self.plan.flags)
            if call is None:
                return None
            parts.append(f"{tag!r}: (tf.summary.{kind}, {call}.numpy())")
        return ast.parse("{" + ", ".join(parts) + "}", mode="eval").body

    def _with_loss(self, name: str, param: str, loss: str) -> str:
        """The step's fetched summary: the values computed before it, and the loss the step returned (`loss`)."""
        losses = [f"{tag!r}: (tf.summary.{kind}, {loss})" for tag, kind, _, _, is_loss in self.plan.summaries[name]
                  if is_loss]
        return "{" + ", ".join([f"**{param}", *losses]) + "}" if losses else param

    def _run(self, call: ast.Call, fetches, feed: dict | None):
        """The TF2 expression for one Session.run / eval, or None when it cannot be written."""
        if feed is None:
            return None
        # what a run may leave out, as TF1 then computed it: the TF2 global that holds it
        feed = {**{k: ast.parse(v, mode="eval").body for k, v in self.plan.defaults.items()}, **feed}
        rate = self._assigned_rate(fetches)
        if rate is not None:
            return rate
        single = not isinstance(fetches, (ast.List, ast.Tuple))
        items = [fetches] if single else list(fetches.elts)
        if not all(isinstance(i, ast.Name) for i in items):
            return None
        names = [i.id for i in items]
        eager = self._eager_run(names, feed, single)  # `sess.run(image_summary_op)` of a value TF2 computed eagerly
        if eager is not None:
            return eager
        feed = self._pull(feed, names)
        known = self.plan.train | set(self.plan.methods) | self.plan.untranslated | set(self.plan.values) | \
            set(self.plan.summaries) | set(self.plan.step_extras)
        if any(n not in known for n in names):
            return None
        for n in names:
            if n in self.plan.untranslated:
                message = (f"the fetch {n} has no TF2 translation (None in its place) from TF1 line "
                           f"{call.lineno}: {self.lines[call.lineno - 1].strip()}"[:150])
                self.todos.append(message)
                self.marks.append(message)
        if not any(n in self.plan.train for n in names):
            group = self.plan.groups.get(tuple(names)) if not single else None
            if group is not None and not any(k in self.plan.cuts for k in feed):  # one forward pass, as TF1's run
                call = _call(*group, feed, self.plan.flags)
                if call is not None:
                    return ast.parse(f"[value.numpy() for value in {call}]", mode="eval").body
            parts = [ast.Constant(None) if n in self.plan.untranslated else self._fetch(n, feed) for n in names]
            if any(p is None for p in parts):
                return None
            return parts[0] if single else ast.List(parts, ast.Load())
        trains = [n for n in names if n in self.plan.train]
        if any(k in self.plan.cuts for k in feed):
            return None  # a training run fed a computed tensor the first step was not fed: no step computes that
        fn, step_args, losses = self.plan.step_of(trains[0])
        if frozenset(trains) in self.plan.joint:
            return self._joint(names, feed, *self.plan.joint[frozenset(trains)])
        if len({self.plan.step_of(n)[0] for n in trains}) > 1:
            return self._side_by_side(names, feed)
        step = _call(fn, step_args, feed, self.plan.flags)
        if step is None:
            return None
        if single:
            return ast.parse(step, mode="eval").body
        returned = []  # what the step returns after its loss, read from its call (`step_metrics`, a clip's norm)
        if self.plan.step_extras and fn == self.plan.step_name and trains[0] not in self.plan.steps and \
                any(n not in self.plan.train for n in names):
            picked = self._from_step(names, step, losses)
            if picked is not None:
                return picked
            # with values read before or after it (a learning rate, a summary of what it computes)
            returned = list(self.plan.step_extras)
        extras = [n for n in names if n not in self.plan.train and n not in losses and
                  n not in self.plan.untranslated and n not in returned]
        if not extras and returned:
            return None
        if not extras:  # one call: the tuple's order is TF1's
            takes = [n not in self.plan.train and n not in self.plan.untranslated for n in names]
            values = ", ".join(f"{step}.numpy()" if t else "None" for t in takes)
            if not any(takes):  # nothing fetched takes the step's value: it runs all the same
                return ast.parse(f"(lambda _: ({values}))({step})", mode="eval").body
            return ast.parse(f"({values})" if len(names) > 1 else step, mode="eval").body
        fetched = [self._fetch(n, feed, step=True) for n in extras]
        if any(p is None for p in fetched):
            return None
        params = [f"value_{i}" for i in range(len(extras))]
        stepped = f"values_{1 + len(returned)}" if returned else "loss_value"  # `run_statements` reads N from the name
        values = ", ".join("None" if n in self.plan.train or n in self.plan.untranslated else
                           (f"{stepped}[0]" if returned else stepped) if n in losses else
                           f"{stepped}[{1 + returned.index(n)}]" if n in returned else
                           self._with_loss(n, params[extras.index(n)], f"{stepped}[0]" if returned else stepped)
                           if n in self.plan.summaries else
                           params[extras.index(n)] for n in names)
        # arguments are evaluated in order: what TF1 computed for the step is read before it, a TF1 ref variable
        # the step increments (the global step) after it, as its fetch returned it
        before = [i for i, n in enumerate(extras) if n not in self.plan.after]
        after = [i for i, n in enumerate(extras) if n in self.plan.after]
        order = [params[i] for i in before] + [stepped] + [params[i] for i in after]
        calls = [*(ast.unparse(fetched[i]) for i in before),
                 f"[value.numpy() for value in {step}]" if returned else f"{step}.numpy()",
                 *(ast.unparse(fetched[i]) for i in after)]
        code = f"(lambda {', '.join(order)}: ({values}))({', '.join(calls)})"
        return ast.parse(code, mode="eval").body

    def _assigned_rate(self, fetch):
        """`sess.run(tf.assign(lr, value))` (or `lr.assign(value)`) of the variable TF1's optimizer reads its
        learning rate from: the Keras optimizer's own, `optimizer.learning_rate.assign(value)`; None for any other
        fetch."""
        if not (isinstance(fetch, ast.Call) and isinstance(fetch.func, ast.Attribute) and
                fetch.func.attr == "assign" and not fetch.keywords):
            return None
        if isinstance(fetch.func.value, ast.Name) and fetch.func.value.id in self.plan.tf_names and \
                len(fetch.args) == 2 and isinstance(fetch.args[0], ast.Name):  # tf.assign(lr, value)
            target, value = fetch.args
        elif isinstance(fetch.func.value, ast.Name) and len(fetch.args) == 1:  # lr.assign(value)
            target, value = fetch.func.value, fetch.args[0]
        else:
            return None
        rate = self.plan.values.get(target.id, "")
        if not rate.endswith(".learning_rate.numpy()") or any(
                isinstance(n, ast.Name) and n.id in self.plan.graph for n in ast.walk(value)):
            return None
        return ast.parse(f"{rate.removesuffix('.numpy()')}.assign({ast.unparse(value)})", mode="eval").body

    def _from_step(self, names: list, step: str, losses: set):
        """A step that returns its loss and what the script fetched with it (`step_metrics`): the run's values read
        from what it returns, `(None, train_step(x)[1].numpy())`, or, for several, `(None, *[value.numpy() for
        value in train_step(x)[1:]])` (the train op last: `(*[...], None)`), which `run_statements` writes as
        `acc, pred = [...]`."""
        returned = self.plan.step_extras
        picks = [None if n in self.plan.train else 0 if n in losses else
                 1 + returned.index(n) if n in returned else -1 for n in names]
        values = [p for p in picks if p is not None]
        nones = len(picks) - len(values)  # the train ops' places: all before the values, or all after them
        lead = nones if all(p is None for p in picks[:nones]) else 0
        if -1 in values or picks[lead:lead + len(values)] != values or \
                values != list(range(values[0], values[-1] + 1)):
            return None  # not in the order the step returns them
        if len(values) == 1:
            return ast.Tuple([ast.Constant(None) if p is None else ast.parse(f"{step}[{p}].numpy()", mode="eval").body
                              for p in picks], ast.Load())
        end = "" if values[-1] == len(returned) else values[-1] + 1
        part = "" if values[0] == 0 and end == "" else f"[{values[0]}:{end}]"
        read = ast.parse(f"[value.numpy() for value in {step}{part}]", mode="eval").body
        return ast.Tuple([ast.Constant(None) for _ in range(lead)] + [ast.Starred(read, ast.Load())] +
                         [ast.Constant(None) for _ in range(nones - lead)], ast.Load())

    def _joint(self, names: list, feed: dict, fn: str, args: list, losses: list):
        """Train ops run together (`joint_steps`): one call of their step, which returns each one's loss; the other
        fetches computed before it, as TF1 computed them from the run's starting weights. Written as the lambda
        `run_statements` unpacks: `losses_N[i]` is the i-th of the N losses the step returns."""
        step = _call(fn, args, feed, self.plan.flags)
        if step is None or any(n in self.plan.summaries or n in self.plan.after for n in names):
            return None
        extras = [n for n in names if n not in self.plan.train and n not in self.plan.untranslated
                  and not any(n in ls for ls in losses)]
        fetched = [self._fetch(n, feed) for n in extras]
        if any(p is None for p in fetched):
            return None
        params = [f"value_{i}" for i in range(len(extras))]
        losses_param = f"losses_{len(losses)}"  # `run_statements` reads how many the step returns from its name
        values = ", ".join("None" if n in self.plan.train or n in self.plan.untranslated else
                           next((f"{losses_param}[{i}]" for i, ls in enumerate(losses) if n in ls), None) or
                           params[extras.index(n)] for n in names)
        arguments = ", ".join([*map(ast.unparse, fetched), step])
        code = f"(lambda {', '.join([*params, losses_param])}: ({values},))({arguments})"
        return ast.parse(code, mode="eval").body

    def _side_by_side(self, names: list, feed: dict):
        """Train ops of networks that share no variable, run together (`sess.run([o_train, d_train], feed)`): each
        step's call in the fetch's order, one statement each (`run_statements`); TF1 computed each as if alone. Train ops
        that share variables have no order in TF1: not written (pair gives no verdict on them either)."""
        if any(n not in self.plan.independent for n in names):
            return None
        calls = [_call(*self.plan.step_of(n)[:2], feed, self.plan.flags) for n in names]
        if any(c is None for c in calls):
            return None
        return ast.Tuple([ast.parse(c, mode="eval").body for c in calls], ast.Load())

    def _calls(self, stmt):
        """Rewrite the Session.run / eval calls inside `stmt`; returns (the statements it becomes, ok, had_any)."""
        state = {"ok": True, "any": False}
        rewriter = self

        class Calls(ast.NodeTransformer):
            def visit_Subscript(self, node):
                """`sess.run([train_op, loss], feed)[1]`: `(None, train_step(x).numpy())[1]` is the step's value."""
                self.generic_visit(node)
                items = node.value
                if isinstance(items, ast.Call) and isinstance(items.func, ast.Lambda) and \
                        isinstance(items.func.body, ast.Tuple) and isinstance(node.ctx, ast.Load):
                    kept = picked(items.func.body.elts, node.slice)  # `sess.run([...])[:3]` of a joint step
                    if kept is not None:
                        body = ast.Tuple(kept, ast.Load())
                        return ast.copy_location(ast.Call(ast.Lambda(items.func.args, body), items.args, []), node)
                try:
                    index = ast.literal_eval(node.slice)
                except (ValueError, TypeError):  # not a literal (a name, a slice)
                    return node
                if isinstance(items, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Load) and \
                        type(index) is int and -len(items.elts) <= index < len(items.elts):
                    kept = items.elts[index]
                    if all(isinstance(e, ast.Constant) and e.value is None for e in items.elts if e is not kept):
                        return ast.copy_location(kept, node)
                return node

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

        out = unpacked(Calls().visit(stmt))
        for later in out[1:]:  # one TF1 statement's comments above the first of the statements it became, once
            later.comments_from = -1
        return out, state["ok"], state["any"]


def _call(function: str, args: list, feed: dict, flags: dict | None = None) -> str | None:
    """`function(...)` with the feed's values of `args` (placeholder names), in order; None where one is not fed.
    A training flag's value (`flags`: its feeds' values read as True or False) is `True` / `False`."""
    if any(a not in feed for a in args):
        return None
    flags, values = flags or {}, []
    for i, a in enumerate(args):
        if a in flags:
            param, fed = flags[a]
            training = fed.get(ast.dump(feed[a]))
            if training is None:
                return None
            values.append(switch_argument(param, training, all(b in flags for b in args[i:])))
        else:
            values.append(ast.unparse(feed[a]))
    return f"{function}({', '.join(values)})"
