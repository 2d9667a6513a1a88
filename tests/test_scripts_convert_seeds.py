"""What TF1's `tf.set_random_seed(S)` becomes: `tf.keras.utils.set_random_seed(S)` (Keras 3's unseeded initializers
take their seeds from Python's `random`: without it the rewrite's initial weights change run to run) only where
re-seeding NumPy and `random` changes none of the script's draws; `tf.random.set_seed(S)` elsewhere."""

import ast

import pytest

from tfcompare.scripts.convert.seeds import KERAS_SEED, TF_SEED, seed_function

CASES = {
    # the tutorials' opening: NumPy seeded by the script right after
    "numpy seeded after": ("import numpy as np\ntf.set_random_seed(1)\nnp.random.seed(1)\nx = np.random.rand(3)",
                           KERAS_SEED),
    "numpy seeded before, same seed": ("import numpy as np\nnp.random.seed(7)\ntf.set_random_seed(7)\n", KERAS_SEED),
    "numpy seeded before, another seed": ("import numpy as np\nnp.random.seed(7)\ntf.set_random_seed(8)\n", TF_SEED),
    "a draw between": ("import numpy as np\nnp.random.seed(7)\nx = np.random.rand(2)\ntf.set_random_seed(7)\n",
                       TF_SEED),
    "numpy never seeded": ("import numpy as np\ntf.set_random_seed(1)\nx = np.random.rand(3)\n", TF_SEED),
    "numpy under another name": ("import numpy\ntf.set_random_seed(1)\nnumpy.random.seed(2)\n", KERAS_SEED),
    "python's random used": ("import random\nimport numpy as np\ntf.set_random_seed(1)\nnp.random.seed(1)\n", TF_SEED),
    "from random": ("from random import shuffle\nimport numpy as np\ntf.set_random_seed(1)\nnp.random.seed(1)\n",
                    TF_SEED),
    "inside a function": ("import numpy as np\ndef main():\n    tf.set_random_seed(1)\n    np.random.seed(1)\n",
                          TF_SEED),
    "a seed variable": ("import numpy as np\nSEED = 3\nnp.random.seed(SEED)\ntf.set_random_seed(SEED)\n",
                        KERAS_SEED),
    "another variable": ("import numpy as np\nnp.random.seed(A)\ntf.set_random_seed(B)\n", TF_SEED),
}


@pytest.mark.parametrize("source, expected", list(CASES.values()), ids=list(CASES))
def test_keras_seeds_everything_only_where_no_draw_of_the_script_changes(source, expected):
    tree = ast.parse(source)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") ==
                "set_random_seed")
    assert seed_function(tree, call) == expected
