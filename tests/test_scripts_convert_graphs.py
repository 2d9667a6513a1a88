"""A TF1 script that builds several graphs one after another (`reset_default_graph()` between them): where it is
cut, each graph as a script of its own (line numbers kept), and the rewrites joined. Text only: the conversions
themselves run in test_scripts_convert_blind.py (a helper-written script of this kind) and the corpus."""

from __future__ import annotations

import ast
import textwrap

from tfcompare.scripts.convert.graph_segments import blanked, clashing_classes, joined, renamed, segments

TWO = textwrap.dedent('''\
    """Two examples."""
    import numpy as np
    import tensorflow as tf
    from tensorflow.python.framework import ops
    ops.reset_default_graph()


    def batches(n):
        return np.arange(n)


    sess = tf.Session()
    x = tf.placeholder(tf.float32, [1])
    A = tf.Variable(1.0)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(x * A))
    sess.run(train, {x: [1.0]})

    # Second example
    ops.reset_default_graph()
    sess = tf.Session()
    x = tf.placeholder(tf.float32, [1])
    B = tf.Variable(2.0)
    opt = tf.train.AdamOptimizer()
    sess.run(opt.minimize(tf.square(x * B)), {x: [1.0]})
    print("done")
''')


def test_a_script_is_cut_at_each_reset_between_two_trained_graphs_and_nowhere_else():
    parts = segments(TWO)
    # the reset after the imports has no trained graph above it: it is not a cut
    assert [p.lines for p in parts] == ["1-16", "17-25"]
    assert parts[0].kept_above == ()
    assert parts[1].kept_above == ((2, 2), (3, 3), (4, 4), (8, 9))  # the imports and the function above graph 2
    # a reset followed by no training (an evaluation graph) is no cut: that graph stays with the one before it
    assert segments(TWO.replace("sess.run(opt.minimize(tf.square(x * B)), {x: [1.0]})", "sess.run(B)")) == []
    assert segments(TWO.replace("ops.reset_default_graph()\nsess", "sess")) == []  # one graph
    assert segments("def broken(:\n") == []


def test_each_graph_is_a_script_of_its_own_with_every_line_where_it_was():
    first, second = segments(TWO)
    one, two = blanked(TWO, first), blanked(TWO, second)
    assert one.count("\n") == two.count("\n") == TWO.count("\n")
    assert "B = tf.Variable" not in one and "A = tf.Variable" in one
    lines = two.splitlines()
    assert lines[0] == "" and lines[1] == "import numpy as np" and lines[7] == "def batches(n):"
    assert "A = tf.Variable" not in two and lines[21] == "B = tf.Variable(2.0)"  # line 22, as in the script
    assert lines[17] == "# Second example"  # the comment above the reset goes with the graph it introduces
    ast.parse(two)


def test_a_later_model_class_of_the_same_name_is_renamed_and_attributes_are_not():
    first = "class Model(tf.Module):\n    pass\n"
    later = "class Model(keras.Model):\n    x = 1\n\n\nmodel = Model()  # Model\n"
    names = clashing_classes([first], later)
    assert names == {"Model": "Model2"}
    assert renamed(later, names) == "class Model2(keras.Model):\n    x = 1\n\n\nmodel = Model2()  # Model\n"
    assert clashing_classes([first, "class Model2:\n    y = 2\n"], later) == {"Model": "Model3"}
    assert clashing_classes([first], first) == {}  # the same class (a definition kept above): no new name


def test_the_rewrites_join_in_order_with_one_docstring_and_the_imports_at_the_top():
    first = '"""Rewrite."""\n\nimport numpy as np\nimport tensorflow as tf\n\n\ndef batches(n):\n    return n\n\n\n' \
            "model = 1\nprint(model)\n"
    later = '"""Rewrite of graph 2."""\n\nimport numpy as np\nimport matplotlib.pyplot as plt\n\n\n' \
            "def batches(n):\n    return n\n\n\n# Second example\nmodel = 2\nprint(model)\n"
    text = joined([first, later], ["", "graph 2"])
    assert text == ('"""Rewrite."""\n\nimport numpy as np\nimport tensorflow as tf\nimport matplotlib.pyplot as plt'
                    "\n\n\ndef batches(n):\n    return n\n\n\nmodel = 1\nprint(model)\n\n\n# graph 2\n"
                    "# Second example\nmodel = 2\nprint(model)\n")
    namespace = {}
    exec(compile(text.replace("import matplotlib.pyplot as plt", ""), "joined", "exec"), namespace)
    assert namespace["model"] == 2
