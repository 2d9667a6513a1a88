"""`input_data.read_data_sets(train_dir)` reads the IDX files the script keeps in `train_dir` (MNIST's, or
Fashion-MNIST's, whose README loads them this way), on both sides of a pair and in the rewrite on its own: a
rewrite that loaded Keras's digits instead would train on other data while its proof, on the stand-in, agreed."""

import gzip
import types

import numpy as np
import pytest
import tensorflow as tf

from tfcompare.scripts.child.loaders import MNIST_FILES, _read_data_sets, idx_files, synthetic
from tfcompare.scripts.convert.written_cells import LOADER


def _write_idx(path, array: np.ndarray) -> None:
    """An IDX file as MNIST's are: magic (0, 0, uint8 = 8, dims), then each dim as a big-endian uint32."""
    header = bytes([0, 0, 8, array.ndim]) + np.asarray(array.shape, ">u4").tobytes()
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


@pytest.fixture
def fashion(tmp_path):
    rng = np.random.default_rng(7)
    arrays = [rng.integers(0, 256, (5040, 28, 28)), rng.integers(0, 10, 5040), rng.integers(0, 256, (30, 28, 28)),
              rng.integers(0, 10, 30)]
    folder = tmp_path / "data" / "fashion"
    folder.mkdir(parents=True)
    for name, array in zip(MNIST_FILES, arrays):
        _write_idx(folder / name, array)
    return folder, [a.astype(np.uint8) for a in arrays]


def _written_loader():
    scope = {}
    exec("import gzip, os, types\nimport numpy as np\nimport tensorflow as tf\n" + LOADER, scope)
    return scope["read_data_sets"]


def test_the_idx_files_of_train_dir_are_read_by_the_stand_in_and_by_the_written_loader(fashion, monkeypatch):
    folder, (x, y, test_x, test_y) = fashion
    read = idx_files(folder)
    assert [a.shape for a in read] == [(5040, 28, 28), (5040,), (30, 28, 28), (30,)]
    for got, want in zip(read, (x, y, test_x, test_y)):
        np.testing.assert_array_equal(got, want)
    stand_in = _read_data_sets(str(folder), one_hot=True)

    def no_download():
        raise AssertionError("the written loader went to Keras's MNIST though train_dir holds the files")

    monkeypatch.setattr(tf.keras.datasets.mnist, "load_data", no_download)
    monkeypatch.chdir(folder.parent.parent)
    written = _written_loader()("data/fashion", one_hot=True)  # relative, as scripts give it
    flat = x.reshape(len(x), -1).astype(np.float32) / 255.0
    assert written.train.num_examples == stand_in.train.num_examples == 40
    np.testing.assert_array_equal(written.train.images, flat[5000:])
    np.testing.assert_array_equal(stand_in.train.images, flat[5000:])
    np.testing.assert_array_equal(written.validation.images, flat[:5000])
    np.testing.assert_array_equal(written.test.labels, np.eye(10)[test_y])
    np.testing.assert_array_equal(stand_in.test.labels, np.eye(10)[test_y])


def test_a_folder_missing_one_file_is_the_download_tf1_would_have_made(fashion, monkeypatch):
    """TF1 downloaded MNIST where a file was missing: the stand-in's synthetic MNIST, the rewrite's Keras MNIST."""
    folder, _ = fashion
    (folder / MNIST_FILES[3]).unlink()
    assert idx_files(folder) is None and idx_files(None) is None
    (sx, _), _ = synthetic("mnist")
    stand_in = _read_data_sets(str(folder))
    np.testing.assert_array_equal(stand_in.validation.images[:3], sx[:3].reshape(3, -1).astype(np.float32) / 255.0)
    called = []
    monkeypatch.setattr(tf.keras.datasets.mnist, "load_data", lambda: called.append(1) or synthetic("mnist"))
    written = _written_loader()(str(folder))
    assert called == [1] and written.validation.num_examples == 5000
