"""A class the script builds several times, each instance a network trained by its own optimizer
(`convert/instances.py`): which instances are one TF2 class (the same computation, their own variables), and what
the class's constructor takes in place of TF1's optimizer arguments."""

import ast
import textwrap

import tensorflow as tf

from tfcompare.scripts.convert.instances import _optimizer_params, find_instanced
from tfcompare.scripts.convert.instance_params import varying

v1 = tf.compat.v1

_SOURCE = textwrap.dedent('''
    class Net:
        def __init__(self, activation, width, opt, **kwargs):
            pass
''')


class Net:
    """What the script's class builds: a placeholder, one hidden layer, a loss and a train op."""

    def __init__(self, activation, width, opt, scale=1.0):
        self.x = v1.placeholder(tf.float32, [None, 3])
        self.y = v1.placeholder(tf.float32, [None, 1])
        h = activation(tf.matmul(self.x, v1.get_variable(f"w{id(self)}", [3, width])))
        out = tf.matmul(h * scale if scale != 1.0 else h, v1.get_variable(f"v{id(self)}", [width, 1]))
        self.loss = tf.reduce_mean(tf.square(self.y - out))
        self.optimizer = opt
        self.grads_and_vars = opt.compute_gradients(self.loss)
        self.train = opt.apply_gradients(self.grads_and_vars)


def _found(nets):
    # as convert's child records them: the pairs with a gradient (minimize gives the others None)
    entries = [{"train_op": n.train, "loss": n.loss, "grads_and_vars": [(g, v) for g, v in n.grads_and_vars
                                                                        if g is not None]} for n in nets]
    return {**entries[0], "entries": entries}


def _instanced(*specs):
    tree = ast.parse(_SOURCE)
    with tf.Graph().as_default():
        nets = [Net(activation, width, v1.train.GradientDescentOptimizer(rate)) for activation, width, rate in specs]
        return find_instanced(tree, {"Net": Net, "nets": nets}, _found(nets))


def test_instances_that_compute_the_same_are_one_class_and_others_are_not():
    """Only the optimizers differ: one class, its instances held in the list in order. Another activation or
    another width: each instance computes something else, and a class written from the first would train the
    others wrongly (it would be proven wrong by pair, but never written right): not this kind."""
    inst = _instanced((tf.nn.relu, 4, 0.1), (tf.nn.relu, 4, 0.01), (tf.nn.relu, 4, 0.5))
    assert inst is not None and inst.cls == "Net" and inst.train == "train"
    assert [label for label, _, _ in inst.instances] == ["nets[0]", "nets[1]", "nets[2]"]
    assert sorted(inst.placeholders) == ["x", "y"] and inst.tensors == ["loss"]
    for other in ((tf.nn.tanh, 4, 0.1), (tf.nn.relu, 8, 0.1)):
        why = _instanced((tf.nn.relu, 4, 0.1), other)
        assert isinstance(why, str) and "but nets[1] computes otherwise than nets[0]" in why, why
    assert _instanced((tf.nn.relu, 4, 0.1),) is None  # one instance: the plain rewrite's


def test_the_constructor_takes_the_optimizer_in_place_of_the_parameters_only_it_read():
    def params(body: str) -> set:
        return _optimizer_params(ast.parse(textwrap.dedent(body)).body[0])

    assert params('''
        def __init__(self, opt, name, **kwargs):
            self.name = name
            self.train = opt(LR, **kwargs).minimize(self.loss)
    ''') == {"opt", "kwargs"}
    # bound to an attribute first, then minimized: the same
    assert params('''
        def __init__(self, name, opt_class, **opt_kwargs):
            self.optimizer = opt_class(LR, **opt_kwargs)
            self.train_op = self.optimizer.minimize(self.loss)
    ''') == {"opt_class", "opt_kwargs"}
    # a learning rate read elsewhere too (a summary of it) stays a parameter of its own
    assert params('''
        def __init__(self, lr):
            tf.summary.scalar('lr', lr)
            self.train = tf.train.AdamOptimizer(lr).minimize(self.loss)
    ''') == set()


def _varying(*calls):
    """The script's `nets = [Net(...), ...]` built as written: where its instances differ, as the arguments say."""
    tree = ast.parse(_SOURCE + f"nets = [{', '.join(calls)}]\n")
    init = tree.body[0].body[0]
    with tf.Graph().as_default():
        nets = eval(f"[{', '.join(calls)}]", {"Net": Net, "tf": v1, "OPT": v1.train.GradientDescentOptimizer})
        found = _found(nets)
        how = varying(init, tree.body[1].value.elts, found["entries"], {"Net": Net, "tf": v1}, {"opt"})
        return how, nets


def test_instances_that_differ_by_an_activation_or_a_width_argument_are_one_class_reading_it():
    """The graphs differ where an argument reaches them and nowhere else: the activation's op (the first's Relu,
    each instance's its own function's) and the variables' dimensions of the width. A difference no argument
    explains (a constant), or an argument that is not a literal or a dotted name, and they are not one class."""
    how, nets = _varying("Net(tf.nn.relu, 4, OPT(0.1))", "Net(tf.nn.tanh, 4, OPT(0.5))", "Net(tf.sigmoid, 8, OPT(0.1))")
    [(op, param)] = how.activations.items()
    assert param == "activation" and nets[0].loss.graph.get_operation_by_name(op).type == "Relu"
    w, v = (f"{k}{id(nets[0])}" for k in "wv")
    assert how.dims == {w: (3, "width"), v: ("width", 1)}
    how, _ = _varying("Net(tf.nn.relu, 4, OPT(0.1))", "Net(tf.nn.relu, 4, OPT(0.5))")
    assert how.activations == {} and how.dims == {}  # only what the optimizer reads differs
    # a width that also reaches a constant (h * 0.5 in one): not explained by it
    assert _varying("Net(tf.nn.relu, 4, OPT(0.1))", "Net(tf.nn.relu, 8, OPT(0.1), scale=0.5)")[0] is None
    # the same activation under another width: the Relu's output shape differs, explained by the width
    assert _varying("Net(tf.nn.relu, 4, OPT(0.1))", "Net(tf.nn.relu, 6, OPT(0.1))")[0].activations == {}
    # an argument given by an expression (not evaluated), and a function that is no one op: not this kind
    assert _varying("Net(tf.nn.relu, 4, OPT(0.1))", "Net([tf.nn.tanh][0], 4, OPT(0.1))")[0] is None
    assert _varying("Net(tf.nn.relu, 4, OPT(0.1))", "Net(tf.nn.swish, 4, OPT(0.1))")[0] is None
    # instances whose activation is the first's though another's is not: each one's op checked against its own
    assert _varying("Net(tf.nn.relu, 4, OPT(0.1))", "Net(tf.nn.tanh, 4, OPT(0.1))",
                    "Net(tf.nn.relu, 4, OPT(0.1))")[0].activations != {}
