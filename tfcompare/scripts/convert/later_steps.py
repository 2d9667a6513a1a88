"""Several optimizers, a step each: a GAN's generator trained after its discriminator, each with its TF1 var_list.

TF1 builds one train op per optimizer (`minimize(loss, var_list=...)`) and the script runs them in turn. The
first keeps the rewrite's `train_step` and `optimizer`; each later one gets `<its global name>_step` and
`<its global name>_optimizer` (TF1's settings for it), and every step differentiates its own loss with respect to
its own variables only (a discriminator's loss reads the generator, whose weights its step must not move).
`Session.run` of a train op becomes a call of its step (`Plan.steps`).
"""

from __future__ import annotations

import dataclasses

from tfcompare.scripts.convert.joint_steps import Part
from tfcompare.scripts.convert.naming import identifier
from tfcompare.scripts.convert.optimizers import decay_schedule, keras_optimizer
from tfcompare.scripts.convert.tf1_lines import source_line
from tfcompare.scripts.convert.train_step import clip_lines, input_signature, step_code, step_todo_lines

__all__ = ["Later", "later_steps"]


@dataclasses.dataclass
class Later:
    steps: dict = dataclasses.field(default_factory=dict)  # train op's global name -> (step, args, loss's names)
    optimizers: list = dataclasses.field(default_factory=list)  # `<name>_optimizer = ...` lines
    classes: list = dataclasses.field(default_factory=list)  # optimizer classes written into the script
    code: list = dataclasses.field(default_factory=list)  # the later steps' lines
    parts: dict = dataclasses.field(default_factory=dict)  # train op's first global name -> its joint_steps.Part

    def first_trains(self, found: dict, variables: dict) -> list | None:
        """The first step's variables, where later steps exist (else the model's trainable variables)."""
        return [variables[v.op.name] for _, v in found["grads_and_vars"]] if self.steps else None


def later_steps(others: list, methods: list, module_dict: dict, variables: dict, placeholder_global: dict,
                by_argument: dict, tr, optimizer_context: tuple, script: str, lines: list[str],
                assigned: set = frozenset(), skip: set = frozenset()) -> Later:
    """`skip`: the train ops (global names) run only together with others (`joint_steps`): no step of their own."""
    graph, sess, decays, notes, constants = optimizer_context
    out = Later()
    taken = set(module_dict) | {"train_step", "optimizer", "model", "Model"}
    for entry in others:
        op = entry["train_op"]
        method = next(((m, args) for target, m, args in methods if target is entry["loss"]), None)
        globals_ = sorted(k for k, v in module_dict.items() if v is op and k.isidentifier())
        where = source_line(op, script, lines)
        at = f"TF1 line {where[0]}" if where else "the TF1 graph"
        if method is None or not globals_ or any(a not in by_argument for a in method[1]):
            tr.todos.append(f"the train op {op.name} of another optimizer ({at}): no step written (its loss has no "
                            "translation, or the train op no global name)")
            continue
        step, optimizer = identifier(f"{globals_[0]}_step", taken), identifier(f"{globals_[0]}_optimizer", taken)
        cls, expr = keras_optimizer(graph, sess, decays, decay_schedule(graph, op, decays), notes, tr.todos, at,
                                    constants, module_dict, op)
        out.classes.append(cls)
        out.optimizers.append(f"{optimizer} = {expr}  # {at}: {where[1][:60] if where else ''}".rstrip())
        updating = {method[0]} if method[0] in tr.updating else set()
        trains = [variables[v.op.name] for _, v in entry["grads_and_vars"]]
        for name in globals_:
            out.steps[name] = (step, [placeholder_global[a] for a in method[1]],
                               {k for k, v in module_dict.items() if v is entry["loss"]})
        todos = step_todo_lines([], op, tr, script, lines, assigned)
        clip = clip_lines(entry, tr)
        if not updating and not todos and not clip:  # a step that writes only its optimizer's update: it may be joined
            out.parts[globals_[0]] = Part(globals_[0], method[0], list(method[1]), trains, optimizer)
            if set(globals_) <= set(skip):
                continue
        out.code += ["", "", *step_code(method[0], method[1], updating, todos,
                                        input_signature([by_argument[a] for a in method[1]], tr.flags), step, optimizer,
                                        trains, clip=clip)]
    return out
