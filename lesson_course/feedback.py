"""The lesson's PASS check as a learner reads it: a verdict, the numbers, and specific hints when it fails.

    from lesson_course.feedback import report
    report(model, chain)     # prints "PASS: ..." or "FAIL: ..." followed by what to do
"""
import numpy as np

from lesson_lib import facts
from lesson_lib.evaluation.metrics import compare_mass_matrices, torus_grid

from .notebook import wrapped


def diagnose(model, chain, points=None):
    """Numbers behind the verdict: max error, where it is worst, smallest eigenvalue, and the hints.
    points: grid points per angle (default facts.GRID_POINTS); the threshold and a press's steps come from
    lesson_lib.facts when called."""
    threshold, press = facts.PASS_MAX_ERROR, facts.STEPS_PER_PRESS
    q = torus_grid(chain.n_dof, facts.GRID_POINTS if points is None else points)
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    result = compare_mass_matrices(M_hat, M)
    err = np.abs(M_hat - M)
    worst = np.unravel_index(np.argmax(err), err.shape)
    result.update(worst_q=q[worst[0]], worst_entry=tuple(int(i) for i in worst[1:]), steps=int(model.step))
    hints = []
    if result["min_eig"] <= 0:
        hints.append("The learned M is not positive-definite somewhere. With M = L L^T + eps I and a softplus "
                     "diagonal that cannot happen: check that eps > 0 and that the diagonal of L goes through "
                     "softplus.")
    if result["max_error"] >= threshold:
        if model.step == 0:
            hints.append(f"The model is untrained (step 0): train it, model.fit(data, steps={press}) (one "
                         f"press of Train\u00a0x{press} on notebook 03's Bench).")
        elif model.step < press:
            hints.append(f"Only {model.step} training steps so far: train {press} more, model.fit(data, "
                         f"steps={press}) again (Train\u00a0x{press} on notebook 03's Bench); training continues where "
                         f"it stopped.")
        else:
            hints.append(f"Still above {facts.text('PASS_MAX_ERROR')} after {model.step} steps: press Train again; "
                         f"if the loss stopped falling, lower the learning rate (model.lr) or use more training "
                         f"data (more samples, the whole circle of q).")
        i, j = result["worst_entry"]
        where = ",".join(f"{v:.2f}" for v in result["worst_q"])     # no space: one word, never wrapped
        hints.append(f"The error is worst in M[{i},{j}] at q = ({where}) rad: compare model.mass_matrix([{where}]) "
                     f"with chain.mass_matrix([{where}]) (or drag the sliders there on notebook 03's Bench).")
    result["hints"] = hints
    return result


def report(model, chain):
    """Print the verdict (one line starting with PASS: or FAIL:) and, on FAIL, one hint per line."""
    d = diagnose(model, chain)
    numbers = (f"max |M_hat - M| = {d['max_error']:.3f} (needs < {facts.text('PASS_MAX_ERROR')}), "
               f"min eigenvalue = {d['min_eig']:.3f} (needs > 0), after {d['steps']} steps")
    if d["passed"]:
        print(f"PASS: the learned M matches the true M on the whole torus and is SPD: {numbers}")
    else:
        print(f"FAIL: {numbers}")
        for hint in d["hints"]:                         # wrapped at spaces: no word broken by the front end
            print(wrapped(hint, "  hint: "))
    return None
