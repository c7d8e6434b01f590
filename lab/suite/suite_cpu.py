"""A pytest plugin that records each test's CPU time (lab/suite_time.sh loads it with
``-p suite_cpu``): the user + system seconds of the process that ran it (a pytest-xdist worker
or the controller), its reaped child processes included (``regcopy-run`` commands, NVRTC
children, lit and its tool server when they are waited for), from setup to teardown.

Wall times on a shared machine move with the load; CPU seconds move much less, so they show
what a test costs. Each process appends ``cpu_s wall_s worker nodeid`` lines to
``$SUITE_CPU_DIR/<worker>.tsv``.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Generator
from pathlib import Path

import pytest


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    out = os.environ.get("SUITE_CPU_DIR")
    cpu, wall = _cpu(), time.perf_counter()
    yield
    if not out:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    line = f"{_cpu() - cpu:.3f}\t{time.perf_counter() - wall:.3f}\t{worker}\t{item.nodeid}\n"
    with open(Path(out) / f"{worker}.tsv", "a") as f:
        f.write(line)
