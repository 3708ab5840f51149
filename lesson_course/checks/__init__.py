"""Checks for the course's exercises, one module per notebook, each registered by `framework.register`.

    from lesson_course import checks
    checks.kinetic_energy(kinetic_energy)        # in a check cell: prints one PASS / FAIL / NOT ATTEMPTED line
    checks.evaluate("kinetic_energy", fn)        # the same without printing: (status, line)
    checks.REGISTRY["kinetic_energy"]            # .name, .notebook ("02_model"), .function (the learner's)

The framework (the registry, `call`, `Fail`, the one line, the hints) is in framework.py; the independent truths
the checks compare with are in independent.py.  `lesson-tools check` fails when a registered check is
used by no notebook, or a notebook's check cell calls one that is not registered.
"""
from .framework import (
    DETAILS,
    GENERAL_HINTS,
    NOT_ATTEMPTED,
    REGISTRY,
    Check,
    Fail,
    Outcome,
    as_array,
    call,
    evaluate,
    num,
    outcome,
    register,
)
from .independent import closed_form_mass_matrix, mass_matrix_derivative_fd, three_link
from .nb00_start_here import total_mass
from .nb01_challenge import is_valid_inertia
from .nb02_model import coriolis_from_dM, kinetic_energy, layer_jet, mass_matrix_from_rnea
from .nb03_guided_practice import errors_at
from .nb04_feedback import lesson_passes
from .nb05_retrieve_and_space import symplectic_euler_step
from .nb06_mastery_and_project import (
    TRIPLE_LENGTHS,
    TRIPLE_MASS,
    reference_triple_pendulum,
    triple_delan,
    triple_pendulum,
)
from .nb07_write_with_the_model import computed_torque
from .nb08_learn_from_what_the_robot_records import second_difference
