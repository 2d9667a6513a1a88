"""A training script's import of its own TF1 module (`from model import Model`, char-rnn's) is left out of the
rewrite where the rewrite writes what it gave (its own `Model`): the import is dead there and, in TF 2, fails on
`tf.contrib`. An import whose names the rewrite still reads, or of a module without TensorFlow, stays."""

from tfcompare.scripts.convert.own_modules import without_replaced_imports

_WRITTEN = """import tensorflow as tf
from utils import TextLoader
from model import Model
from helpers import make_batches
import graph_parts
from model import Model as Old


class Model(tf.Module):
    pass


model = Model()
loader = TextLoader()
make_batches(Old)
"""


def test_a_dead_import_of_the_scripts_own_tf1_module_is_a_note_and_a_live_one_stays(tmp_path):
    (tmp_path / "utils.py").write_text("import numpy as np\nclass TextLoader: pass\n")  # no TensorFlow: kept
    (tmp_path / "model.py").write_text("import tensorflow as tf\nclass Model: pass\n")
    (tmp_path / "helpers.py").write_text("from tensorflow.contrib import rnn\ndef make_batches(x): pass\n")
    (tmp_path / "graph_parts.py").write_text("import tensorflow as tf\n")
    out = without_replaced_imports(_WRITTEN, tmp_path).split("\n")
    assert out[1] == "from utils import TextLoader"
    assert out[2] == "# NOTE(tfcompare): left out, TF1 graph code written in TF2 below: from model import Model"
    assert out[3] == "from helpers import make_batches"  # read by the rewrite, never bound again: live
    assert out[4] == "# NOTE(tfcompare): left out, TF1 graph code written in TF2 below: import graph_parts"  # unread
    assert out[5] == "from model import Model as Old"  # `Old` is read: live
    assert out[6:] == _WRITTEN.split("\n")[6:]
    # a name read before the rewrite binds it again reads the import: kept
    early = _WRITTEN.replace("class Model(tf.Module):", "first = Model\n\n\nclass Model(tf.Module):")
    assert without_replaced_imports(early, tmp_path).split("\n")[2] == "from model import Model"
    # no such file beside the script (an installed package): kept
    assert without_replaced_imports(_WRITTEN, tmp_path / "elsewhere") == _WRITTEN
