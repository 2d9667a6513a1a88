"""`convert` on TF1 queue pipelines (stop 65): `tf.train.slice_input_producer` into `tf.train.batch` /
`shuffle_batch` becomes a `tf.data` pipeline iterated in Python, and the Coordinator and queue runners go (before:
the dequeue had no translation, 6 TODOs and no step). The written pipeline's batches are TF1's queue's, read back
from both; pair's children take TF1's queues unshuffled, as they take tf.data's."""

from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest
import tensorflow as tf

from tfcompare.scripts.convert import source as carried

_SCRIPT = """
    import numpy as np
    import tensorflow as tf
    X = np.arange(60, dtype=np.float32).reshape(20, 3)
    Y = np.arange(20, dtype=np.int32)
    example, label = tf.train.slice_input_producer([X, Y], {producer})
    xb, yb = tf.train.{batcher}([example, label], {batch})
    w = tf.Variable(tf.zeros([3, 1]))
    loss = tf.reduce_mean(tf.matmul(xb, w)) + tf.cast(tf.reduce_sum(yb), tf.float32)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    sess = tf.Session()
    sess.run(tf.group(tf.global_variables_initializer(), tf.local_variables_initializer()))
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
        while not coord.should_stop():
            _, l = sess.run([train, loss])
    except tf.errors.OutOfRangeError:
        print('done')
    finally:
        coord.request_stop()
    coord.join(threads)
"""


def _rewritten(producer: str, batcher: str, batch: str):
    source = textwrap.dedent(_SCRIPT.format(producer=producer, batcher=batcher, batch=batch))
    plan = carried.Plan(graph={"example", "label", "xb", "yb", "w", "loss", "train", "sess"}, train={"train"},
                        methods={"loss": ("model.loss", ["xb", "yb"])}, step_args=["xb", "yb"], loss="loss",
                        tf_names={"tf"}, pipeline={"xb", "yb"})
    return source, carried.rewrite(source, plan, first_step_line=17)


def _tf1_batches(source: str, reader: bool = False) -> list:
    """Every batch TF1's queues hand out until they close (the script's pipeline lines, run as TF1 code; a
    reader's: every line above the model's)."""
    lines = [line for line in source.splitlines() if line.startswith(("X =", "Y =", "example,", "xb,"))]
    if reader:
        lines = source[:source.index("w = tf.Variable")].splitlines()
        lines = [line for line in lines if not line.startswith("import")]
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        scope = {"np": np, "tf": v1}
        exec("\n".join(lines), scope)
        with v1.Session() as sess:
            sess.run(v1.local_variables_initializer())
            coord = v1.train.Coordinator()
            threads = v1.train.start_queue_runners(sess=sess, coord=coord)
            out = []
            try:
                while True:
                    out.append(sess.run([scope["xb"], scope["yb"]]))
            except tf.errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads)
    return out


def _tf2_batches(kept) -> list:
    """Every batch the written pipeline hands out (its lines, run eagerly), until get_next() ends it as TF1's
    queue did: OutOfRangeError."""
    lines = [line for line in [*kept.head, *kept.tail] if line.startswith(("X =", "Y =", "dataset", "batches"))]
    scope = {"np": np, "tf": tf}
    exec("\n".join(lines), scope)
    out = []
    try:
        while True:
            out.append([t.numpy() for t in scope["batches"].get_next()])
    except tf.errors.OutOfRangeError:
        pass
    return out


@pytest.mark.parametrize("producer, batcher, batch, pipeline, batches", [
    # in order, two epochs, the smaller last batch kept: 40 examples in 6 batches of 7 and one of 5
    ("num_epochs=2, shuffle=False", "batch", "batch_size=7, allow_smaller_final_batch=True",
     ["dataset = dataset.repeat(2)", "dataset = dataset.batch(7)"], [7] * 5 + [5]),
    # the smaller last batch dropped, as TF1's queue closes without it: 5 batches of 7
    ("num_epochs=2, shuffle=False", "batch", "batch_size=7, num_threads=1",
     ["dataset = dataset.repeat(2)", "dataset = dataset.batch(7, drop_remainder=True)"], [7] * 5),
])
def test_an_unshuffled_queue_is_a_pipeline_of_tf1s_batches_and_its_coordinator_goes(producer, batcher, batch,
                                                                                     pipeline, batches):
    source, kept = _rewritten(producer, batcher, batch)
    text = "\n".join([*kept.head, *kept.tail])
    assert kept.todos == [], kept.todos
    assert "dataset = tf.data.Dataset.from_tensor_slices((X, Y))" in text and "batches = iter(dataset)" in text
    assert [line for line in pipeline if line not in text] == [], text
    # the Coordinator, the queue runners, request_stop and join gone; the loop runs until the pipeline ends
    assert "coord" not in text and "threads" not in text and "queue" not in text.replace("queue (TF1 line", "")
    assert "    while True:\n        xb, yb = batches.get_next()\n        l = train_step(xb, yb).numpy()\n" \
           "except tf.errors.OutOfRangeError:\n    print('done')" in text, text
    ast.parse(text)
    tf1, tf2 = _tf1_batches(source), _tf2_batches(kept)
    assert [len(b[1]) for b in tf1] == batches and [len(b[1]) for b in tf2] == batches
    for (x1, y1), (x2, y2) in zip(tf1, tf2):
        np.testing.assert_array_equal(x1, x2)
        np.testing.assert_array_equal(y1, y2)


def test_a_shuffled_queue_is_shuffled_per_epoch_then_in_a_buffer_and_holds_each_example_once_an_epoch():
    source, kept = _rewritten("num_epochs=3, shuffle=True, seed=5", "shuffle_batch",
                              "batch_size=4, capacity=50, min_after_dequeue=10, seed=7, num_threads=2")
    text = "\n".join([*kept.head, *kept.tail])
    assert kept.todos == [], kept.todos
    assert "dataset = dataset.shuffle(dataset.cardinality(), seed=5).repeat(3)" in text, text
    assert "dataset = dataset.shuffle(10, seed=7).batch(4, drop_remainder=True)" in text, text
    assert "# NOTE" not in text and any("shuffle_batch queue (TF1 line 7) as a tf.data pipeline" in line
                                        for line in kept.tail), kept.tail
    tf2 = _tf2_batches(kept)
    assert len(tf2) == 15  # 60 examples, batches of 4
    labels = np.concatenate([b[1] for b in tf2])
    assert sorted(labels) == sorted(list(range(20)) * 3) and list(labels[:20]) != list(range(20))
    np.testing.assert_array_equal(np.concatenate([b[0] for b in tf2]), np.arange(60).reshape(20, 3)[labels])


@pytest.mark.parametrize("batch", ["batch_size=4, enqueue_many=True", "batch_size=4, dynamic_pad=True"])
def test_a_batcher_of_another_form_stays_a_todo(batch):
    _, kept = _rewritten("shuffle=False", "batch", batch)
    assert any("TF1 line 7" in todo for todo in kept.todos), kept.todos
    assert "tf.data.Dataset" not in "\n".join([*kept.head, *kept.tail])


def test_pairs_children_take_tf1s_queues_unshuffled_and_single_threaded():
    """pair turns tf.data's shuffle off in both children; TF1's queues likewise (shuffle=False, shuffle_batch as
    batch, one thread), or the two sides' batches hold other examples and pair says DIFFER on the inputs."""
    from tfcompare.scripts.child.loaders import install

    notes: list[str] = []
    undo = install(notes)
    try:
        source = textwrap.dedent(_SCRIPT.format(producer="num_epochs=1, seed=3", batcher="shuffle_batch",
                                                batch="batch_size=5, capacity=20, min_after_dequeue=10, "
                                                      "num_threads=4, seed=1"))
        batches = _tf1_batches(source)
    finally:
        undo()
    assert [list(y) for _, y in batches] == [list(range(i, i + 5)) for i in range(0, 20, 5)]
    assert notes == ["TF1 queues unshuffled and single-threaded (slice_input_producer, string_input_producer, "
                     "shuffle_batch as batch), so both scripts take the same examples in the same order"]
    assert tf.compat.v1.train.shuffle_batch.__module__.startswith("tensorflow")  # put back


_READER_SCRIPT = """
    import numpy as np
    import tensorflow as tf
    {setup}
    queue = tf.train.string_input_producer([PATH, PATH], num_epochs=2, shuffle=False)
    {read}
    xb, yb = tf.train.batch([features, label], batch_size=3, allow_smaller_final_batch=True)
    w = tf.Variable(tf.zeros([2, 1]))
    loss = tf.reduce_mean(tf.matmul(xb, w)) + tf.cast(tf.reduce_sum(yb), tf.float32)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    sess = tf.Session()
    sess.run(train)
"""
_CSV = ("reader = tf.TextLineReader(skip_header_lines=1)\n"
        "_, value = reader.read(queue)\n"
        "a, b, label = tf.decode_csv(value, record_defaults=[[0.], [0.], [0]])\n"
        "features = tf.stack([a, b])")
_TFRECORD_FUNCTION = """
    def read_and_decode(filename_queue):
        reader = tf.TFRecordReader()
        _, serialized = reader.read(filename_queue)
        parsed = tf.parse_single_example(serialized, features={
            'x': tf.FixedLenFeature([2], tf.float32), 'y': tf.FixedLenFeature([], tf.int64)})
        return parsed['x'], tf.cast(parsed['y'], tf.int32)
"""


@pytest.mark.parametrize("kind", ["csv", "tfrecord"])
def test_a_reader_queue_is_a_pipeline_of_its_files_and_gives_tf1s_batches(tmp_path, kind):
    """A CSV read by `TextLineReader(skip_header_lines=1)` and `tf.decode_csv` at module level, and a TFRecord file
    read in the script's own `read_and_decode(filename_queue)`: `from_tensor_slices(files)`, each file's records
    (its header skipped per file, as the reader did), the record's statements as the function the dataset maps;
    two files, two epochs, the last smaller batch kept: TF1's queue's batches, read back from both."""
    path = tmp_path / ("data.csv" if kind == "csv" else "data.tfrecords")
    rows = [(i * 1.5, -i, i % 3) for i in range(5)]
    if kind == "csv":
        path.write_text("a,b,label\n" + "".join(f"{a},{b},{c}\n" for a, b, c in rows))
        setup, read = "", _CSV.replace("\n", "\n    ")
    else:
        with tf.io.TFRecordWriter(str(path)) as writer:
            for a, b, c in rows:
                writer.write(tf.train.Example(features=tf.train.Features(feature={
                    "x": tf.train.Feature(float_list=tf.train.FloatList(value=[a, b])),
                    "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[c]))})).SerializeToString())
        setup, read = textwrap.indent(textwrap.dedent(_TFRECORD_FUNCTION), "    "), \
            "features, label = read_and_decode(queue)"
    source = textwrap.dedent(_READER_SCRIPT.format(setup=setup, read=read)).replace("PATH", repr(str(path)))
    lines = source.splitlines()
    plan = carried.Plan(graph={"queue", "reader", "value", "a", "b", "label", "features", "xb", "yb", "w", "loss",
                               "train", "sess", "serialized", "parsed"}, train={"train"},
                        methods={"loss": ("model.loss", ["xb", "yb"])}, step_args=["xb", "yb"], loss="loss",
                        tf_names={"tf"}, pipeline={"xb", "yb"})
    kept = carried.rewrite(source, plan, first_step_line=next(i for i, x in enumerate(lines, 1) if "run(train)" in x))
    text = "\n".join([*kept.head, *kept.tail])
    assert kept.todos == [], kept.todos
    records = ("dataset.flat_map(lambda filename: tf.data.TextLineDataset(filename).skip(1))" if kind == "csv" else
               "dataset.flat_map(tf.data.TFRecordDataset)")
    function = "parse_line" if kind == "csv" else "read_and_decode"
    assert f"dataset = {records}\ndataset = dataset.map({function})\ndataset = dataset.batch(3)\n" in text, text
    assert "dataset = dataset.repeat(2)" in text and "Reader(" not in text and "reader.read" not in text, text
    if kind == "csv":  # the module's statements on the record, in the function the dataset maps
        assert "def parse_line(value):\n    a, b, label = tf.io.decode_csv(value, record_defaults=[[0.0], [0.0], [0]])" \
               "\n    features = tf.stack([a, b])\n    return (features, label)" in text, text
    else:  # the script's function takes the record; its reader gone
        assert "def read_and_decode(serialized):\n    parsed = tf.io.parse_single_example(" in text, text
    pipeline = text[text.index(f"def {function}("):text.index("batches = iter(dataset)") + len("batches = iter(dataset)")]
    scope = {"np": np, "tf": tf}
    exec(pipeline, scope)
    tf2 = []
    try:
        while True:
            tf2.append([t.numpy() for t in scope["batches"].get_next()])
    except tf.errors.OutOfRangeError:
        pass
    tf1 = _tf1_batches(source, reader=True)
    assert [len(b[1]) for b in tf1] == [3, 3, 3, 3, 3, 3, 2] == [len(b[1]) for b in tf2]  # 20 records
    for (x1, y1), (x2, y2) in zip(tf1, tf2):
        np.testing.assert_array_equal(x1, x2)
        np.testing.assert_array_equal(y1, y2)
    assert list(np.concatenate([b[1] for b in tf1])) == [r[2] for r in rows] * 4
