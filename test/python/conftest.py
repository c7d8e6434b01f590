"""pytest hooks of test/python: lit starts in the background once the session is collected
(lit_runner.py), so that its subprocesses run while the in-process tests do. Under
pytest-xdist (the default, ``-n auto --dist loadfile``) the worker that runs test_lit.py starts
lit at its first lit item (test_lit.py's ``lit_results``) while the other workers go on."""

from __future__ import annotations

import pytest
from lit_runner import LIT_RUN, selected_lit_files, start


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly or hasattr(session.config, "workerinput"):
        return  # under pytest-xdist the worker that runs test_lit.py starts lit there
    paths = selected_lit_files(session.items)
    if paths:
        session.config.stash[LIT_RUN] = start(paths)


def pytest_sessionfinish(session: pytest.Session) -> None:
    run = session.config.stash.get(LIT_RUN, None)
    if run is not None:
        run.stop()
