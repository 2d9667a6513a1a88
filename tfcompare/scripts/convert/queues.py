"""TF1's queue input pipelines as the `tf.data` pipeline TensorFlow's migration guide gives for them: tensors in
memory sliced by `tf.train.slice_input_producer` and batched by `tf.train.batch` / `tf.train.shuffle_batch` become
`tf.data.Dataset.from_tensor_slices(...)`, shuffled per epoch and repeated as the producer did, then shuffled
(`min_after_dequeue` as the buffer) and batched as the batcher did; each Session.run that read the batch pulls one
(as a tf.data iterator's, `session_runs`). Files read by a reader (`string_input_producer` of file names,
`tf.TextLineReader` / `tf.TFRecordReader`, `reader.read(queue)`) become `Dataset.from_tensor_slices(files)`
`.flat_map(...)` of `TextLineDataset` (its header lines skipped per file) / `TFRecordDataset`, and what the script
computes from the record (`tf.decode_csv`, `tf.parse_single_example`, at module level or in its own
`read_and_decode(filename_queue)`) a function the dataset maps. The `tf.train.Coordinator` and the queue-runner
threads that drove the queues go: TF2 has no queue to start or stop (`coord.should_stop()` is False for good,
`request_stop` / `join` do nothing). A producer or batcher of another form (`enqueue_many`, `dynamic_pad`) is a
TODO.
"""

from __future__ import annotations

import ast

from tfcompare.scripts.convert.plan import GENERATED
from tfcompare.scripts.convert.rewrite_state import RewriteState

__all__ = ["QueueInputs"]

_PRODUCER = ("tensor_list", "num_epochs", "shuffle", "seed", "capacity", "shared_name", "name")
_BATCHERS = {  # TF 1.15's signatures, in argument order
    "train.batch": ("tensors", "batch_size", "num_threads", "capacity", "enqueue_many", "shapes", "dynamic_pad",
                    "allow_smaller_final_batch", "shared_name", "name"),
    "train.shuffle_batch": ("tensors", "batch_size", "capacity", "min_after_dequeue", "num_threads", "seed",
                            "enqueue_many", "shapes", "allow_smaller_final_batch", "shared_name", "name"),
}
_FILES = ("string_tensor", "num_epochs", "shuffle", "seed", "capacity", "shared_name", "name", "cancel_op")
_READERS = {"TextLineReader": "text", "TFRecordReader": "tfrecord"}
_UNWRITTEN = {"enqueue_many", "shapes", "dynamic_pad", "shared_name"}  # another pipeline than the one written
_COORDINATION = {"request_stop", "join", "clear_stop", "wait_for_stop"}


def _arguments(call: ast.Call, params: tuple) -> dict | None:
    """The call's arguments by parameter name; None for `*args` / `**kwargs` or a name the signature lacks."""
    if len(call.args) > len(params) or any(isinstance(a, ast.Starred) for a in call.args) or \
            any(k.arg is None or k.arg not in params for k in call.keywords):
        return None
    return {**dict(zip(params, call.args)), **{k.arg: k.value for k in call.keywords}}


def _names(node) -> list[str] | None:
    """`[a, b]` / `(a, b)` / `a, b` of plain names -> ["a", "b"]; None otherwise."""
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts and all(isinstance(e, ast.Name) for e in node.elts):
        return [e.id for e in node.elts]
    return None


def _false(node) -> bool:
    return node is None or (isinstance(node, ast.Constant) and node.value in (False, None))


class QueueInputs(RewriteState):
    """The rewriter's part for queue pipelines (`_queue`) and their Coordinator (`_unstopped`)."""

    def _queue_call(self, node, paths) -> str | None:
        if isinstance(node, ast.Call):
            path = self._path(node.func)
            return path if path in paths else None
        return None

    def _queue_sources(self) -> set:
        """The names a producer slices (`slice_input_producer([features, labels])`): bound to tensors made in
        memory (`features = tf.convert_to_tensor(features_np)`), which TF2 makes as they are."""
        if self.queue_sources is None:
            self.queue_sources = {name for n in ast.walk(self.tree)
                                  if self._queue_call(n, {"train.slice_input_producer"})
                                  for name in (_names((_arguments(n, _PRODUCER) or {}).get("tensor_list")) or [])}
        return self.queue_sources

    def _queue(self, s, before_step: bool) -> list | None:
        """A statement of a queue pipeline or of its coordination, rewritten; None: not one."""
        value = getattr(s, "value", None)
        if isinstance(s, ast.Expr) and isinstance(value, ast.Call):
            f = value.func
            if isinstance(f, ast.Attribute) and f.attr in _COORDINATION and isinstance(f.value, ast.Name) and \
                    f.value.id in self.coordinators:
                return []  # coord.request_stop(), coord.join(threads): no queue threads in TF2
            if self._queue_call(value, {"train.start_queue_runners"}):
                return []
            return None
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1):
            return None
        target = s.targets[0]
        if isinstance(target, ast.Name) and self._queue_call(value, {"train.Coordinator"}) and not value.args:
            self.coordinators.add(target.id)
            return []
        if isinstance(target, ast.Name) and self._queue_call(value, {"train.start_queue_runners"}):
            self.coordinators.add(target.id)  # the threads: only coord.join reads them
            return []
        read = self._reading(s, target, value, before_step)
        if read is not None:
            return read
        if isinstance(target, ast.Name) and target.id in self._queue_sources() and self._uses_tf(value) and \
                not self._loads(value) & (self.tainted | self.sessions):
            kept = self._renamed(s, plain_only=False)  # features = tf.convert_to_tensor(features_np, ...)
            if kept is not None:
                self.tainted.discard(target.id)
                return [kept]
            return None
        if self._queue_call(value, {"train.slice_input_producer"}):
            args, names = _arguments(value, _PRODUCER), _names(target)
            sliced = _names(args.get("tensor_list")) if args else None
            if names is None or sliced is None or len(names) != len(sliced) or \
                    self._loads(args["tensor_list"]) & (self.tainted | self.sessions):
                return None
            self.producers[tuple(names)] = args
            self.tainted |= set(names)
            self.model_parts += before_step
            return []
        path = self._queue_call(value, set(_BATCHERS))
        if path is None:
            return None
        batched = self._batched(s, path, before_step)
        if batched is None:
            self.tainted |= self._stores(s)
            return [self._todo(s, f"a TF1 {path.split('.')[-1]} queue of a form tfcompare does not write as "
                                  "tf.data")]
        return batched

    def _batched(self, s, path: str, before_step: bool) -> list | None:
        """`x, y = tf.train.shuffle_batch([example, label], ...)` of a producer's tensors: the dataset and its
        iterator (`batches = iter(dataset)`), the batch pulled where a Session.run reads it."""
        args, names = _arguments(s.value, _BATCHERS[path]), _names(s.targets[0])
        if args is None or names is None or not set(names) <= self.plan.pipeline or \
                any(not _false(args.get(k)) for k in _UNWRITTEN):
            return None
        produced = _names(args["tensors"])
        producer = self.producers.get(tuple(produced or ()))
        reading = self.read if self.read and set(produced or ()) <= self.read["names"] else None
        if (producer is None and reading is None) or len(names) != len(produced) or "batch_size" not in args or \
                any(self._loads(v) & (self.tainted | self.sessions) for k, v in args.items() if k != "tensors"):
            return None
        taken = {n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name)} | set(GENERATED) | \
            set(self.iterator_of)

        def free(stem):
            return next(f"{stem}{i or ''}" for i in range(100) if f"{stem}{i or ''}" not in taken)

        dataset, iterator = free("dataset"), free("batches")
        source = producer if reading is None else reading["files"]
        sliced = source["tensor_list"] if reading is None else source["string_tensor"]
        sliced = ast.unparse(ast.Tuple(sliced.elts, ast.Load()) if reading is None else sliced)
        code = [f"{dataset} = tf.data.Dataset.from_tensor_slices({sliced})"]
        epochs = source.get("num_epochs")
        repeat = f".repeat({ast.unparse(epochs)})" if not _false(epochs) else ".repeat()"
        seed = f", seed={ast.unparse(source['seed'])}" if not _false(source.get("seed")) else ""
        if _false(source.get("shuffle")) and "shuffle" in source:
            code.append(f"{dataset} = {dataset}{repeat}")
        else:  # the producer shuffled each epoch's order (of the file names, for a reader)
            code.append(f"{dataset} = {dataset}.shuffle({dataset}.cardinality(){seed}){repeat}")
        parse = []
        if reading is not None:
            code.append(f"{dataset} = {dataset}.flat_map({reading['records']})")
            function = reading.get("function")
            if function is None:  # the statements that computed the batch's tensors from the record
                function = free("parse_line" if reading["kind"] == "text" else "parse_record")
                returned = ", ".join(produced)
                body = "\n".join(f"    {line}" for st in reading["stmts"] for line in ast.unparse(st).split("\n"))
                parse = ast.parse(f"def {function}({reading['value']}):\n{body}\n    return {returned}\n").body
            elif reading["stmts"] or produced != reading["order"]:
                return None  # computed further after the script's own function: not written
            code.append(f"{dataset} = {dataset}.map({function})")
        batch = f".batch({ast.unparse(args['batch_size'])}" + \
            (")" if not _false(args.get("allow_smaller_final_batch")) else ", drop_remainder=True)")
        if path == "train.shuffle_batch":
            seed = f", seed={ast.unparse(args['seed'])}" if not _false(args.get("seed")) else ""
            batch = f".shuffle({ast.unparse(args['min_after_dequeue'])}{seed})" + batch
        code += [f"{dataset} = {dataset}{batch}", f"{iterator} = iter({dataset})"]
        self.iterator_of[iterator] = ast.Name(dataset, ast.Load())
        self.pull_targets[iterator] = s.targets[0]
        self.pulled_by.update({name: iterator for name in names})
        self.tainted |= set(names)
        self.model_parts += before_step
        self.read = None
        note = self._note(f"TF1's {path.split('.')[-1]} queue (TF1 line {s.lineno}) as a tf.data pipeline: the "
                          "same examples and batches, in an order tf.data draws")
        return [*(ast.copy_location(stmt, s) for stmt in parse), note,
                *(ast.copy_location(stmt, s) for stmt in ast.parse("\n".join(code)).body)]

    def _reading(self, s, target, value, before_step: bool) -> list | None:
        """A statement of a reader pipeline, recorded (its dataset is written at the batcher); None: not one."""
        if isinstance(target, ast.Name) and self._queue_call(value, {"train.string_input_producer"}):
            args = _arguments(value, _FILES)
            if args is None or "string_tensor" not in args or not _false(args.get("cancel_op")) or \
                    self._loads(args["string_tensor"]) & (self.tainted | self.sessions):
                return None
            self.file_queues[target.id] = args
            return self._recorded(target, before_step)
        reader = self._reader_kind(value)
        if isinstance(target, ast.Name) and reader is not None:
            keywords = {k.arg: k.value for k in value.keywords}
            if value.args or set(keywords) - {"skip_header_lines", "name"}:
                return None
            self.readers[target.id] = (reader, keywords.get("skip_header_lines"))
            return self._recorded(target, before_step)
        records = self._records(value)
        if records is not None and _names(target) and len(target.elts) == 2:  # _, value = reader.read(queue)
            self.read = {**records, "value": target.elts[1].id, "names": {target.elts[1].id}, "stmts": []}
            return self._recorded(target, before_step)
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
                value.func.id in self.reader_functions and len(value.args) == 1 and not value.keywords and \
                isinstance(value.args[0], ast.Name) and value.args[0].id in self.file_queues and _names(target):
            kind, skip = self.reader_functions[value.func.id]  # x, y = read_and_decode(filename_queue)
            self.read = {**self._records_of(kind, skip, value.args[0].id), "function": value.func.id,
                         "order": _names(target), "names": set(_names(target)), "stmts": []}
            return self._recorded(target, before_step)
        if self.read and self._loads(s) & self.read["names"] and not self._has_run(s) and \
                not self._loads(s) & (self.tainted - self.read["names"] | self.sessions):
            kept = self._renamed(s, plain_only=False)  # computed from the record: in the function the dataset maps
            if kept is None:
                return None
            self.read["stmts"].append(kept)
            self.read["names"] |= self._stores(s)
            return self._recorded(target, before_step)
        return None

    def _reader_kind(self, value) -> str | None:
        """"text" / "tfrecord" for `tf.TextLineReader(...)` / `tf.TFRecordReader()`; None otherwise."""
        return _READERS.get((self._path(value.func) or "").split(".")[-1]) if isinstance(value, ast.Call) else None

    def _recorded(self, target, before_step: bool) -> list:
        self.tainted |= self._stores(target)
        self.model_parts += before_step
        return []

    def _records(self, value) -> dict | None:
        """`reader.read(filename_queue)` of a reader and a file-name queue the script made: how its records are
        read in tf.data."""
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "read"
                and isinstance(value.func.value, ast.Name) and value.func.value.id in self.readers and
                len(value.args) == 1 and not value.keywords and isinstance(value.args[0], ast.Name) and
                value.args[0].id in self.file_queues):
            return None
        return self._records_of(*self.readers[value.func.value.id], value.args[0].id)

    def _records_of(self, kind: str, skip, queue: str) -> dict:
        if kind == "tfrecord":
            records = "tf.data.TFRecordDataset"
        else:  # each file's header lines skipped, as the reader did per file
            lines = "tf.data.TextLineDataset(filename)" + (f".skip({ast.unparse(skip)})" if not _false(skip) else "")
            records = f"lambda filename: {lines}"
        return {"kind": kind, "records": records, "files": self.file_queues[queue]}

    def _reader_function(self, s: ast.FunctionDef) -> list | None:
        """`def read_and_decode(filename_queue):` whose first statements make a reader and read the queue: the
        function the dataset maps, taking the record (`def read_and_decode(serialized_example):`); None: not one."""
        body, args = s.body, s.args
        if len(args.args) != 1 or args.vararg or args.kwarg or args.kwonlyargs or args.defaults or len(body) < 3:
            return None
        first, second = body[0], body[1]
        value = getattr(first, "value", None)
        reader = self._reader_kind(value)
        if not (isinstance(first, ast.Assign) and isinstance(first.targets[0], ast.Name) and reader and
                not value.args and {k.arg for k in value.keywords} <= {"skip_header_lines"}):
            return None
        read = getattr(second, "value", None)
        if not (isinstance(second, ast.Assign) and _names(second.targets[0]) and len(second.targets[0].elts) == 2
                and isinstance(read, ast.Call) and isinstance(read.func, ast.Attribute) and read.func.attr == "read"
                and isinstance(read.func.value, ast.Name) and read.func.value.id == first.targets[0].id and
                [ast.dump(a) for a in read.args] == [ast.dump(ast.Name(args.args[0].arg, ast.Load()))]):
            return None
        rest = ast.Module(body[2:], [])
        if self._loads(rest) & {first.targets[0].id, args.args[0].arg} or self._has_run(rest):
            return None
        kept = self._renamed(rest, plain_only=False)
        if kept is None:
            return None
        skip = next((k.value for k in value.keywords if k.arg == "skip_header_lines"), None)
        self.reader_functions[s.name] = (reader, skip)
        s.args.args = [ast.arg(second.targets[0].elts[1].id)]
        s.body = kept.body
        return [s]

    def _unstopped(self, test):
        """A loop's or a branch's test with the Coordinator's `coord.should_stop()` read as False: `while not
        coord.should_stop() and step < N` is `while step < N` (nothing stops TF2's pipeline but its end)."""
        coordinators = self.coordinators

        def stop(node) -> bool:
            return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "should_stop" and isinstance(node.func.value, ast.Name) and \
                node.func.value.id in coordinators and not node.args

        class Unstopped(ast.NodeTransformer):
            def visit_BoolOp(self, node):
                self.generic_visit(node)
                if isinstance(node.op, ast.And):
                    kept = [v for v in node.values if not (isinstance(v, ast.Constant) and v.value is True)]
                    return ast.Constant(True) if not kept else kept[0] if len(kept) == 1 else \
                        ast.BoolOp(node.op, kept)
                return node

            def visit_UnaryOp(self, node):
                if isinstance(node.op, ast.Not) and stop(node.operand):
                    return ast.Constant(True)
                return self.generic_visit(node)

            def visit_Call(self, node):
                return ast.Constant(False) if stop(node) else self.generic_visit(node)

        return ast.fix_missing_locations(Unstopped().visit(test)) if coordinators else test
