"""TF1-style implementations of the built-in cases: placeholders, `get_variable`, a `tf.compat.v1.train` op.

The helpers a builder uses are part of tfcompare's public case contract (`tfcompare.core.graph_builder`);
they are re-exported here because users' cases files import them from this package.
"""

from tfcompare.core.graph_builder import graph_parts, placeholders, tf1, weight_loader

__all__ = ["tf1", "placeholders", "graph_parts", "weight_loader"]
