"""Fetches run with a computed tensor fed: `recon = sess.run(ae['y'], feed_dict={ae['z']: z})`, a VAE decoding
points of its latent space. TF1 takes the fed value in place of what computes `z` and runs only what lies between
`z` and `y`; the TF2 script needs that as a method of its own, taking `z` (`model.ae_y_from_ae_z(z)`), since the
fetch's method computes `y` from the model's input.

The runs are read from the script's source (they come after the first training step, which the child never
reaches); a fetch whose fed tensors it does not read keeps its method (TF1 ignores such a feed too).
"""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.forward import fed_inputs
from tfcompare.scripts.convert.naming import INDENT, fed_key, identifier
from tfcompare.scripts.convert.train_step import input_signature
from tfcompare.scripts.convert.written_line import return_lines

__all__ = ["cut_runs", "cut_methods"]

_PLACEHOLDERS = ("Placeholder", "PlaceholderWithDefault")


def cut_runs(tree, module_dict: dict, feed_tensors: list, tf) -> dict[frozenset, set]:
    """{frozenset of the fed computed tensors' names: the names fetched with them} over the script's `X.run(...)` /
    `t.eval(...)` calls whose feed_dict literal feeds a tensor that is not a placeholder nor fed at the first step."""
    graph_tensor = {k: v for k, v in module_dict.items() if isinstance(v, tf.Tensor)}
    out: dict[frozenset, set] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
                node.func.attr in ("run", "eval")):
            continue
        feed = next((k.value for k in node.keywords if k.arg == "feed_dict"), None)
        position = 1 if node.func.attr == "run" else 0
        if feed is None and len(node.args) > position:
            feed = node.args[position]
        if not isinstance(feed, ast.Dict):
            continue
        cut = frozenset(k.id for k in feed.keys if isinstance(k, ast.Name) and k.id in graph_tensor
                        and graph_tensor[k.id].op.type not in _PLACEHOLDERS
                        and all(graph_tensor[k.id] is not t for t in feed_tensors))
        if not cut:
            continue
        if node.func.attr == "eval":
            fetched = [node.func.value]
        else:
            fetches = node.args[0] if node.args else None
            fetched = list(fetches.elts) if isinstance(fetches, (ast.List, ast.Tuple)) else [fetches]
        out.setdefault(cut, set()).update(f.id for f in fetched if isinstance(f, ast.Name))
    return out


def cut_methods(runs: dict, module_dict: dict, plan_methods: dict, tr, feed_tensors: list, arguments: dict,
                placeholder_global: dict, method_taken: set, tf) -> tuple[list[str], dict]:
    """The methods of the fetches `cut_runs` found, each taking the fed tensors it reads in place of what computes
    them: (their code lines, {(fetched name, frozenset of fed computed names): (method prefix, fed names in
    argument order)}). A fetch whose translation needs a TODO gets none (its run stays a TODO)."""
    code, planned = [], {}
    for cut, fetched in sorted(runs.items(), key=lambda item: sorted(item[0])):
        cut_tensors = {module_dict[n].name: n for n in cut}
        fed_all = sorted([*feed_tensors, *(module_dict[n] for n in cut)], key=lambda t: t.op._id)
        for name in sorted(fetched):
            target = module_dict.get(name)
            if not isinstance(target, tf.Tensor) or target.op.type in _PLACEHOLDERS:
                continue
            fed = fed_inputs(target, fed_all)
            if not any(t.name in cut_tensors for t in fed):
                if name in plan_methods:  # it does not read them: TF1 ignored the feed, and so does the method
                    planned[(name, cut)] = plan_methods[name]
                continue
            args, given = [], []
            extra = {}
            for t in fed:
                if t.name in cut_tensors:
                    # not a name the body binds (the script's other tensors' names): its own is free here
                    taken = set(arguments.values()) | (set(tr.names.values()) - set(cut)) | set(args)
                    arg = identifier(cut_tensors[t.name], taken)
                    extra[fed_key(t)] = arg
                    given.append(cut_tensors[t.name])
                else:
                    arg = arguments[fed_key(t)]
                    given.append(placeholder_global[arg])
                args.append(arg)
            todos_before, saved = len(tr.todos), dict(tr.arguments)
            tr.arguments.update(extra)
            try:
                body, expr = tr.function(target, share=False)  # the forward pass's call reads the input, not `z`
            finally:
                tr.arguments.clear()
                tr.arguments.update(saved)
            if len(tr.todos) > todos_before or tr.updated:
                del tr.todos[todos_before:]
                continue
            method = identifier(f"{name}_from_{'_'.join(sorted(cut))}", method_taken)
            method_taken.add(method)
            code.append(f"{INDENT}@tf.function({input_signature(fed, tr.flags)})")
            code.append(f"{INDENT}def {method}(self{''.join(', ' + a for a in args)}):")
            code.append(f'{INDENT * 2}"""{name} from the given {", ".join(sorted(cut))}, as TF1 fed it: what '
                        'computed it does not run."""')
            code += return_lines(body, expr, INDENT * 2, set(tr.names.values()))
            code.append("")
            planned[(name, cut)] = (f"model.{method}", given)
    return code, planned
