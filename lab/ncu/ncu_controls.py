"""Control kernels for ``ncu_banks.py``: hand-written one-warp CUDA kernels that isolate how
Nsight Compute counts shared wavefronts, independent of regcopy's lowering.

Each control issues a known list of shared instructions (inline PTX, ``volatile``, so NVVM
neither drops nor merges them) and its expected wavefronts come from the same bank model
(``regcopy_passes.core.banks.instruction_wavefronts``) as the cases'. Together they separate the
hypotheses for a measurement that exceeds the model by a constant:

* ``ctl_none`` (no shared access, no barrier) and ``ctl_bar`` (a barrier only): a per-kernel
  constant in the all-ops counter, which a baseline subtraction removes;
* ``ctl_sts32`` / ``ctl_lds32`` / ``ctl_sts_bar_lds32``: one conflict-free 32-bit access,
  1 wavefront each (what ``op_st`` / ``op_ld`` count for the simplest access);
* ``ctl_ldsm_x1/x2/x4`` and ``ctl_stsm_x1/x2/x4`` (one instruction, 1/2/4 matrices of 8
  consecutive 16-byte rows: 1 wavefront a matrix), ``..._x4_twice`` (two instructions),
  ``..._x4_conflict`` (8 rows 128 bytes apart: 8-way, 32 wavefronts): an extra wavefront per
  matrix, per instruction or per kernel, and the ldmatrix conflict model;
* ``ctl_stsm_bar_ldsm_x4``: the shape of the fragment cases (store, barrier, load).
"""

from __future__ import annotations

from dataclasses import dataclass

from regcopy_passes.core.banks import instruction_wavefronts

PREFIX = "ctl_"


@dataclass(frozen=True)
class Control:
    """A control kernel: its name, CUDA body (``t`` is the lane, ``S`` a 4 KiB shared array
    of words, ``G``/``O`` global float arrays), and what the model expects per op class."""

    name: str
    body: str
    ld: int = 0
    st: int = 0
    ldsm: int = 0
    stsm: int = 0

    @property
    def total(self) -> int:
        return self.ld + self.st + self.ldsm + self.stsm

    @property
    def instructions(self) -> tuple[int, int]:
        """(shared loads, shared stores) the body issues: one SASS instruction per PTX one."""
        b = self.body
        loads = b.count("ldmatrix") + b.count("ld.shared")
        return loads, b.count("stmatrix") + b.count("st.shared")

    def source(self) -> str:
        return (
            f'extern "C" __global__ void {self.name}(float* G, float* O) {{\n'
            "  __shared__ alignas(128) unsigned S[1024];\n"
            "  unsigned t = threadIdx.x;\n"
            "  unsigned s = (unsigned)__cvta_generic_to_shared(&S[0]);\n"
            "  unsigned r0 = __float_as_uint(G[t]), r1 = r0 + 1, r2 = r0 + 2, r3 = r0 + 3;\n"
            "  unsigned q0 = 0, q1 = 0, q2 = 0, q3 = 0;\n"
            f"{self.body}"
            "  O[t] = __uint_as_float(r0 ^ r1 ^ r2 ^ r3 ^ q0 ^ q1 ^ q2 ^ q3)"
            " + (float)s * 0.0f;\n"
            "}\n")


def _matrix_rows(count: int, row_stride: int) -> list[int | None]:
    """Byte addresses of the rows an ``.x{count}`` instruction reads: lane ``8m + r`` gives
    matrix ``m``'s row ``r``; lanes beyond ``8 * count`` are ignored."""
    return [lane * row_stride for lane in range(8 * count)]


def _matrix_wf(count: int, row_stride: int) -> int:
    return instruction_wavefronts(_matrix_rows(count, row_stride), 16)[0]


STS32 = '  asm volatile("st.shared.b32 [%0], %1;" :: "r"(s + 4 * t), "r"(r0) : "memory");\n'
LDS32 = '  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(r1) : "r"(s + 4 * t) : "memory");\n'
BAR = "  __syncthreads();\n"


def _ldsm(count: int, row_stride: int, reg: str = "r", offset: int = 0) -> str:
    """One ``ldmatrix.x{count}`` into ``{reg}0..`` from rows ``row_stride`` bytes apart,
    ``offset`` bytes into S."""
    regs = ", ".join(f"%{i}" for i in range(count))
    outs = ", ".join(f'"=r"({reg}{i})' for i in range(count))
    return (f'  asm volatile("ldmatrix.sync.aligned.m8n8.x{count}.shared.b16 {{{regs}}}, '
            f'[%{count}];" : {outs} : "r"(s + {offset} + {row_stride} * (t % {8 * count})) '
            ': "memory");\n')


def _stsm(count: int, row_stride: int, offset: int = 0) -> str:
    """One ``stmatrix.x{count}`` of ``r0..`` to rows ``row_stride`` bytes apart, ``offset``
    bytes into S."""
    regs = ", ".join(f"%{i + 1}" for i in range(count))
    ins = ", ".join(f'"r"(r{i})' for i in range(count))
    return (f'  asm volatile("stmatrix.sync.aligned.m8n8.x{count}.shared.b16 [%0], '
            f'{{{regs}}};" :: "r"(s + {offset} + {row_stride} * (t % {8 * count})), {ins} '
            ': "memory");\n')


def _sts_lds_wf() -> int:
    return instruction_wavefronts([4 * lane for lane in range(32)], 4)[0]


def controls() -> tuple[Control, ...]:
    """Every control kernel, expectations from the bank model."""
    one = _sts_lds_wf()
    out = [
        Control("ctl_none", ""),
        Control("ctl_bar", BAR),
        Control("ctl_sts32", STS32, st=one),
        Control("ctl_lds32", LDS32, ld=one),
        Control("ctl_sts_bar_lds32", STS32 + BAR + LDS32, ld=one, st=one),
    ]
    for count in (1, 2, 4):
        out.append(Control(f"ctl_ldsm_x{count}", _ldsm(count, 16), ldsm=_matrix_wf(count, 16)))
        out.append(Control(f"ctl_stsm_x{count}", _stsm(count, 16), stsm=_matrix_wf(count, 16)))
    x4, x4c = _matrix_wf(4, 16), _matrix_wf(4, 128)
    out += [
        Control("ctl_ldsm_x4_twice", _ldsm(4, 16) + _ldsm(4, 16, "q", 512), ldsm=2 * x4),
        Control("ctl_stsm_x4_twice", _stsm(4, 16) + _stsm(4, 16, 512), stsm=2 * x4),
        Control("ctl_ldsm_x4_conflict", _ldsm(4, 128), ldsm=x4c),
        Control("ctl_stsm_x4_conflict", _stsm(4, 128), stsm=x4c),
        Control("ctl_stsm_bar_ldsm_x4", _stsm(4, 16) + BAR + _ldsm(4, 16), ldsm=x4, stsm=x4),
    ]
    return tuple(out)


def findings(measured: dict[str, dict[str, float]], ld: str, st: str, total: str) -> list[str]:
    """What the controls' counters say, one line a hypothesis (empty without counters).

    ``excess(c) = total(c) - model(c)``: the all-ops wavefronts the model does not explain.
    A constant excess, the same in ``ctl_none``, is per kernel; one that grows with the
    instructions (``x4_twice`` against ``x4``) or with the matrices (``x4`` against ``x1``)
    is per instruction or per matrix."""
    by = {c.name: c for c in controls()}
    ex = {n: m[total] - by[n].total for n, m in measured.items() if n in by and total in m}
    if not ex:
        return []
    out = ["excess over the model (all-ops counter - model) per control: "
           + ", ".join(f"{n} {v:+g}" for n, v in sorted(ex.items()))]
    if "ctl_none" in ex:
        base = ex["ctl_none"]
        out.append(f"per-kernel constant (ctl_none, no shared access): {base:g} wavefronts"
                   + (" -> subtract it as a baseline" if base else " -> none"))
    for kind in ("ldsm", "stsm"):
        x1, x4, x4x2 = (ex.get(f"ctl_{kind}_{s}") for s in ("x1", "x4", "x4_twice"))
        if None in (x1, x4, x4x2):
            continue
        base = ex.get("ctl_none", 0.0)
        if x1 == x4 == x4x2 == base:
            verdict = "none beyond the per-kernel constant: the model is right"
        elif x1 == x4 == x4x2:
            verdict = f"{x1 - base:+g} per kernel using it (not per instruction or matrix)"
        elif x4x2 - x4 == x4 - base and x1 == x4:
            verdict = f"{x4 - base:+g} per instruction"
        elif x4 - base == 4 * (x1 - base):
            verdict = f"{x1 - base:+g} per matrix"
        else:
            verdict = "no simple rule: see the raw counters"
        out.append(f"{kind} extra wavefronts: x1 {x1:+g}, x4 {x4:+g}, two x4 {x4x2:+g}: "
                   f"{verdict}")
    for n, m in sorted(measured.items()):
        c = by.get(n)
        if c is None or not all(k in m for k in (ld, st)):
            continue
        if c.ld + c.st and (m[ld], m[st]) != (c.ld, c.st):
            out.append(f"{n}: op_ld/op_st {m[ld]:g}/{m[st]:g}, model {c.ld}/{c.st}")
        if (c.ldsm or c.stsm) and (m[ld] or m[st]):
            out.append(f"{n}: op_ld/op_st count matrix ops too ({m[ld]:g}/{m[st]:g})")
    return out
