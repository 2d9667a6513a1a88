"""`tf.contrib.learn.preprocessing` under the legacy runtime: TF 1.15's word ids (order of first appearance, `<UNK>`
0, cut or zero-padded rows), `min_frequency`'s re-numbering, the pickle round trip, and the import paths that
text-classification scripts of 2016-2018 use."""

import importlib

import numpy as np

from tfcompare.scripts.legacy import coverage
from tfcompare.scripts.legacy.runtime import install

DOCS = ["I like cats.", "Cats like me too much", "dogs"]


def test_the_vocabulary_processor_gives_tf1s_ids_and_a_frozen_vocabulary_maps_new_words_to_zero(tmp_path):
    notes = []
    undo = install("train.py", notes)
    try:
        from tensorflow.contrib import learn
        from tensorflow.contrib.learn.python.learn.preprocessing import VocabularyProcessor

        assert VocabularyProcessor is learn.preprocessing.VocabularyProcessor
        processor = learn.preprocessing.VocabularyProcessor(4)
        rows = np.array(list(processor.fit_transform(DOCS)))
        assert rows.dtype == np.int64
        # <UNK> 0, I 1, like 2, cats 3, Cats 4, me 5, too 6, much 7 (cut: the row is 4 long), dogs 8
        assert rows.tolist() == [[1, 2, 3, 0], [4, 2, 5, 6], [8, 0, 0, 0]]
        assert len(processor.vocabulary_) == 9
        assert next(processor.transform(["like birds"])).tolist() == [2, 0, 0, 0]  # frozen: no new id
        assert list(processor.reverse([[4, 2, 0]])) == ["Cats like <UNK>"]
        path = tmp_path / "vocab"
        processor.save(str(path))
        restored = learn.preprocessing.VocabularyProcessor.restore(str(path))
        assert next(restored.transform(["much dogs"])).tolist() == [7, 8, 0, 0]
        assert list(learn.preprocessing.tokenizer(["HelloWorld USA it's x-ray"])) == [
            ["Hello", "World", "USA", "it's", "x-ray"]]
        assert notes == ["tf.contrib.learn.preprocessing came from tfcompare's legacy runtime (TF 1.15's "
                         "definitions on tf.compat.v1), not from TensorFlow 1.x"]
    finally:
        undo()
    assert importlib.util.find_spec("tensorflow.contrib") is None


def test_min_frequency_keeps_words_seen_more_often_renumbered_by_count_then_alphabetically():
    from tfcompare.scripts.legacy.preprocessing import VocabularyProcessor

    processor = VocabularyProcessor(3, min_frequency=1)
    rows = list(processor.fit_transform(["b a c", "c b", "c d"]))
    # counts: c 3, b 2, a 1, d 1 -> c 1, b 2; a and d (seen once) are <UNK>
    assert [r.tolist() for r in rows] == [[2, 0, 1], [1, 2, 0], [1, 0, 0]]
    assert len(processor.vocabulary_) == 3
    assert coverage.is_provided("tensorflow.contrib.learn.python.learn.preprocessing.VocabularyProcessor")
    assert not coverage.is_provided("tf.contrib.learn.preprocessing.ByteProcessor")
