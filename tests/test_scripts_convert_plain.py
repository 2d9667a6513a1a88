"""TF code that builds no graph, kept in TF2's names (`plain_tf`), and a batch pulled per item of a comprehension
(`pulls`): in-process, on the rewriter's own AST helpers."""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.plain_tf import tf2_path
from tfcompare.scripts.convert.pulls import pull_per_item


def test_tf2_names_are_tensorflows_own_renames_and_none_where_a_name_moved_to_compat_v1():
    assert tf2_path("python_io.TFRecordWriter") == "io.TFRecordWriter"
    assert tf2_path("parse_single_example") == "io.parse_single_example"
    assert tf2_path("gfile.MakeDirs") == "io.gfile.makedirs"
    assert tf2_path("train.Example") == "train.Example"  # the same in TF2
    assert tf2_path("float32") == "float32"
    assert tf2_path("to_float") is None  # tf.compat.v1.to_float: no TF2 name
    assert tf2_path("contrib.layers.fully_connected") is None


def test_a_run_in_a_comprehension_pulls_a_batch_per_item_and_a_name_left_inside_is_said():
    statements = [ast.parse("accs = [model.accuracy(features, labels).numpy() for _ in range(20)]").body[0]]
    done, left = pull_per_item(statements, {"iterator": ["features", "labels"]})
    assert done == {"iterator"} and not left
    assert ast.unparse(statements[0]) == "accs = [model.accuracy(*iterator.get_next()).numpy() for _ in range(20)]"
    one = [ast.parse("xs = [model.predict(images).numpy() for _ in range(3)]").body[0]]
    assert pull_per_item(one, {"it": ["images"]})[0] == {"it"} and \
        ast.unparse(one[0]) == "xs = [model.predict(it.get_next()).numpy() for _ in range(3)]"
    # the names read otherwise inside the comprehension (another order): not rewritten, and said
    other = [ast.parse("accs = [model.accuracy(labels, features).numpy() for _ in range(20)]").body[0]]
    assert pull_per_item(other, {"iterator": ["features", "labels"]}) == (set(), True)
    # outside any comprehension: nothing to do here (the pull goes above the statement, once, as before)
    plain = [ast.parse("acc = model.accuracy(features, labels).numpy()").body[0]]
    assert pull_per_item(plain, {"iterator": ["features", "labels"]}) == (set(), False)
