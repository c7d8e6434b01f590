"""CUDA text of the lowered async copies: one inline-PTX statement each.

::

    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                 :: "r"((unsigned)__cvta_generic_to_shared(&S[i])), "l"(&G[j]), "r"(n) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 1;" ::: "memory");

``cp.async`` takes a 32-bit shared-window address and a global address; the third operand is
the source size in bytes (the rest of the 16/8/4 bytes is zero-filled). ``.cg`` (L2 only)
is legal for 16 bytes; 4 and 8 bytes use ``.ca``. On sm_90 a 16-byte ``cp.async.cg`` is the
SASS ``LDGSTS.E.BYPASS.128``. ``cp.async.wait_group`` waits for this thread's copies only:
threads that read what others copied need a ``gpu.barrier`` after the wait, as the user
writes it.
"""

from __future__ import annotations

from regcopy_backend.cuda.matrix import shared_address


def cp_async(shared: str, shared_offset: str, glob: str, global_offset: str, nbytes: int,
             src_bytes: str) -> str:
    """The ``cp.async`` of ``nbytes`` from ``&glob[global_offset]`` to
    ``&shared[shared_offset]``, reading ``src_bytes`` of them."""
    kind = "cg" if nbytes == 16 else "ca"
    address = shared_address(f"&{shared}[{shared_offset}]")
    return (f'asm volatile("cp.async.{kind}.shared.global [%0], [%1], {nbytes}, %2;" :: '
            f'"r"({address}), "l"(&{glob}[{global_offset}]), "r"((unsigned)({src_bytes})) : '
            '"memory");')


def commit_group() -> str:
    return 'asm volatile("cp.async.commit_group;" ::: "memory");'


def wait_group(pending: int) -> str:
    return f'asm volatile("cp.async.wait_group {pending};" ::: "memory");'
