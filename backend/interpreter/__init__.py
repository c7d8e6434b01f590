"""The CPU interpreter of regcopy IR, one module per dialect it adds to xDSL's interpreter
(``arith``: ``ArithFunctions`` additions and ``casts``; ``vector``; ``regcopy``: the ``gpu``,
``memref`` and ``regcopy`` ops), the PTX semantics of ``ldmatrix``/``stmatrix`` (``ldmatrix``),
the buffers, the launch facts, and how a CTA's threads run (``cta_barrier``: barrier phases;
``warp_sync``: warp lockstep). ``driver.launch`` runs a kernel."""
