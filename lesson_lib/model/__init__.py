"""Learned models: the Deep Lagrangian Network, the black box foil, and what they are built from.

Read in this order: `definition` (the DeLaN, one function per equation, in plain autograd: what `DeLaN` computes
with, and the table of activations), `delan` (DeLaN: M, c, g, tau at any state), `blackbox` (the foil),
`diagonal` (a DeLaN with a diagonal M: where the next structured model goes), `fast` (the same loss, its gradient
and the network's jet as single autograd nodes, tested equal to `definition.loss`), `quadratic` (what that jet
means: L, dL, V, g read off it, and the torque as a quadratic form in it), then training, one concern a
module: `trainable` (what every model shares: its weights and state, fit's transaction, save and load), `training`
(fit's loop: minibatches, the divergence guard, validation, best weights), `adam` (the optimiser), `schedule` (the
learning rate on plateaus and spikes), `potential_readout` (V's readout solved at the end of a call),
`training_data` (fit's data: checks, sample weights, the validation split),
`model_file` (the saved file) and `verlet` (training from recorded positions through Störmer–Verlet: fit_verlet).

One training step, module by module (facts and limits name the numbers):

    DeLaN.fit -> Trainable.fit:  the arguments and data checked once          trainable.py, training_data.py
                 training.train:  minibatch, guard, Adam.step, validation     training.py, adam.py, schedule.py
                 DeLaN.batch_loss_and_grad                                         delan.py
                 fast.loss_and_grad:  network_and_vjp -> quadratic_torque -> loss, and back   fast.py
                 the form's coefficients, read off definition.torque once per arm  quadratic.py, definition.py
"""
from .blackbox import BlackBox
from .delan import DeLaN
from .training import TrainingDiverged

__all__ = ["DeLaN", "BlackBox", "TrainingDiverged"]
