"""CUDA text of ``regcopy.ldmatrix`` / ``regcopy.stmatrix``: one inline-PTX statement each.

::

    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w0), "=r"(w1), "=r"(w2), "=r"(w3)
                 : "r"((unsigned)__cvta_generic_to_shared(&S[off])) : "memory");
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};"
                 :: "r"((unsigned)__cvta_generic_to_shared(&S[off])), "r"(w0), "r"(w1)
                 : "memory");

The shared address is the 32-bit shared-window address of the lane's row start. Both forms are
``volatile`` with a ``"memory"`` clobber: the compiler sees neither the shared bytes the
instruction reads nor those it writes, so without the clobber it could move a plain C++ shared
store after an ``ldmatrix`` that must see it, or a plain shared load before an ``stmatrix``
that feeds it. Register word ``k`` (``w_k``) is the 32-bit word at the statically known
element offset ``regs[k]`` of the thread's register array (``register_word``), so the array
stays in registers. ``stmatrix`` needs sm_90.
"""

from __future__ import annotations

from collections.abc import Sequence

from regcopy_dialect.matrix_ops import MatrixOpBase


def register_word(registers: str, offset: int) -> str:
    """The C lvalue of the 32-bit word at element ``offset`` of the register array."""
    return f"*reinterpret_cast<uint32_t*>(&{registers}[{offset}])"


def shared_address(pointer: str) -> str:
    """The 32-bit shared-window address of a generic pointer into shared memory."""
    return f"(unsigned)__cvta_generic_to_shared({pointer})"


def mnemonic(op: MatrixOpBase) -> str:
    kind = "ldmatrix" if op.LOADS else "stmatrix"
    return f"{kind}.sync.aligned.m8n8.x{op.count}{'.trans' if op.transposed else ''}.shared.b16"


def matrix_asm(op: MatrixOpBase, pointer: str, words: Sequence[str]) -> str:
    """The ``asm volatile`` statement of ``op``: ``pointer`` is the C expression of the
    lane's shared element pointer (``&S[off]``), ``words[k]`` the C lvalue of register word
    ``k`` (``register_word``)."""
    if len(words) != op.count:
        raise ValueError(f"{op.name} moves {op.count} words, got {len(words)} lvalues")
    count = op.count
    regs = "{" + ", ".join(f"%{k + (0 if op.LOADS else 1)}" for k in range(count)) + "}"
    address = shared_address(pointer)
    if op.LOADS:
        outs = ", ".join(f'"=r"({w})' for w in words)
        return (f'asm volatile("{mnemonic(op)} {regs}, [%{count}];" : {outs} : '
                f'"r"({address}) : "memory");')
    ins = ", ".join(f'"r"({w})' for w in words)
    return (f'asm volatile("{mnemonic(op)} [%0], {regs};" :: "r"({address}), {ins} : '
            '"memory");')


def print_matrix(op: MatrixOpBase, shared: str, offset: str, registers: str) -> str:
    """``matrix_asm`` for the C names of the shared storage, the lane's offset and the
    register array."""
    return matrix_asm(op, f"&{shared}[{offset}]",
                      [register_word(registers, r) for r in op.register_offsets])
