"""CUDA text of ``regcopy.mma_sync``: one inline-PTX ``mma.sync.aligned`` statement per
instruction, on 32-bit views of the register arrays at static offsets (so the arrays stay in
registers)::

    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
                 : "r"(A word 0), ..., "r"(B word 1));

The accumulator is read and written in place (``+``): ``"+f"`` on f32 elements, ``"+r"`` on
i32 elements and on 32-bit words of f16 pairs. No ``"memory"`` clobber: the instruction
touches registers only.
"""

from __future__ import annotations

from regcopy_backend.cuda.matrix import register_word
from regcopy_passes.mma.lower import mnemonic

from regcopy_dialect.mma_ops import MmaSyncOp, type_name


def mma_statements(op: MmaSyncOp, a: str, b: str, c: str) -> list[str]:
    """One ``asm volatile`` per instruction of ``op``; ``a``, ``b``, ``c`` are the C names of
    the three register arrays."""
    ta, tb, tc = (type_name(t) for t in op.element_types())
    text = mnemonic(ta, tb, tc, op.shape.name)
    out = []
    for words_a, words_b, words_c in op.instructions():
        nc, na = len(words_c), len(words_a)
        cs = ", ".join(f"%{k}" for k in range(nc))
        as_ = ", ".join(f"%{nc + k}" for k in range(na))
        bs = ", ".join(f"%{nc + na + k}" for k in range(len(words_b)))
        if tc == "f32":
            outs = [f'"+f"({c}[{w}])' for w in words_c]
        elif tc == "i32":
            outs = [f'"+r"({c}[{w}])' for w in words_c]
        else:
            outs = [f'"+r"({register_word(c, w)})' for w in words_c]
        ins = ([f'"r"({register_word(a, w)})' for w in words_a]
               + [f'"r"({register_word(b, w)})' for w in words_b])
        out.append(f'asm volatile("{text} {{{cs}}}, {{{as_}}}, {{{bs}}}, {{{cs}}};" : '
                   f'{", ".join(outs)} : {", ".join(ins)});')
    return out
