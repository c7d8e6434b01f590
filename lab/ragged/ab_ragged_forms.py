#!/usr/bin/env python3
"""A/B on the GPU: the bench_ragged kernel (no divisibility promise) under four forms of the
lowering, generated from this tree, timed by ``lab/ragged/ab_sources.py`` in one process:

* ``base``: neither of the two below;
* ``reach``: the rounds of a thread none of whose elements can be in bounds are skipped
  (``emit_bounds._reach``: one ``scf.if`` on the checks that no round changes);
* ``hoist``: a guarded global load takes its address before its ``if``
  (``cuda.printer.guarded_accesses``);
* ``reach+hoist``: both (what the tree emits).

    python3 lab/ragged/ab_ragged_forms.py [DIR]     # DIR (default: a temporary one) keeps them
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import regcopy_backend.cuda.printer as printer
import regcopy_passes.reg_copy.emit_bounds as emit_bounds
import ab_sources

FORMS = ("base", "reach", "hoist", "reach+hoist")


def save(form: str, out: Path) -> None:
    """The benchmark kernels under ``form``, saved as ``out/form/TILE.cu``."""
    saved: tuple[Callable, Callable] = (emit_bounds._reach, printer.guarded_accesses)
    if "reach" not in form:
        emit_bounds._reach = lambda fr: []  # type: ignore[assignment]
    if "hoist" not in form:
        printer.guarded_accesses = lambda op: []  # type: ignore[assignment]
    try:
        ab_sources.main(["--save", str(out / form)])
    finally:
        emit_bounds._reach, printer.guarded_accesses = saved


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(argv[0] if argv else tmp)
        for form in FORMS:
            save(form, out)
        return ab_sources.main([str(out), *FORMS])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
