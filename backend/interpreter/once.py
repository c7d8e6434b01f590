"""A cache for the tables the CPU interpreter derives from types and regions.

The threads of a phased CTA (one Python thread per GPU thread) reach an op together and ask
for the same table: ``functools.lru_cache`` lets every one of them compute it (256 times the
work where the table is large); ``computed_once`` computes it once and lets the others wait
for it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

_T = TypeVar("_T")
_ONCE = threading.RLock()  # re-entrant: a table may be built from another one


def computed_once(fn: Callable[..., _T]) -> Callable[..., _T]:
    """``fn`` (pure, hashable arguments) cached, and computed once per arguments even when
    the threads of a phased CTA ask for it together (``lru_cache`` lets each of them compute
    it); at most 256 results are kept. An exception is not cached."""
    cache: dict[tuple[Any, ...], _T] = {}

    @wraps(fn)
    def get(*key: Any) -> _T:
        if (value := cache.get(key)) is not None:
            return value
        with _ONCE:
            if (value := cache.get(key)) is None:
                if len(cache) >= 256:
                    cache.clear()
                value = cache[key] = fn(*key)
        return value

    return get
