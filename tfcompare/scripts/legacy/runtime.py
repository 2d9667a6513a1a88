"""Install the legacy runtime into the process that runs a TF1 script: `tf.contrib.*`, `tf.estimator`, and
`tf.nn.rnn_cell` and `tf.layers` without tf-keras, each from `coverage.NAMESPACES`; anything else under them is refused with
one message (`coverage.refusal`).

Only `install()` changes anything: it puts `contrib` / `estimator` on the `tensorflow.compat.v1` module objects a
script sees (and `contrib` on `tensorflow`), and a finder on `sys.meta_path` that serves
`import tensorflow.contrib.rnn`, `from tensorflow.contrib import layers`, `import tensorflow.contrib.eager as
tfe`. It returns the function that undoes all of it. Importing this module (or tfcompare) changes nothing.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

from tfcompare.scripts.legacy.coverage import NAMESPACES, REFUSAL_MARK, provided, refusal

__all__ = ["install", "NotProvided", "is_refusal", "learn_datasets_contents", "mnist_contents"]

_ROOTS = ("contrib", "estimator")
_LEARN_ALIASES = {"contrib.learn.python.learn.datasets": "contrib.learn.datasets",
                  "contrib.learn.python.learn.datasets.mnist": "contrib.learn.datasets.mnist",
                  "contrib.learn.python.learn.preprocessing": "contrib.learn.preprocessing"}
_TUTORIAL_LOADER = "tensorflow.examples.tutorials.mnist.input_data"


class NotProvided(AttributeError):
    """A removed API the legacy runtime does not implement (an AttributeError, so `hasattr` says False)."""


def is_refusal(exc: BaseException) -> bool:
    """Whether `exc` is the runtime's refusal of a removed API (`NotProvided`, or the ModuleNotFoundError of an
    import it refuses): its message names the API and its replacement; a traceback would add nothing."""
    return isinstance(exc, NotProvided) or (isinstance(exc, ModuleNotFoundError) and REFUSAL_MARK in str(exc))


def _read_data_sets(*args, **kwargs):
    """contrib.learn's MNIST loader is the tutorials' one: whatever the process installed for
    `tensorflow.examples.tutorials.mnist.input_data` (pair's and run-tf1's seeded synthetic MNIST)."""
    loader = sys.modules.get(_TUTORIAL_LOADER)
    if loader is None:
        raise NotProvided("tf.contrib.learn.datasets.mnist.read_data_sets downloads MNIST, which tfcompare does not "
                          "do; under `tfcompare run-tf1` and `tfcompare pair` it returns seeded synthetic examples. "
                          "In TF2: keras.datasets.mnist.load_data()")
    return loader.read_data_sets(*args, **kwargs)


def mnist_contents() -> dict:
    return {"read_data_sets": _read_data_sets, "load_mnist": lambda train_dir="MNIST-data": _read_data_sets(train_dir)}


def learn_datasets_contents() -> dict:
    def load_dataset(name, size="small", test_with_fake_data=False):
        if name != "mnist":
            raise NotProvided(refusal(f"contrib.learn.datasets.load_dataset({name!r})"))
        return _read_data_sets("MNIST_data")
    return {"load_dataset": load_dataset}


class _Legacy(types.ModuleType):
    """A namespace of the runtime: its provided names (noted on first use), its sub-namespaces (attached on first
    use), and a refusal for any other name."""

    def __init__(self, rel: str, runtime: "_Runtime", name: str | None = None):
        super().__init__(name or f"tensorflow.{rel}")
        self.__path__ = []
        self.__spec__ = importlib.machinery.ModuleSpec(self.__name__, None, is_package=True)
        object.__setattr__(self, "_rel", rel)
        object.__setattr__(self, "_runtime", runtime)
        object.__setattr__(self, "_contents", provided(rel) if rel in NAMESPACES else {})
        self.__all__ = sorted(self._contents)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self._contents:
            self._runtime.note(self._rel)
            setattr(self, name, self._contents[name])
            return self._contents[name]
        child = self._runtime.module(f"{self._rel}.{name}")
        if child is not None:
            return child
        raise NotProvided(refusal(f"{self._rel}.{name}", self._runtime.script))


class _Runtime(importlib.abc.MetaPathFinder):
    def __init__(self, script: str | None, notes: list[str] | None):
        self.script, self.notes = script, notes
        self.modules: dict[str, _Legacy] = {}

    def _known(self, rel: str) -> bool:
        rel = _LEARN_ALIASES.get(rel, rel)
        under = [n for n in [*NAMESPACES, *_LEARN_ALIASES] if n.split(".")[0] in _ROOTS]
        return rel in _ROOTS or any(n == rel or n.startswith(rel + ".") for n in under)

    def module(self, rel: str) -> _Legacy | None:
        """The runtime's module for `rel` (built, attached to its parent and noted on first use), or None."""
        if not self._known(rel):
            return None
        target = _LEARN_ALIASES.get(rel, rel)
        if rel not in self.modules:
            module = self.modules[target] if target in self.modules and target != rel else _Legacy(target, self)
            self.modules[rel] = module
            if target != rel:
                self.modules.setdefault(target, module)
            parent, _, leaf = rel.rpartition(".")
            if parent:
                setattr(self.module(parent), leaf, module)
        return self.modules[rel]

    def note(self, rel: str) -> None:
        """Say once per namespace that the script used it from the runtime (pair and run-tf1 print the notes)."""
        text = (f"tf.{rel} came from tfcompare's legacy runtime (TF 1.15's definitions on tf.compat.v1), not from "
                "TensorFlow 1.x")
        if self.notes is not None and text not in self.notes:
            self.notes.append(text)

    def find_spec(self, fullname, path=None, target=None):
        root = fullname.split(".")
        if root[0] != "tensorflow" or len(root) < 2 or root[1] not in _ROOTS:
            return None
        module = self.module(fullname[len("tensorflow."):])
        if module is None:
            # no `name=`: `from tensorflow.contrib import slim` would swallow an error naming the module it tried
            raise ModuleNotFoundError(refusal(fullname, self.script))
        return importlib.machinery.ModuleSpec(fullname, _Loader(module), is_package=True)


class _Loader(importlib.abc.Loader):
    def __init__(self, module):
        self._module = module

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        pass


def _compat_v1_modules(tf) -> list:
    """`tf.compat.v1` and the `tensorflow.compat.v1` an import gives can be different objects: both are set."""
    return list({id(m): m for m in (tf.compat.v1, importlib.import_module("tensorflow.compat.v1"))}.values())


def _missing(owner, namespace: str, probe: str) -> bool:
    """Whether `owner.namespace` (tf-keras's under Keras 3) fails to give `probe`: then the runtime serves it."""
    if isinstance(getattr(owner, namespace, None), _Legacy):  # already ours (the other module object's)
        return False
    try:
        getattr(getattr(owner, namespace), probe)
        return False
    except (AttributeError, ImportError):
        return True


def install(script: str | None = None, notes: list[str] | None = None):
    """Install the runtime in this process (the child that runs a TF1 script); returns the undo function.

    script: named in refusals (`tfcompare migrate SCRIPT`); notes: gets one line per namespace the script uses."""
    import tensorflow as tf

    runtime = _Runtime(script, notes)
    saved: list[tuple[object, str, object]] = []
    missing = object()

    def put(owner, name, value):
        saved.append((owner, name, getattr(owner, name, missing)))
        setattr(owner, name, value)

    contrib, estimator = runtime.module("contrib"), runtime.module("estimator")
    runtime.module("estimator.inputs")
    put(tf, "contrib", contrib)
    for v1 in _compat_v1_modules(tf):
        put(v1, "contrib", contrib)
        put(v1, "estimator", estimator)
        if _missing(v1.nn, "rnn_cell", "LSTMCell"):
            put(v1.nn, "rnn_cell", _Legacy("nn.rnn_cell", runtime, "tensorflow.compat.v1.nn.rnn_cell"))
        if _missing(v1, "layers", "dense"):
            put(v1, "layers", _Legacy("layers", runtime, "tensorflow.compat.v1.layers"))
    sys.meta_path.insert(0, runtime)

    def undo():
        if runtime in sys.meta_path:
            sys.meta_path.remove(runtime)
        for name in [n for n, m in sys.modules.items() if isinstance(m, _Legacy)]:
            del sys.modules[name]
        for owner, name, value in reversed(saved):
            if value is missing:
                try:
                    delattr(owner, name)
                except AttributeError:
                    pass
            else:
                setattr(owner, name, value)

    return undo
