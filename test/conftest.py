"""pytest configuration of the whole suite: the hypothesis profile (``REGCOPY_HYPOTHESIS``,
test/python/hypothesis_profiles.py) is loaded here, before any test module is imported; and
one NVRTC/nvdisasm cache directory per run (``REGCOPY_CACHE_DIR``, backend/cuda/nvrtc.py),
made by the controlling process before pytest-xdist starts its workers, so the workers and
the tools they start (lit's ``regcopy-opt -t sass``, ``regcopy-run``) share it: the same
kernel is compiled once per run however many tests look at it."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis_profiles import register

register()

_cache_key = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or os.environ.get("REGCOPY_CACHE_DIR"):
        return  # a worker inherits the controller's; a cache set by the caller is kept
    cache = tempfile.mkdtemp(prefix="regcopy-compile-cache-")
    os.environ["REGCOPY_CACHE_DIR"] = cache
    config.stash[_cache_key] = cache


def pytest_unconfigure(config: pytest.Config) -> None:
    cache = config.stash.get(_cache_key, None)
    if cache is not None:
        shutil.rmtree(cache, ignore_errors=True)
        os.environ.pop("REGCOPY_CACHE_DIR", None)

