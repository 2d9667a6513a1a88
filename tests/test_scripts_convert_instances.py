"""A class the script builds several times, each instance a network trained by its own optimizer
(`convert/instances.py`): which instances are one TF2 class (the same computation, their own variables), and what
the class's constructor takes in place of TF1's optimizer arguments."""

import ast
import textwrap

import tensorflow as tf

from tfcompare.scripts.convert.instances import _optimizer_params, find_instanced

v1 = tf.compat.v1

_SOURCE = textwrap.dedent('''
    class Net:
        def __init__(self, activation, width, opt, **kwargs):
            pass
''')


class Net:
    """What the script's class builds: a placeholder, one hidden layer, a loss and a train op."""

    def __init__(self, activation, width, opt):
        self.x = v1.placeholder(tf.float32, [None, 3])
        self.y = v1.placeholder(tf.float32, [None, 1])
        h = activation(tf.matmul(self.x, v1.get_variable(f"w{id(self)}", [3, width])))
        out = tf.matmul(h, v1.get_variable(f"v{id(self)}", [width, 1]))
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
