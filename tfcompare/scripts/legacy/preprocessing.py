"""`tf.contrib.learn.preprocessing`: the vocabulary processor of text-classification tutorials (pure Python + NumPy).

Source checked: TF 1.15 `tensorflow/contrib/learn/python/learn/preprocessing/text.py` (the tokenizer's regular
expression, `fit` adding every token then trimming by `min_frequency` and freezing, `transform` yielding int64 rows
of `max_document_length` padded with 0, `save` / `restore` as a pickle) and `categorical_vocabulary.py` (`<UNK>` is
id 0, ids in order of first appearance, a frozen vocabulary maps unknown words to 0, `trim` re-numbers by
descending count then alphabetically). The same ids as TF 1.x, so a script's embedding rows line up with its data.
"""

from __future__ import annotations

import collections
import pickle
import re

import numpy as np

__all__ = ["CategoricalVocabulary", "VocabularyProcessor", "tokenizer", "contents"]

TOKENIZER_RE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+(?=[A-Z])|[\'\w\-]+", re.UNICODE)


def tokenizer(iterator):
    """Each string of `iterator` as its list of tokens."""
    for value in iterator:
        yield TOKENIZER_RE.findall(value)


class CategoricalVocabulary:
    """Categories to ids: the unknown token is 0; a new category gets the next id until the vocabulary is frozen."""

    def __init__(self, unknown_token="<UNK>", support_reverse=True):
        self._unknown_token = unknown_token
        self._mapping = {unknown_token: 0}
        self._support_reverse = support_reverse
        self._reverse_mapping = [unknown_token] if support_reverse else None
        self._freq = collections.defaultdict(int)
        self._freeze = False

    def __len__(self):
        return len(self._mapping)

    def freeze(self, freeze=True):
        self._freeze = freeze

    def get(self, category):
        if category not in self._mapping:
            if self._freeze:
                return 0
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
        return self._mapping[category]

    def add(self, category, count=1):
        category_id = self.get(category)
        if category_id <= 0:
            return
        self._freq[category] += count

    def trim(self, min_frequency, max_frequency=-1):
        """Keep the categories seen more than `min_frequency` times (and fewer than `max_frequency`, if > 0),
        re-numbered by descending count, ties alphabetically."""
        ordered = sorted(sorted(self._freq.items(), key=lambda x: (isinstance(x[0], str), x[0])),
                         key=lambda x: x[1], reverse=True)
        self._mapping = {self._unknown_token: 0}
        if self._support_reverse:
            self._reverse_mapping = [self._unknown_token]
        idx = 1
        for category, count in ordered:
            if 0 < max_frequency <= count:
                continue
            if count <= min_frequency:
                break
            self._mapping[category] = idx
            idx += 1
            if self._support_reverse:
                self._reverse_mapping.append(category)
        self._freq = dict(ordered[:idx - 1])

    def reverse(self, class_id):
        if not self._support_reverse:
            raise ValueError("This vocabulary wasn't initialized with support_reverse to support reverse() function.")
        return self._reverse_mapping[class_id]


class VocabularyProcessor:
    """Documents to rows of word ids, `max_document_length` long (cut, or padded with 0)."""

    def __init__(self, max_document_length, min_frequency=0, vocabulary=None, tokenizer_fn=None):
        self.max_document_length = max_document_length
        self.min_frequency = min_frequency
        self.vocabulary_ = vocabulary if vocabulary else CategoricalVocabulary()
        self._tokenizer = tokenizer_fn if tokenizer_fn else tokenizer

    def fit(self, raw_documents, unused_y=None):
        for tokens in self._tokenizer(raw_documents):
            for token in tokens:
                self.vocabulary_.add(token)
        if self.min_frequency > 0:
            self.vocabulary_.trim(self.min_frequency)
        self.vocabulary_.freeze()
        return self

    def fit_transform(self, raw_documents, unused_y=None):
        self.fit(raw_documents)  # as TF 1.x: a generator is read once, by fit
        return self.transform(raw_documents)

    def transform(self, raw_documents):
        for tokens in self._tokenizer(raw_documents):
            word_ids = np.zeros(self.max_document_length, np.int64)
            for idx, token in enumerate(tokens):
                if idx >= self.max_document_length:
                    break
                word_ids[idx] = self.vocabulary_.get(token)
            yield word_ids

    def reverse(self, documents):
        for item in documents:
            yield " ".join(self.vocabulary_.reverse(class_id) for class_id in item)

    def save(self, filename):
        with open(filename, "wb") as f:
            f.write(pickle.dumps(self))

    @classmethod
    def restore(cls, filename):
        with open(filename, "rb") as f:
            return pickle.loads(f.read())


def contents() -> dict:
    return {"VocabularyProcessor": VocabularyProcessor, "CategoricalVocabulary": CategoricalVocabulary,
            "tokenizer": tokenizer}
