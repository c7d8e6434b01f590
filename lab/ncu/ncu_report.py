"""Reading ncu's counters for ``ncu_banks.py``: the counters asked for, the per-kernel
baseline of the all-ops counter, each copy's measured wavefronts (``attribute``) and the report
(agreement table, disagreeing cases with their raw counters and shared SASS, the control
kernels' findings, the raw file)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ncu_controls import PREFIX as CTL_PREFIX
from ncu_controls import controls, findings

if TYPE_CHECKING:
    from ncu_banks import Planned

METRICS = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")
EXTRA_METRICS = (
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_ldsm.sum",
    "smsp__sass_inst_executed_op_stsm.sum",
)
"""Counters asked for in the second, smaller ncu run (controls, disagreeing cases and a few
agreeing ones), those of them this ncu knows (``ncu --query-metrics``): the ldmatrix /
stmatrix wavefronts apart, and the ``smsp__sass_*`` ones, counted per SASS instruction (so
not what the hardware does besides the kernel's instructions)."""
LDSM = EXTRA_METRICS[0]


def rest_of(m: dict[str, float]) -> float | None:
    """All-ops shared wavefronts beyond ``op_ld + op_st`` (None: counters missing)."""
    if not all(k in m for k in METRICS):
        return None
    return m[METRICS[2]] - m[METRICS[0]] - m[METRICS[1]]


def baseline_rest(planned: Sequence[Planned]) -> float:
    """The per-kernel excess of the all-ops counter where no matrix op can explain it: the
    median ``rest_of`` over the kernels whose two copies are per-thread accesses issued as
    planned (their loads and stores are all in ``op_ld``/``op_st``). 0 without such kernels."""
    rests = sorted(r for p in planned
                   if p.load.kind == p.store.kind == "vector" and not p.sass_differs
                   and (r := rest_of(p.measured)) is not None)
    return rests[len(rests) // 2] if rests else 0.0


def attribute(p: Planned, baseline: float = 0.0) -> tuple[float, float] | None:
    """(load, store) wavefronts measured for ``p``: ``op_ld`` and ``op_st``; a matrix side
    the op counters leave at 0 gets ``op_ldsm`` (the ldmatrix wavefronts, where counted) or
    what the all-ops counter has beyond them and beyond the per-kernel ``baseline``
    (``baseline_rest``); split in the model's proportion when both sides are matrix ops and
    ``op_ldsm`` is not counted (such a case can only disagree in its sum). None if the
    counters are missing."""
    m = p.measured
    rest = rest_of(m)
    if rest is None:
        return None
    ld, st = m[METRICS[0]], m[METRICS[1]]
    rest -= baseline
    load_m = p.load.kind == "ldmatrix" and ld == 0
    store_m = p.store.kind == "stmatrix" and st == 0
    if load_m and LDSM in m:
        ld, rest, load_m = m[LDSM], rest - m[LDSM], False
    if load_m and store_m:
        share = p.load.wavefronts / max(1, p.load.wavefronts + p.store.wavefronts)
        return ld + rest * share, st + rest * (1 - share)
    if load_m:
        ld += rest
    elif store_m:
        st += rest
    return ld, st

def _counters(m: dict[str, float]) -> str:
    """Every counter of a kernel, short names (``op_ld=8 … total=16``)."""
    def short(k: str) -> str:
        if k == METRICS[2]:
            return "total"
        return k.replace("l1tex__data_pipe_lsu_wavefronts_mem_shared_", "").replace(".sum", "")

    return " ".join(f"{short(k)}={v:g}" for k, v in sorted(m.items())) or "none"


def report(planned: Sequence[Planned], measured: dict[str, dict[str, float]] | None = None,
           raw: str | None = None) -> int:
    """The agreement table (model disagreements apart from kernels whose SASS is not as
    planned), the per-kernel baseline it subtracts, every disagreeing case with its raw
    counters and shared SASS, what the control kernels say; with ``raw``, every kernel's
    counters and shared SASS to that file. Exit status: 0 when the model agrees everywhere
    the SASS is as planned."""
    base = baseline_rest(planned)
    rests = [r for p in planned if p.load.kind == p.store.kind == "vector"
             and (r := rest_of(p.measured)) is not None]
    table: dict[tuple[str, str], list[int]] = {}
    wrong: list[str] = []
    raw_agree = model_wrong = 0
    for p in planned:
        got, got_raw = attribute(p, base), attribute(p)
        if got is None or got_raw is None:
            wrong.append(f"{p.name}: no counters")
            model_wrong += 1
            continue
        for i, (direction, side) in enumerate((("load", p.load), ("store", p.store))):
            key = (f"{p.case.family} {side.kind}{' rotated' if side.rotated else ''}", direction)
            row = table.setdefault(key, [0, 0, 0, 0])
            row[0] += 1
            raw_agree += round(got_raw[i]) == side.wavefronts
            if round(got[i]) == side.wavefronts:
                row[1] += 1
                continue
            row[3 if p.sass_differs else 2] += 1
            model_wrong += not p.sass_differs
            sass = (f" [SASS not as planned: {p.sass[0]} shared loads / {p.sass[1]} stores]"
                    if p.sass_differs and p.sass else "")
            wrong.append(f"{p.name} {direction}: predicted {side.wavefronts} (ideal "
                         f"{side.ideal}, {side.instructions} instr), measured {got[i]:g}: "
                         f"{p.case.describe()}{sass}\n    counters: {_counters(p.measured)}"
                         f"\n    SASS: {p.sass_ops or '?'}")
    cases = sum(r[0] for r in table.values())
    agree = sum(r[1] for r in table.values())
    print(f"\nbaseline: the all-ops counter exceeds op_ld + op_st by {base:g} wavefronts a "
          f"kernel (median over the per-thread kernels issued as planned; all of them: "
          f"{dict(sorted(Counter(rests).items()))}); a matrix side gets the excess minus it")
    print("\n| family / transfer | copy | cases | agree | model differs | SASS not as planned |"
          "\n|---|---|---|---|---|---|")
    for (fam, direction), (n, ok, bad, sass_bad) in sorted(table.items()):
        print(f"| {fam} | {direction} | {n} | {ok} | {bad} | {sass_bad} |")
    print(f"| all | both | {cases} | {agree} ({100 * agree / max(1, cases):.1f}%) | "
          f"{sum(r[2] for r in table.values())} | {sum(r[3] for r in table.values())} |")
    print(f"(without the baseline: {raw_agree} of {cases} agree)")
    if wrong:
        print("\ndisagreeing:")
        print("\n".join(wrong))
    ctl = {n: m for n, m in (measured or {}).items() if n.startswith(CTL_PREFIX)}
    if ctl:
        print("\ncontrol kernels (model: op_ld/op_st/ldmatrix/stmatrix wavefronts):")
        for c in controls():
            print(f"  {c.name}: model {c.ld}/{c.st}/{c.ldsm}/{c.stsm}; "
                  f"{_counters(ctl.get(c.name, {}))}")
        print("\n".join(findings(ctl, *METRICS)))
    if raw is not None:
        with open(raw, "w") as f:
            f.write("kernel\tpredicted load\tpredicted store\tshared SASS\tcounters\n")
            for p in planned:
                f.write(f"{p.name}\t{p.load.kind} {p.load.wavefronts}\t{p.store.kind} "
                        f"{p.store.wavefronts}\t{p.sass_ops}\t{_counters(p.measured)}\n")
            for c in controls():
                f.write(f"{c.name}\tld {c.ld} ldsm {c.ldsm}\tst {c.st} stsm {c.stsm}\t\t"
                        f"{_counters(ctl.get(c.name, {}))}\n")
        print(f"\nraw counters of every kernel: {raw}")
    return 0 if not model_wrong and cases else (2 if not cases else 1)
