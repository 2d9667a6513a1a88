"""Known dataset loaders, replaced by one seeded synthetic source so both scripts see the same examples.

A pair of scripts usually loads MNIST-like data through a helper: TF1's `tensorflow.examples.tutorials.mnist`
(gone from TensorFlow 2.x) or `keras.datasets.*.load_data()` (a download). Both are replaced, in the child
that runs the script, by the same seeded images and labels (TF1's helper reads the IDX files of its `train_dir`
where the script has them, as TF1 did and the rewrite does): TF1's helper returns them as it always did
(images flattened and scaled to [0, 1], labels one-hot on request, 5,000 held out for validation) and hands out
batches in order, without shuffling; Keras's loaders return the raw uint8 arrays. `tf.data.Dataset.shuffle` is
turned off too, so the n-th batch of one script holds the same examples as the n-th batch of the other. A script
that reads any other file is not substituted: the file is read as it is, and a missing one is reported, never
guessed.
"""

from __future__ import annotations

import sys
import types

import numpy as np

__all__ = ["SHAPES", "TRAIN_EXAMPLES", "MNIST_FILES", "install", "synthetic", "idx_files"]

# The training set repeats a period of _DISTINCT examples (enough batches for any K a comparison uses), and the
# period divides TF1's default validation split (read_data_sets holds out the first 5,000): what TF1's helper
# leaves for training starts with the same examples, in the same order, as the whole set a Keras loader returns.
_DISTINCT = 2500
TRAIN_EXAMPLES = 3 * _DISTINCT
_TEST_EXAMPLES = 512
_SEED = 20261201
# loader -> (image shape, label shape per example, classes)
SHAPES = {"mnist": ((28, 28), (), 10), "fashion_mnist": ((28, 28), (), 10), "cifar10": ((32, 32, 3), (1,), 10)}


def synthetic(name: str) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """((x_train, y_train), (x_test, y_test)) as `keras.datasets.<name>.load_data()` returns them: uint8 images."""
    image, label, classes = SHAPES[name]
    rng = np.random.default_rng([_SEED, sorted(SHAPES).index(name)])
    n = _DISTINCT + _TEST_EXAMPLES
    x = rng.integers(0, 256, size=(n, *image), dtype=np.uint8)
    y = rng.integers(0, classes, size=(n, *label), dtype=np.uint8)
    period = np.arange(TRAIN_EXAMPLES) % _DISTINCT
    return (x[period], y[period]), (x[_DISTINCT:], y[_DISTINCT:])


class _DataSet:
    """TF 1.15's input_data DataSet without its shuffling: images (N, 784) float32 in [0, 1], labels int or
    one-hot; next_batch hands out the examples in order, a batch running on into the next epoch as TF1's did."""

    def __init__(self, images, labels, one_hot, reshape):
        images = images.astype(np.float32) / 255.0
        self.images = images.reshape(len(images), -1) if reshape else images[..., np.newaxis]
        self.labels = np.eye(10)[labels] if one_hot else labels
        self.num_examples = len(images)
        self.epochs_completed = 0
        self._index = 0

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        index = (self._index + np.arange(batch_size)) % self.num_examples
        self._index += batch_size
        self.epochs_completed = self._index // self.num_examples
        return self.images[index], self.labels[index]


# what TF1's read_data_sets reads from its `train_dir` (downloading MNIST's where one is missing)
MNIST_FILES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz",
               "t10k-labels-idx1-ubyte.gz")


def idx_files(train_dir) -> list[np.ndarray] | None:
    """The four IDX files in `train_dir` as TF1 read them (gzip, a big-endian header): images (N, rows, cols) and
    labels (N,), uint8; None where the folder lacks one (TF1 would have downloaded MNIST). A script's own files are
    its data (Fashion-MNIST's, whose README loads them this way), read as they are on both sides."""
    import gzip

    paths = _idx_paths(train_dir)
    if paths is None:
        return None
    out = []
    for path in paths:
        with gzip.open(path, "rb") as f:
            data = f.read()
        shape = np.frombuffer(data, ">u4", data[3], 4)
        out.append(np.frombuffer(data, np.uint8, offset=4 + 4 * data[3]).reshape(shape))
    return out


def _idx_paths(train_dir) -> list[str] | None:
    """The four IDX files' paths in `train_dir`, or None where the folder lacks one (or no folder is named)."""
    import os

    paths = [os.path.join(str(train_dir), name) for name in MNIST_FILES] if train_dir else []
    return paths if paths and all(os.path.isfile(p) for p in paths) else None


def _read_data_sets(train_dir=None, fake_data=False, one_hot=False, dtype=None, reshape=True, validation_size=5000,
                    seed=None, source_url=None):
    """TF1's split: the first `validation_size` training images are the validation set, the rest the training set;
    the IDX files of `train_dir` where it has them, else the synthetic MNIST."""
    files = idx_files(train_dir)
    (x, y), (tx, ty) = synthetic("mnist") if files is None else ((files[0], files[1]), (files[2], files[3]))
    return types.SimpleNamespace(train=_DataSet(x[validation_size:], y[validation_size:], one_hot, reshape),
                                 validation=_DataSet(x[:validation_size], y[:validation_size], one_hot, reshape),
                                 test=_DataSet(tx, ty, one_hot, reshape))


def _tutorial_modules() -> dict[str, types.ModuleType]:
    """`tensorflow.examples.tutorials.mnist.input_data`, which TF 2.x no longer ships."""
    names = ["tensorflow.examples", "tensorflow.examples.tutorials", "tensorflow.examples.tutorials.mnist",
             "tensorflow.examples.tutorials.mnist.input_data"]
    modules = {}
    for name in names:
        module = types.ModuleType(name)
        module.__path__ = []
        modules[name] = module
    modules[names[-1]].read_data_sets = _read_data_sets
    modules[names[2]].input_data = modules[names[-1]]
    for parent, child in zip(names, names[1:]):
        setattr(modules[parent], child.rsplit(".", 1)[1], modules[child])
    return modules


def install(notes: list[str]):
    """Replace the known loaders and `Dataset.shuffle` in this process; each replacement used adds a note.
    Returns the function that puts everything back (for a script loaded inside tfcompare's own process)."""
    import tensorflow as tf

    saved: list[tuple[object, str, object]] = []

    def patch(owner, name, value):
        saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    def loader(name):
        def load_data(*args, **kwargs):
            _note(notes, f"keras.datasets.{name}.load_data() replaced by {TRAIN_EXAMPLES} seeded synthetic examples")
            return synthetic(name)
        return load_data

    def read_data_sets(train_dir=None, *args, **kwargs):
        _note(notes, f"input_data.read_data_sets() read the IDX files of {train_dir!r}, batches in order"
              if _idx_paths(train_dir) is not None else
              "input_data.read_data_sets() replaced by the same seeded synthetic MNIST, batches in order")
        return _read_data_sets(train_dir, *args, **kwargs)

    modules = _tutorial_modules()
    modules["tensorflow.examples.tutorials.mnist.input_data"].read_data_sets = read_data_sets
    added = [name for name in modules if name not in sys.modules]
    sys.modules.update({name: modules[name] for name in added})
    for root in _keras_roots(tf):
        for name in SHAPES:
            dataset = getattr(getattr(root, "datasets", None), name, None)
            if dataset is not None:
                patch(dataset, "load_data", loader(name))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        _note(notes, "tf.data shuffle() turned off, so both scripts take the same examples in the same order")
        return self

    patch(tf.data.Dataset, "shuffle", shuffle)
    for name, value in _unshuffled_queues(tf.compat.v1.train, notes).items():
        patch(tf.compat.v1.train, name, value)

    def undo():
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)
        for name in added:
            sys.modules.pop(name, None)

    return undo


def _unshuffled_queues(train, notes: list[str]) -> dict:
    """TF1's queue pipelines in order, as tf.data's shuffle is turned off: the producers' `shuffle=False`,
    `shuffle_batch` as `batch`, one enqueuing thread each (several fill a batch in any order). The convert rewrite's
    tf.data pipeline then takes the same examples in the same order."""
    producers = {name: getattr(train, name) for name in ("slice_input_producer", "string_input_producer",
                                                         "range_input_producer")}
    batch = train.batch
    said = "TF1 queues unshuffled and single-threaded (slice_input_producer, string_input_producer, " \
           "shuffle_batch as batch), so both scripts take the same examples in the same order"

    def producer(name):
        made = producers[name]

        def unshuffled(*args, **kwargs):
            if len(args) > 2:  # (tensor, num_epochs, shuffle, ...) in each producer's signature
                shuffled, args = args[2], (*args[:2], False, *args[3:])
            else:
                shuffled, kwargs["shuffle"] = kwargs.get("shuffle", True), False
            if shuffled:
                _note(notes, said)
            return made(*args, **kwargs)
        return unshuffled

    def in_order(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
                 dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
        if num_threads != 1:
            _note(notes, said)
        return batch(tensors, batch_size, 1, capacity, enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch,
                     shared_name, name)

    def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None, enqueue_many=False,
                      shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
        _note(notes, said)
        return in_order(tensors, batch_size, 1, capacity, enqueue_many, shapes, False, allow_smaller_final_batch,
                        shared_name, name)

    return {**{name: producer(name) for name in producers}, "batch": in_order, "shuffle_batch": shuffle_batch}


def _keras_roots(tf) -> list:
    """Every Keras a script may reach its datasets through: Keras 3, and `tf.keras` as TF2 and as the TF1 API
    (`tensorflow.compat.v1`) serve it; with tf-keras installed those are its own modules, one per API."""
    roots = []
    try:
        import keras
        roots.append(keras)
    except ImportError:
        pass
    for api in (tf, tf.compat.v1, tf.compat.v2):
        try:
            roots.append(api.keras)
        except (ImportError, AttributeError):
            pass
    return list({id(root): root for root in roots}.values())


def _note(notes: list[str], text: str) -> None:
    if text not in notes:
        notes.append(text)
