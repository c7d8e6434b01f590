"""Mutation fuzzer for ``regcopy-opt``: bad input must never end in a Python exception.

Takes the example and lit-test inputs (``examples/*.mlir``, ``test/**/*.mlir``, split at
``// -----``), makes mutants (token and byte edits: delete, duplicate or swap tokens and lines,
numbers set to 0/-1/huge, element types, memory spaces, scopes and thread axes swapped,
layouts and attributes broken) and runs each through ``regcopy-opt``'s driver in-process, once
with ``--lower-reg-copy`` and once with ``--lower-reg-copy -t cuda``. Each run ends as

* ``ok``: exit 0; ``diagnostic``: a user-facing error (parse, verifier, pass or target
  diagnostic: what ``regcopy-opt`` prints as one line and exit 1);
* ``crash``: any other exception (what would be an internal error or, before the driver's
  catch-all, a traceback); ``bad-output``: the input verifies but the lowered IR does not;
  ``timeout``: the run took longer than ``--timeout`` seconds.

Only ``ok`` and ``diagnostic`` are acceptable. Usage::

    python -m regcopy_tools.fuzz_mutants --count 5000 --jobs 2 --save /tmp/fuzz-crashes

prints the figures and one reproducer per distinct failure (exception type and innermost
project frame), and exits 1 if there was any failure. Mutant ``i`` of seed ``s`` is the same
on every machine, so ``--only i`` replays one.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import signal
import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from functools import cache
from io import StringIO
from multiprocessing import Pool
from pathlib import Path

from regcopy_tools.regcopy_opt import RegcopyOptMain, _Diagnostic
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from regcopy_dialect.context import regcopy_context
from regcopy_dialect.source import parse_located

ROOT = Path(__file__).resolve().parents[1]
RUNS: tuple[tuple[str, ...], ...] = (("--lower-reg-copy",), ("--lower-reg-copy", "-t", "cuda"))
ACCEPTABLE = ("ok", "diagnostic")

# ---- seeds -------------------------------------------------------------------------------------


def seed_inputs(root: Path = ROOT) -> list[str]:
    """The IR chunks of ``examples/*.mlir`` and ``test/**/*.mlir``, comment lines dropped."""
    files = sorted(root.glob("examples/*.mlir")) + sorted(
        p for p in root.glob("test/**/*.mlir") if "Output" not in p.parts)
    chunks: list[str] = []
    for path in files:
        for chunk in path.read_text(errors="replace").split("// -----"):
            body = "\n".join(ln for ln in chunk.splitlines() if not ln.lstrip().startswith("//"))
            if body.strip():
                chunks.append(body + "\n")
    return chunks


# ---- mutations ---------------------------------------------------------------------------------

TOKEN = re.compile(r'\s+|"[^"\n]*"|[%@^#!]?[A-Za-z_][\w.$]*|-?\d+|->|.', re.S)
NUMBER = re.compile(r"(?<![\w.])-?\d+")
TYPES = ["f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "ui8", "i4", "i1", "index",
         "f8E4M3FN", "f8E5M2", "f80", "complex<f32>", "vector<4xf32>", "tensor<2xf32>"]
TYPE = re.compile(r"(?<=[x<])(?:f64|f32|f16|bf16|i64|i32|i16|i8|ui8|index|f8E4M3FN|f8E5M2)\b"
                  r"|\b(?:f64|f32|f16|bf16|i64|i32|i16|i8|ui8|index|f8E4M3FN|f8E5M2)\b")
SPACES = ["local", "shared", "global", "shared.dyn", "register", "", "shared.dyn.dyn"]
SPACE = re.compile(r"(?<=#regcopy\.mem<)[\w.]*(?=>)")
SCOPES = ["thread", "warp", "warpgroup", "cta", "grid", "lane"]
SCOPE = re.compile(r"(?<=regcopy\.copy )\w+")
AXES = ["laneid", "tid_in_wg", "wid_in_wg", "tx", "warpid", "wgid", "ty", "lane", ""]
AXIS = re.compile(r"(?<=\d@)\w*")
LAYOUT = re.compile(r"(?<=#regcopy\.layout<)[^>]*(?=>)")
LAUNCH = re.compile(r"(?<=#regcopy\.launch<)[^>]*(?=>)")
HUGE = [0, -1, 1, 2, 3, 5, 7, 31, 33, 64, 127, 128, 129, 4096, 65536, 2**31 - 1, 2**31, 2**32,
        2**63 - 1, 2**63, 2**64, 10**30]
LAYOUT_EDITS = ["", ":", ",", "(", ")", "@laneid", "@tx", ", swizzle<3,3,3>", ", swizzle<3,4,3>",
                "0", "-1", "1@laneid", "(1,1)", "65536"]


def _tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def _pick_token(rng: random.Random, toks: list[str]) -> int | None:
    idx = [i for i, t in enumerate(toks) if not t.isspace()]
    return rng.choice(idx) if idx else None


def _token_edit(rng: random.Random, text: str) -> str:
    toks = _tokens(text)
    i, j = _pick_token(rng, toks), _pick_token(rng, toks)
    if i is None or j is None:
        return text
    match rng.randrange(5):
        case 0:
            del toks[i]
        case 1:
            toks.insert(i, toks[i])
        case 2:
            toks[i], toks[j] = toks[j], toks[i]
        case 3:
            k = min(i + 2, len(toks) - 1)
            toks[i], toks[k] = toks[k], toks[i]
        case _:
            toks[i] = toks[j]  # splice another token of the same text
    return "".join(toks)


def _line_edit(rng: random.Random, text: str) -> str:
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    match rng.randrange(3):
        case 0:
            del lines[i]
        case 1:
            lines.insert(j, lines[i])
        case _:
            lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines)


def _byte_edit(rng: random.Random, text: str) -> str:
    if not text:
        return text
    i = rng.randrange(len(text))
    match rng.randrange(3):
        case 0:
            return text[:i] + text[i + 1:]
        case 1:
            return text[:i] + rng.choice("()[]<>{}:,=%@#-x0123456789 \n\"'\\") + text[i:]
        case _:
            return text[:i] + chr(rng.randrange(32, 127)) + text[i + 1:]


def _sub_one(rng: random.Random, text: str, pattern: re.Pattern[str],
             choose: Callable[[str], str]) -> str:
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    return text[:m.start()] + choose(m.group(0)) + text[m.end():]


def _number(rng: random.Random, text: str) -> str:
    return _sub_one(rng, text, NUMBER, lambda _: str(rng.choice(HUGE)))


def _type(rng: random.Random, text: str) -> str:
    return _sub_one(rng, text, TYPE, lambda _: rng.choice(TYPES))


def _space(rng: random.Random, text: str) -> str:
    return _sub_one(rng, text, SPACE, lambda _: rng.choice(SPACES))


def _scope(rng: random.Random, text: str) -> str:
    return _sub_one(rng, text, SCOPE, lambda _: rng.choice(SCOPES))


def _axis(rng: random.Random, text: str) -> str:
    return _sub_one(rng, text, AXIS, lambda _: rng.choice(AXES))


def _attr_inside(rng: random.Random, inner: str) -> str:
    """Break a layout or launch body: insert, delete or replace a small piece."""
    i = rng.randrange(len(inner) + 1)
    k = min(len(inner), i + rng.randrange(1, 4))
    match rng.randrange(3):
        case 0:
            return inner[:i] + rng.choice(LAYOUT_EDITS) + inner[i:]
        case 1:
            return inner[:i] + inner[k:]
        case _:
            return inner[:i] + rng.choice(LAYOUT_EDITS) + inner[k:]


def _layout(rng: random.Random, text: str) -> str:
    return _sub_one(rng, text, LAYOUT, lambda inner: _attr_inside(rng, inner))


def _launch(rng: random.Random, text: str) -> str:
    return _sub_one(rng, text, LAUNCH, lambda inner: _attr_inside(rng, inner))


MEMREF = re.compile(r"memref<(?:[^<>]|<(?:[^<>]|<[^<>]*>)*>)*>")
IN_TYPE: tuple[Callable[[random.Random, str], str], ...] = (
    _number, _number, _type, _space, _axis, _layout, _layout)


def _memref_type(rng: random.Random, text: str) -> str:
    """Mutate one memref type and every copy of its text, so that the result still parses
    (an op's operand types repeat its definition's) and the verifiers and the pass see it."""
    types = sorted(set(MEMREF.findall(text)))
    if not types:
        return text
    old = rng.choice(types)
    return text.replace(old, rng.choice(IN_TYPE)(rng, old))


MUTATORS: tuple[Callable[[random.Random, str], str], ...] = (
    _memref_type, _memref_type, _memref_type, _memref_type, _memref_type,
    _token_edit, _token_edit, _line_edit, _byte_edit,  # syntax: mostly parse errors
    _number, _number, _number, _type, _type, _space, _space, _scope, _axis, _axis,
    _layout, _layout, _layout, _launch)  # semantics: mostly reach the verifier or the pass


@dataclass(frozen=True)
class Seeds:
    """The seed inputs, and those of them that verify (four mutants in five start there, so
    that most reach the verifiers, the pass and the CUDA printer rather than the parser).
    Loaded once per process and repository (parsing and verifying every seed takes a while)."""

    all: tuple[str, ...]
    valid: tuple[str, ...]

    @staticmethod
    @cache
    def load(root: Path = ROOT) -> Seeds:
        chunks = seed_inputs(root)
        return Seeds(tuple(chunks), tuple(c for c in chunks if _input_verifies(c)))


def mutant(seeds: Seeds, seed: int, index: int) -> str:
    """Mutant ``index`` of run ``seed``: one to three mutations of one seed input."""
    rng = random.Random(f"{seed}:{index}")
    text = rng.choice(seeds.valid if seeds.valid and rng.random() < 0.8 else seeds.all)
    for _ in range(rng.choice((1, 1, 2, 3))):
        text = rng.choice(MUTATORS)(rng, text)
    return text


# ---- running -----------------------------------------------------------------------------------


class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so that no ``except Exception`` swallows it."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def on_alarm(signum: int, frame: object) -> None:
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass(frozen=True)
class Outcome:
    kind: str
    """``ok``, ``diagnostic``, ``crash``, ``bad-output`` or ``timeout``."""
    signature: str = ""
    """For failures: exception type and the innermost frame of this project; for
    diagnostics: the stage that refused the input."""
    detail: str = ""


def _signature(e: BaseException) -> str:
    frames = traceback.extract_tb(e.__traceback__)
    ours = [f for f in frames if str(ROOT) in f.filename and "site-packages" not in f.filename
            and "fuzz_mutants" not in f.filename]
    where = ours[-1] if ours else (frames[-1] if frames else None)
    loc = f"{Path(where.filename).name}:{where.lineno} in {where.name}" if where else "?"
    return f"{type(e).__name__} at {loc}"


def _input_verifies(text: str) -> bool:
    try:
        parse_located(regcopy_context(), text, "mutant.mlir").verify()
    except Exception:  # noqa: BLE001 - any failure means the input itself is invalid
        return False
    return True


def run_one(path: Path, text: str, args: Sequence[str], timeout: float) -> Outcome:
    """Run ``regcopy-opt <path> <args>`` in-process on ``text`` and classify how it ended."""
    path.write_text(text)
    sink = StringIO()
    try:
        with redirect_stdout(sink), redirect_stderr(sink), _time_limit(timeout):
            tool = RegcopyOptMain([str(path), *args])
            tool.run()
            tool.flush()
    except SystemExit as e:
        return Outcome("ok") if e.code in (0, None) else Outcome("diagnostic", "usage")
    except _Timeout:
        return Outcome("timeout", f"timeout after {timeout:g} s", "")
    except ParseError:
        return Outcome("diagnostic", "parse")
    except _Diagnostic:
        return Outcome("diagnostic", "verify")
    except VerifyException as e:
        if _input_verifies(text):
            return Outcome("bad-output", _signature(e), str(e).splitlines()[0][:300])
        return Outcome("diagnostic", "verify (xDSL)")
    except DiagnosticException:
        return Outcome("diagnostic", "pass or target")
    except Exception as e:  # noqa: BLE001 - the failures this fuzzer looks for
        return Outcome("crash", _signature(e), f"{type(e).__name__}: {str(e)[:300]}")
    return Outcome("ok")


_SEEDS: list[Seeds] = []


def _init_worker(root: str, memory_gib: float) -> None:
    _SEEDS[:] = [Seeds.load(Path(root))]
    if memory_gib > 0:
        limit = int(memory_gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _work(job: tuple[int, int, float]) -> list[tuple[int, int, Outcome]]:
    seed, index, timeout = job
    text = mutant(_SEEDS[0], seed, index)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"mutant{index}.mlir"
        return [(index, r, run_one(path, text, RUNS[r], timeout)) for r in range(len(RUNS))]


@dataclass
class Report:
    mutants: int
    outcomes: Counter[str]
    failures: dict[str, tuple[int, int, Outcome]]
    """First (mutant, run, outcome) per distinct failure signature."""
    failure_runs: Counter[str]
    """Failed runs per signature."""

    @property
    def ok(self) -> bool:
        return not self.failures


def fuzz(count: int, seed: int = 0, jobs: int = 1, timeout: float = 20.0,
         root: Path = ROOT, memory_gib: float = 0.0,
         indices: Sequence[int] | None = None) -> Report:
    """Run ``count`` mutants (or just ``indices``) through both ``RUNS``."""
    todo = [(seed, i, timeout) for i in (indices if indices is not None else range(count))]
    outcomes: Counter[str] = Counter()
    failures: dict[str, tuple[int, int, Outcome]] = {}
    failure_runs: Counter[str] = Counter()
    if jobs > 1:
        with Pool(jobs, _init_worker, (str(root), memory_gib)) as pool:
            results = pool.imap_unordered(_work, todo, chunksize=8)
            collected = [r for batch in results for r in batch]
    else:
        _init_worker(str(root), 0.0)
        collected = [r for job in todo for r in _work(job)]
    for index, run, outcome in sorted(collected, key=lambda r: (r[0], r[1])):
        outcomes[outcome.kind] += 1
        if outcome.kind == "diagnostic":
            outcomes[f"diagnostic: {outcome.signature}"] += 1
        if outcome.kind not in ACCEPTABLE:
            failures.setdefault(outcome.signature, (index, run, outcome))
            failure_runs[outcome.signature] += 1
    return Report(len(todo), outcomes, failures, failure_runs)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m regcopy_tools.fuzz_mutants",
                                 description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--count", type=int, default=5000, help="number of mutants (default 5000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per run")
    ap.add_argument("--memory-gib", type=float, default=4.0,
                    help="address-space limit per worker process (with --jobs > 1)")
    ap.add_argument("--only", type=int, action="append", help="replay mutant N (repeatable)")
    ap.add_argument("--save", type=Path, help="write one reproducer per failure here")
    ap.add_argument("--root", type=Path, default=ROOT, help="repository with the seed inputs")
    args = ap.parse_args(argv)
    report = fuzz(args.count, args.seed, args.jobs, args.timeout, args.root, args.memory_gib,
                  args.only)
    runs = sum(v for k, v in report.outcomes.items() if ":" not in k)
    print(f"{report.mutants} mutants (seed {args.seed}), {runs} runs: "
          + ", ".join(f"{k} {v}" for k, v in sorted(report.outcomes.items())))
    seeds = Seeds.load(args.root)
    for signature, (index, run, outcome) in sorted(report.failures.items()):
        print(f"FAIL [{outcome.kind}] {signature} ({report.failure_runs[signature]} runs): "
              f"first mutant {index}, regcopy-opt "
              f"{' '.join(RUNS[run])}\n  {outcome.detail}")
        if args.save is not None:
            args.save.mkdir(parents=True, exist_ok=True)
            (args.save / f"mutant{index}.mlir").write_text(mutant(seeds, args.seed, index))
    sys.exit(0 if report.ok else 1)


if __name__ == "__main__":
    main()
