"""How many TMA groups can be in flight at once: the depth of the mbarrier ring.

Under ``transfer=tma`` group ``k`` (the ``k``-th ``async_group`` a thread commits) uses
mbarrier slot ``k % NB``. The slot is free again once group ``k - NB`` has been waited for,
so ``NB`` must be at least the number of groups committed and not yet waited for right after
any commit (the group itself included): with fewer, a commit arrives a second time on a
barrier whose phase has not completed (an arrival count the barrier was not initialised
for: a launch failure on an H200).

``ring_depth`` bounds that number on the structured IR of a kernel, by abstract
interpretation over one integer ``n`` (groups in flight, an upper bound):

* ``async_group``: ``n + 1`` (and the peak is raised to it);
* ``async_wait {pending = P}``: ``min(n, P)`` (it waits until at most P are in flight);
* an op with regions (``scf.if``: either region or none runs): the largest ``n`` its regions
  can leave, or ``n`` itself; a loop (``scf.for``, ``scf.while``): iterated until ``n`` at
  the head of the body stops growing (the body may run any number of times).

A bound above ``MAX_RING`` (a loop that commits without a wait that bounds it) is refused
with the reason; so is any depth the slots could not be counted for.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.ir import Operation, Region

from regcopy_dialect.async_ops import AsyncGroupOp, AsyncWaitOp

MAX_RING = 16
"""The most mbarrier slots (8 bytes of shared memory each) the lowering gives a kernel."""


class Unbounded(Exception):
    """More than ``MAX_RING`` groups can be in flight."""


@dataclass
class _Walk:
    peak: int = 0

    def ops(self, ops: list[Operation], n: int) -> int:
        for op in ops:
            n = self.op(op, n)
        return n

    def region(self, region: Region, n: int) -> int:
        out = n
        for block in region.blocks:
            out = max(out, self.ops(list(block.ops), n))
        return out

    def op(self, op: Operation, n: int) -> int:
        if isinstance(op, AsyncGroupOp):
            n += 1
            self.peak = max(self.peak, n)
            if n > MAX_RING:
                raise Unbounded
            return n
        if isinstance(op, AsyncWaitOp):
            return min(n, op.pending.value.data)
        if not op.regions:
            return n
        if isinstance(op, scf.ForOp | scf.WhileOp):
            head = n
            while True:  # n only grows, and is capped by MAX_RING: this ends
                out = max(self.region(r, head) for r in op.regions)
                if out <= head:
                    return head
                head = out
        return max(self.region(r, n) for r in op.regions)


def ring_depth(kernel: Operation) -> int | str:
    """The most groups in flight right after any commit in ``kernel`` (at least 1), or
    why it cannot be bounded."""
    walk = _Walk()
    try:
        for region in kernel.regions:
            walk.region(region, 0)
    except Unbounded:
        return (f"more than {MAX_RING} groups can be in flight at once (a loop commits "
                "groups without an async_wait {pending = N} that bounds them)")
    return max(1, walk.peak)
