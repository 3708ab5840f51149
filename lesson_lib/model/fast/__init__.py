"""The fast path: the DeLaN's loss computed as one fused autograd primitive instead of the ~120 operations of
its definition (lesson_lib.model.definition), with every reverse pass written by hand and derived next to its code.
tests/test_definition.py holds the two to the same loss and gradient.

- loss         the training loss as one primitive: the jet, the torque, the scaled squared error; and its value
               and gradient from the same passes without autograd's tracing (what fit calls)
- jet          the network pushing a first-order jet in q through every layer (forward and reverse side by side)
- quadratic    the torque as a quadratic form in the jet, one matrix product per batch (up to 3 joints)
- manipulator  from the jet of L and V to M, dM/dq, c, g and tau, for any arm (its einsum form)
- primitive    fused_primitive: one autograd node whose reverse pass reuses its forward pass's pieces (and
               f.value_and_grad: both passes called directly, the same numbers as autograd's)
- settings     BLAS threads and glibc's allocator while training (scoped to the call)
"""
