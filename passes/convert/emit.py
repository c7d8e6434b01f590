"""The IR of a renaming or warp-shuffle conversion (``convert_plan.ShufflePlan``).

Per conversion, in place of the ``regcopy.copy``:

* ``regcopy.storage`` of both register tiles;
* each moved unit (a 32-bit word: ``32 / bits`` elements, or one 32-bit element) as
  ``vector.load`` of ``vector<n x T>`` + ``vector.bitcast`` to ``vector<1xi32>`` +
  ``vector.extract`` (an ``i32``), and back (``vector.broadcast`` + ``vector.bitcast`` +
  ``vector.store``);
* renamed units: the load stored at the destination slot (a register move); every load of
  the source comes before the first store, so a conversion within one buffer (two regions of
  it) reads nothing it has overwritten;
* per shuffle round: the word this lane offers (``arith.select`` on per-lane predicates where
  lanes offer different words), the source lane (``lane ^ c`` where the round is an XOR
  pattern, else built bit by bit from per-lane masks), one ``gpu.shuffle idx`` — omitted
  where every lane keeps its own word;
* per destination word: the round that fills it, selects where lanes take it from different
  rounds (or keep the old word, when some lanes do not receive it);
* where the words a lane offers (files) follow an XOR-linear pattern of the lane, one
  butterfly of selects over all its words replaces the chains (``convert_butterfly``).

A per-lane predicate "lane ``t`` is in the set ``M``" is ``(M >> lane) & 1 != 0`` on ``i32``,
computed once per set and conversion (before the shuffles).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from regcopy_passes.convert.butterfly import Butterfly
from regcopy_passes.convert.plan import (
    ShufflePlan,
    lane_set_mask,
    source_bits,
    xor_form,
)
from xdsl.dialects import arith, gpu, vector
from xdsl.dialects.builtin import IndexType, MemRefType, VectorType, i1, i32
from xdsl.ir import Attribute, Operation, SSAValue

from regcopy_dialect.gpu_shuffle import ShuffleMode, ShuffleOp
from regcopy_dialect.layout import WARP
from regcopy_dialect.regcopy import StorageOp


def wanted_or_self(source: tuple[int, ...], recv: tuple[int | None, ...]) -> list[int]:
    """The source lane of every lane, a lane that receives nothing pulling from itself."""
    return [s if r is not None else t for t, (s, r) in enumerate(zip(source, recv))]


def _signed32(mask: int) -> int:
    return mask - (1 << 32) if mask >= 1 << 31 else mask


@dataclass
class _Emitter:
    """Collects the ops of one conversion (module doc)."""

    element: Attribute
    per_unit: int
    lanes: int
    ops: list[Operation] = field(default_factory=list[Operation])
    _i32: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])
    _index: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])
    _preds: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])
    _lane: SSAValue | None = None
    _sources: dict[tuple[int, ...], SSAValue] = field(
        default_factory=dict[tuple[int, ...], SSAValue])

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def c32(self, v: int) -> SSAValue:
        if v not in self._i32:
            self._i32[v] = self.add(arith.ConstantOp.from_int_and_width(v, 32))
        return self._i32[v]

    def cindex(self, v: int) -> SSAValue:
        if v not in self._index:
            self._index[v] = self.add(arith.ConstantOp.from_int_and_width(v, IndexType()))
        return self._index[v]

    @property
    def lane(self) -> SSAValue:
        if self._lane is None:
            lane = self.add(gpu.LaneIdOp())
            lane.name_hint = "lane"
            self._lane = self.add(arith.IndexCastOp(lane, i32))
        return self._lane

    @property
    def unit_type(self) -> VectorType:
        return VectorType(self.element, [self.per_unit])

    def load_word(self, storage: SSAValue, unit: int) -> SSAValue:
        v = self.add(vector.LoadOp(storage, [self.cindex(unit * self.per_unit)],
                                   self.unit_type))
        b = self.add(vector.BitcastOp(v, VectorType(i32, [1])))
        return self.add(vector.ExtractOp(b, [0], i32))

    def store_word(self, word: SSAValue, storage: SSAValue, unit: int) -> None:
        b = self.add(vector.BroadcastOp(word, VectorType(i32, [1])))
        v = self.add(vector.BitcastOp(b, self.unit_type))
        self.ops.append(vector.StoreOp(v, storage, [self.cindex(unit * self.per_unit)]))

    def predicate(self, lanes: tuple[int, ...] | list[int]) -> SSAValue:
        """``i1``: whether this lane is in ``lanes``."""
        mask = lane_set_mask(lanes)
        if mask not in self._preds:
            shifted = self.add(arith.ShRUIOp(self.c32(_signed32(mask)), self.lane))
            bit = self.add(arith.AndIOp(shifted, self.c32(1)))
            self._preds[mask] = self.add(arith.CmpiOp(bit, self.c32(0), "ne"))
        return self._preds[mask]

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        assert cond.type == i1
        return self.add(arith.SelectOp(cond, a, b))

    def source_lane(self, source: tuple[int, ...], recv: tuple[int | None, ...]) -> SSAValue:
        """The lane this lane pulls from: ``lane ^ c`` when the round is an XOR pattern;
        ``s ^ c`` for the source lanes ``s`` of an earlier round that differ from these by a
        constant ``c`` on every pulling lane; else built bit by bit: bit ``k`` from the mask
        of lanes whose source has bit ``k``."""
        wanted = [s if r is not None else None for s, r in zip(source, recv)][:self.lanes]
        c = xor_form(wanted)
        if c is not None:
            return self.lane if c == 0 else self.add(arith.XOrIOp(self.lane, self.c32(c)))
        for earlier, value in self._sources.items():
            diffs = {w ^ e for w, e in zip(wanted, earlier) if w is not None}
            if len(diffs) == 1:
                d = diffs.pop()
                return value if d == 0 else self.add(arith.XOrIOp(value, self.c32(d)))
        built = self._built_lane(source, recv)
        self._sources[tuple(wanted_or_self(source, recv))] = built
        return built

    def _built_lane(self, source: tuple[int, ...], recv: tuple[int | None, ...]) -> SSAValue:
        value: SSAValue | None = None
        for k, mask in enumerate(source_bits(source, recv)):
            if mask == 0:
                continue
            bit = self.add(arith.AndIOp(self.add(arith.ShRUIOp(self.c32(_signed32(mask)),
                                                               self.lane)), self.c32(1)))
            term = bit if k == 0 else self.add(arith.ShLIOp(bit, self.c32(k)))
            value = term if value is None else self.add(arith.OrIOp(value, term))
        return value if value is not None else self.c32(0)


def emit_shuffles(src: SSAValue, dst: SSAValue, plan: ShufflePlan, lanes: int
                  ) -> list[Operation]:
    """The ops of a renaming or shuffle conversion of ``src`` into ``dst`` (module doc);
    ``lanes``: the threads of a warp that take part (32, or 1 at thread scope)."""
    element = _element(src)
    e = _Emitter(element, plan.per_unit, lanes)
    s_src = e.add(StorageOp(src))
    s_dst = e.add(StorageOp(dst))
    words: dict[int, SSAValue] = {}

    def word(unit: int) -> SSAValue:
        if unit not in words:
            words[unit] = e.load_word(s_src, unit)
        return words[unit]

    moved = [(dst_unit, e.add(vector.LoadOp(s_src, [e.cindex(src_unit * plan.per_unit)],
                                            e.unit_type)))
             for dst_unit, src_unit in plan.moves]  # every read before any write: R1 may be R2
    got: list[SSAValue] = []
    permuted = _butterfly(e, [word(u) for u in range(plan.send_butterfly[0].units)],
                          plan.send_butterfly[0]) if plan.send_butterfly else None
    for k, r in enumerate(plan.rounds):
        if permuted is not None and plan.send_butterfly is not None:
            value = permuted[plan.send_butterfly[1][k]]
        else:
            offered = sorted(set(r.send), key=lambda u: -r.send.count(u))
            value = word(offered[0])
            for unit in offered[1:]:
                lanes_offering = [p for p, u in enumerate(r.send) if u == unit]
                value = e.select(e.predicate(lanes_offering), word(unit), value)
        if r.local:
            got.append(value)
            continue
        shuffle = ShuffleOp(value, e.source_lane(r.source, r.recv), e.c32(WARP),
                            ShuffleMode.IDX)
        e.ops.append(shuffle)
        got.append(shuffle.shuffle_result)
    for dst_unit, v in moved:
        e.ops.append(vector.StoreOp(v, s_dst, [e.cindex(dst_unit * plan.per_unit)]))
    if plan.recv_butterfly is not None:
        bf, bases = plan.recv_butterfly
        filed: list[SSAValue | None] = [None] * bf.units
        for k, base in enumerate(bases):
            filed[base] = got[k]
        for unit, value in enumerate(_butterfly(e, [v for v in filed if v is not None], bf)):
            e.store_word(value, s_dst, unit)
        return e.ops
    for unit, fills in sorted(plan.receivers().items()):
        covered = {t for _, ls in fills for t in ls}
        ordered = sorted(fills, key=lambda f: -len(f[1]))
        if covered >= set(range(lanes)):
            value, rest = got[ordered[0][0]], ordered[1:]
        else:
            value, rest = e.load_word(s_dst, unit), ordered
        for k, ls in rest:
            value = e.select(e.predicate(ls), got[k], value)
        e.store_word(value, s_dst, unit)
    return e.ops


def _butterfly(e: _Emitter, words: list[SSAValue], bf: Butterfly) -> list[SSAValue]:
    """``v[u] = words[u ^ x(lane)]`` (``convert_butterfly``): per stage ``(c, mask)``, one
    select per word on the lane predicate of ``mask``."""
    v = list(words)
    for c, mask in bf.stages:
        pred = e.predicate([t for t in range(WARP) if mask >> t & 1])
        v = [e.select(pred, v[u ^ (1 << c)], v[u]) for u in range(len(v))]
    return v


def _element(buf: SSAValue) -> Attribute:
    t = buf.type
    assert isinstance(t, MemRefType)
    return t.element_type


__all__ = ["emit_shuffles"]
