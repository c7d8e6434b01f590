"""Timing of the Hopper GEMM for ``bench_gemm_hopper``: the checks (bit-exact on
integer-valued data, within tolerance of cuBLAS), the parts of a padded call timed alone
(``breakdown``), CUDA-event and host timing of a call (``events_ms``), the timing diagnosis of
a padded size (``timing_diagnosis``) and the candidates' comparison (``candidates``). Needs
torch and a GPU (imported lazily by ``bench_gemm_hopper.main``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from regcopy_bench.bench_gemm import RegcopyGemm, time_ms
from regcopy_bench.hopper_launch import HopperGemm, parse_form
from regcopy_bench.gemm_hopper import FORMS, PAD, PADS


def breakdown(run: Callable[[], None], iters: int) -> str:
    """``pad A x + pad B y + GEMM z ms`` (or ``pad A and B x + GEMM z ms``) of a padded
    launcher, each launch timed alone."""
    steps = getattr(run, "steps", None)
    if steps is None:
        return ""
    ms = [time_ms(s, iters) for s in steps]
    pads = (f"pad A {ms[0]:.3f} + pad B {ms[1]:.3f}" if len(ms) == 3
            else f"pad A and B {ms[0]:.3f}")
    return f"{pads} + GEMM {ms[-1]:.3f} ms"


def exact_check(h: HopperGemm, stream: Any, dtype: Any, t: str, pad: str = PAD) -> bool:
    """Bit-exact against float64 on integer-valued inputs, ragged sizes (odd K padded)."""
    import torch
    good = True
    for m, n, k in ((200, 300, 136), (300, 520, 77)):
        g = torch.Generator(device="cuda").manual_seed(k)
        a = torch.randint(-4, 5, (m, k), device="cuda", generator=g).to(dtype)
        b = torch.randint(-4, 5, (n, k), device="cuda", generator=g).to(dtype)
        d = torch.full((m, n), 7.0, device="cuda", dtype=dtype)
        want = (a.double() @ b.double().T).to(dtype)
        torch.cuda.synchronize()
        h.launcher(a, b, d, stream, pad)()
        torch.cuda.synchronize()
        same = bool(torch.equal(d, want))
        good &= same
        print(f"exact check wgmma {t} {m}x{n}x{k}: {'equal' if same else 'MISMATCH'}")
    return good


def operands(m: int, n: int, k: int, dtype: Any) -> tuple[Any, Any, Any]:
    import torch
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    a = torch.randn(m, k, device="cuda", dtype=dtype, generator=g)
    b = torch.randn(n, k, device="cuda", dtype=dtype, generator=g)
    return a, b, torch.empty(m, n, device="cuda", dtype=dtype)


def checked(run: Callable[[], None], a: Any, b: Any, d: Any) -> str:
    """``ok`` when ``run`` leaves ``d`` within tolerance of cuBLAS, else the error."""
    import torch
    d.fill_(7.0)
    torch.cuda.synchronize()
    run()
    ref = torch.matmul(a, b.T)
    torch.cuda.synchronize()
    err = float((d.float() - ref.float()).abs().max())
    return "ok" if err <= 0.02 * float(ref.float().abs().max()) + 0.05 else f"BAD max err {err:.3g}"


def events_ms(fn: Callable[[], None], iters: int) -> tuple[float, float]:
    """``(GPU ms a call, host ms a call)`` of ``fn``: ``iters`` calls back to back between two
    CUDA events on torch's stream (after 3 warm-up calls), and the host's time inside the
    calls. The GPU time includes any gap the host leaves between launches."""
    import time

    import torch
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    host = 0.0
    begin.record()
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        host += time.perf_counter() - t0
    end.record()
    end.synchronize()
    return begin.elapsed_time(end) / iters, host * 1e3 / iters


def interleaved(fns: dict[str, Callable[[], Any] | None], iters: int, rounds: int = 3,
                cool: float = 0.0) -> dict[str, float]:
    """Median milliseconds a call of each of ``fns`` (``time_ms``), measured in ``rounds``
    rounds that take every function in turn, so that every column of a row sees the GPU's
    clock and temperature alike (NaN for None or a function that fails). ``cool``: seconds
    of idle GPU before each measurement (the H200 drops its SM clock from 1980 to about
    1450-1650 MHz under 8192^3 GEMMs at its 700 W limit, and a measurement right after such
    work runs at that clock)."""
    import statistics
    import time
    times: dict[str, list[float]] = {key: [] for key in fns}
    for _ in range(rounds):
        for key, fn in fns.items():
            if fn is None:
                continue
            time.sleep(cool)
            try:
                times[key].append(time_ms(fn, iters))
            except Exception as e:  # noqa: BLE001 - a failure costs its column only
                print(f"  {key} failed: {str(e).splitlines()[0][:200]}")
                fns[key] = None
    return {key: statistics.median(v) if v and fns[key] is not None else float("nan")
            for key, v in times.items()}


def gpu_state() -> str:
    """The SM clock, temperature and power (``nvidia-smi``), or why not."""
    import subprocess
    try:
        return subprocess.run(
            ["nvidia-smi", "--query-gpu=clocks.sm,temperature.gpu,power.draw",
             "--format=csv,noheader"], capture_output=True, text=True, timeout=10,
            check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        return f"nvidia-smi: {e}"


def timing_diagnosis(sizes: Sequence[tuple[int, int, int]], iters: int, pad: str = PAD,
                     rounds: int = 3) -> None:
    """Why a padded size's time and its parts may disagree: per ragged size (f16, the
    example's form), ``rounds`` rounds of, in turn: the user's call (wall clock,
    ``time_ms``), the padding alone, the GEMM alone, the call's two launches alone (no
    allocation, no host work but the launches), the call again (GPU time between CUDA events
    and the host's time a call: ``events_ms``); the GPU's clock before each round. Round 0 runs on a GPU that has
    been idle, the later ones right after 0.2 s of 8192^3 cuBLAS GEMMs (as the main table's
    padded rows come after its 8192^3 rows); then every quantity's median and, per round,
    the call against its parts."""
    import statistics

    import torch
    h = HopperGemm("f16", None, "auto")
    stream = h.dev.default_stream
    big = torch.ones(8192, 8192, device="cuda", dtype=torch.float16)
    for m, n, k in [s for s in sizes if s[2] % 8]:
        a, b, d = operands(m, n, k, torch.float16)
        run = h.launcher(a, b, d, stream, pad)
        runs: dict[str, list[float]] = {}
        for r in range(rounds):
            if r:
                for _ in range(140):
                    torch.matmul(big, big)
                torch.cuda.synchronize()
            print(f"  timing {m}x{n}x{k} round {r} ({'after 8192^3 GEMMs' if r else 'idle GPU'}"
                  f"): GPU {gpu_state()}", flush=True)
            steps = run.steps  # type: ignore[attr-defined]
            got = {"call, wall": time_ms(run, iters),
                   "pad alone": sum(time_ms(s, iters) for s in steps[:-1]),
                   "GEMM alone": time_ms(steps[-1], iters),
                   "launches alone, wall": time_ms(run.pair, iters)}  # type: ignore[attr-defined]
            got["call, events"], got["call, host"] = events_ms(run, iters)
            for key, v in got.items():
                runs.setdefault(key, []).append(v)
            print(f"  timing {m}x{n}x{k} round {r} (ms a call): " + ", ".join(
                f"{key} {v[-1]:.4f}" for key, v in runs.items()), flush=True)
        print(f"  timing {m}x{n}x{k} (median of {rounds}, ms a call): " + ", ".join(
            f"{key} {statistics.median(v):.4f}" for key, v in runs.items())
            + f"; pad + GEMM {statistics.median(runs['pad alone']) + statistics.median(runs['GEMM alone']):.4f}",
            flush=True)


def candidates(sizes: Sequence[tuple[int, int, int]], iters: int,
               forms: Sequence[tuple[str, str]] = FORMS,
               pads: Sequence[str] = ("two", *PADS)) -> tuple[bool, str]:
    """The paddings ``pads`` at each ragged size of ``sizes`` (K % 8 != 0; each padding's
    launch timed alone and in the pair with the GEMM, the padding's bandwidth: 2 x (read +
    written) bytes of A and B over its time), then every ``(tile, epilogue)`` of ``forms``,
    f16, at ``sizes``: TFLOPS, each ragged row's parts, and each form's ratio to the first
    size. Returns (all checks ok, the fastest one-launch padding, or ``PAD`` if none ran)."""
    import torch
    mma = RegcopyGemm("f16") if "two" in pads else None
    h = HopperGemm("f16", mma, "auto")
    stream = h.dev.default_stream
    ok, table, best = True, [], (float("inf"), PAD)
    for m, n, k in [s for s in sizes if s[2] % 8]:
        a, b, d = operands(m, n, k, torch.float16)
        k8 = -(-k // 8) * 8
        moved = 2 * (m + n) * (k + k8)  # bytes read + written, f16
        for pad in pads:
            run = h.launcher(a, b, d, stream, pad)
            chk = checked(run, a, b, d)
            ok &= chk == "ok"
            tf = 2.0 * m * n * k / time_ms(run, iters) / 1e9
            steps = run.steps[:-1]  # type: ignore[attr-defined]
            pad_ms = sum(time_ms(s, iters) for s in steps)
            if pad != "two" and chk == "ok":
                best = min(best, (pad_ms, pad))
            print(f"  padding {pad} {m}x{n}x{k}: pad {pad_ms * 1e3:.1f} us "
                  f"({moved / pad_ms / 1e9:.2f} TB/s), pad + GEMM {tf:.0f} TFLOPS ({chk}); "
                  f"{breakdown(run, iters)}", flush=True)
    if best[0] < float("inf"):
        print(f"  fastest one-launch padding: {best[1]} ({best[0] * 1e3:.1f} us)")
    for form in forms:
        try:
            h = HopperGemm("f16", mma, *parse_form(form))
        except Exception as e:  # noqa: BLE001 - a form that fails costs its row only
            print(f"  candidate {' '.join(form)}: {str(e).splitlines()[0][:300]}")
            continue
        tf = []
        for m, n, k in sizes:
            a, b, d = operands(m, n, k, torch.float16)
            run = h.launcher(a, b, d, stream, best[1])
            chk = checked(run, a, b, d)
            ok &= chk == "ok"
            tf.append(2.0 * m * n * k / time_ms(run, iters) / 1e9)
            parts = breakdown(run, iters)
            print(f"  candidate {' '.join(form)} {m}x{n}x{k}: {tf[-1]:.0f} TFLOPS ({chk})"
                  + (f"; {parts}" if parts else ""), flush=True)
        table.append((form[0], ",".join(form[1:]), tf))
    names = ["x".join(map(str, s)) for s in sizes]
    print("\n| CTA tile | epilogue | " + " | ".join(f"{x} TFLOPS" for x in names)
          + "".join(f" | {x} / {names[0]}" for x in names[1:]) + " |")
    print("|---|---|" + "---|" * (2 * len(names) - 1))
    for tile, epilogue, tf in table:
        print(f"| {tile} | {epilogue} | " + " | ".join(f"{v:.0f}" for v in tf)
              + "".join(f" | {v / tf[0]:.2f}x" for v in tf[1:]) + " |")
    print()
    return ok, best[1]
