"""Adam (Kingma & Ba 2015, Algorithm 1), as autograd.misc.optimizers.adam writes it, with its moments kept between
calls so that a model's next fit goes on where the last one stopped, and an average of its iterates (Polyak
averaging, as TensorFlow's ExponentialMovingAverage keeps it):

    m    = b1 m + (1 - b1) g,        v    = b2 v + (1 - b2) g^2          (moment estimates, from 0)
    mhat = m / (1 - b1^t),           vhat = v / (1 - b2^t)               (their bias corrections)
    theta = theta - lr mhat / (sqrt(vhat) + eps)
    average = d average + (1 - d) theta,   d = min(decay, (k - 1) / (k + 8)),   k = the iterates averaged

The average starts at the first iterate (k = 1, d = 0), then spans about the last tenth of the steps, up to the last
1 / (1 - decay); k counts from the start, or from the weights set_params gave (lesson_lib.model.trainable).  It is
the weights fit keeps: a step's noise averages out, so the average is nearer the minimum than any one iterate
(lesson_lib.model.training).  b1 = 0.95 and b2 = 0.99 (the paper's 0.9 and 0.999) let the moments follow a loss that
falls by orders of magnitude within a press; benchmarks/bench_learning_speed.py measures what each choice is worth.
fit_verlet (lesson_lib.model.verlet) steps with the same Adam and keeps its last iterate.  The model
(lesson_lib.model.trainable) checks the learning rate it is given; the schedule (lesson_lib.model.schedule) changes it
between steps."""
import numpy as np


class Adam:
    """Adam's state: the learning rate lr, the moments m and v (n,), the step count t, and the average (n,) of the
    last `averaged` iterates.

    >>> adam = Adam(lr=0.1, n=2)
    >>> adam.step(np.array([1.0, 1.0]), np.array([2.0, -0.5]))        # the first step: lr sign(g)
    array([0.9, 1.1])
    >>> adam.average                                                  # the first iterate
    array([0.9, 1.1])"""

    b1, b2, eps = 0.95, 0.99, 1e-8
    decay = 0.999

    def __init__(self, lr, n=0):
        self.lr, self.m, self.v, self.t = lr, np.zeros(n), np.zeros(n), 0
        self.average, self.averaged = np.zeros(n), 0

    def step(self, theta, g):
        """The weights after one step from theta (n,) along the gradient g (n,); the average takes them in.

        >>> adam = Adam(lr=0.1, n=1)
        >>> [adam.step(np.array([0.0]), np.array([g])).round(3).tolist() for g in (4.0, 4.0)]    # lr sign(g)
        [[-0.1], [-0.1]]
        >>> adam.average.round(3)                                     # d = 1/10 at the second iterate
        array([-0.1])"""
        self.t += 1
        self.m = self.b1 * self.m + (1 - self.b1) * g
        self.v = self.b2 * self.v + (1 - self.b2) * g ** 2
        mhat = self.m / (1 - self.b1 ** self.t)
        vhat = self.v / (1 - self.b2 ** self.t)
        theta = theta - self.lr * mhat / (np.sqrt(vhat) + self.eps)
        self.averaged += 1
        d = min(self.decay, (self.averaged - 1) / (self.averaged + 8))
        self.average = d * self.average + (1 - d) * theta
        return theta

    def start_average(self, theta):
        """The average starts again at the weights theta (n,), which the next iterate replaces (k = 1, d = 0): what
        the weights a model is given (set_params, a new model) hold until the first step.

        >>> adam = Adam(lr=0.1, n=1)
        >>> adam.start_average(np.array([5.0]))
        >>> adam.average, adam.step(np.array([0.0]), np.array([1.0])), adam.average
        (array([5.]), array([-0.1]), array([-0.1]))"""
        self.average, self.averaged = np.array(theta, dtype=float), 0

    def state(self):
        """Copies of m, v and the average, and t, lr and the count averaged: what a saved model and an undone fit
        keep.

        >>> Adam(lr=0.1, n=2).state()["t"]
        0"""
        return {"m": self.m.copy(), "v": self.v.copy(), "t": self.t, "lr": self.lr, "average": self.average.copy(),
                "averaged": self.averaged}

    def set_state(self, state):
        """Put back a state that state() exported (the moments and the average copied as floats).

        >>> adam = Adam(lr=0.1, n=2)
        >>> adam.set_state({"m": [1, 2], "v": [3, 4], "t": 5, "lr": 0.01, "average": [0, 1], "averaged": 5})
        >>> adam.m, adam.t, adam.lr
        (array([1., 2.]), 5, 0.01)"""
        self.m, self.v = np.array(state["m"], dtype=float), np.array(state["v"], dtype=float)
        self.t, self.lr = int(state["t"]), float(state["lr"])
        self.average, self.averaged = np.array(state["average"], dtype=float), int(state["averaged"])

    @classmethod
    def config(cls):
        """Its name and hyperparameters, as a saved model records them.

        >>> Adam.config()
        {'name': 'adam', 'b1': 0.95, 'b2': 0.99, 'eps': 1e-08, 'decay': 0.999}"""
        return {"name": "adam", "b1": cls.b1, "b2": cls.b2, "eps": cls.eps, "decay": cls.decay}
