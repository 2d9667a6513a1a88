"""A batch a `tf.data` iterator hands out, pulled where TF1's Session.run pulled it: once per run. A run inside a
comprehension (`accs = [sess.run(accuracy) for _ in range(20)]`) pulled a new batch for each item, so its pull goes
into the item (`model.accuracy(*iterator.get_next())`), not above the statement, where the twenty evaluations would
read one batch twenty times.
"""

from __future__ import annotations

import ast

__all__ = ["pull_per_item"]

_SCOPES = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp, ast.Lambda)


def pull_per_item(statements: list, pulled: dict[str, list[str]]) -> tuple[set[str], bool]:
    """Rewrite, in place, each call inside a comprehension of `statements` that takes an iterator's pulled names
    as its positional arguments, in order (`model.accuracy(features, labels)`), to pull them itself
    (`model.accuracy(*iterator.get_next())`). `pulled`: iterator -> the names `X, Y = iterator.get_next()` binds.
    Returns (the iterators pulled per item, whether a pulled name is still read inside a comprehension)."""
    done: set[str] = set()
    for scope in (n for s in statements for n in ast.walk(s) if isinstance(n, _SCOPES)):
        for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call)):
            args = [a.id if isinstance(a, ast.Name) else None for a in call.args]
            for iterator, names in pulled.items():
                if len(names) and args[:len(names)] == names and len(args) == len(names) and not call.keywords:
                    batch = ast.parse(f"{iterator}.get_next()", mode="eval").body
                    call.args = [ast.Starred(batch, ast.Load())] if len(names) > 1 else [batch]
                    done.add(iterator)
    left = any(isinstance(n, ast.Name) and any(n.id in names for names in pulled.values())
               for s in statements for scope in ast.walk(s) if isinstance(scope, _SCOPES) for n in ast.walk(scope))
    return done, left
