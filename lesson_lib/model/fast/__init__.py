"""The fast path: the DeLaN's training loss and its gradient behind one seam, fused.loss_and_grad(theta,
architecture, batch), computed as one autograd node instead of the ~120 operations of
lesson_lib.model.definition.loss, with every reverse pass written by hand and derived next to its code.
tests/test_definition.py holds the two to the same loss and gradient.

- fused        the seam: the loss (and the network's jet) as single autograd nodes, and how a node's forward pass
               hands its pieces to its reverse pass
- jet          each layer's forward and reverse pass on a first-order jet in q
- quadratic    the definition's torque as a quadratic form in the jet, one matrix product per batch
- settings     one BLAS thread while training (scoped to the call)
"""
