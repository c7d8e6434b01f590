"""What every regcopy command-line driver does around its work: no traceback reaches the user
(one diagnostic, ``file:line:col: error: <message>`` and the source line where it has a
location, else ``<tool>: error: <message>``, and exit 1), and a closed pipe (``… | head``) stops
quietly."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from regcopy_dialect.diagnostics import format_error


def run_main(tool: str, run: Callable[[], int], user_errors: tuple[type[BaseException], ...]
             ) -> None:
    """Exit with ``run()``'s status. An exception of ``user_errors`` is already phrased for the
    user; any other shows its type too. ``REGCOPY_TRACEBACK=1`` lets it through instead (for
    debugging regcopy itself)."""
    try:
        code = run()
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes stdout at exit
        code = 0
    except BaseException as e:  # noqa: BLE001 - no traceback reaches the user
        if isinstance(e, SystemExit | KeyboardInterrupt) or os.environ.get("REGCOPY_TRACEBACK"):
            raise
        message = str(e) if isinstance(e, user_errors) else f"{type(e).__name__}: {e}"
        print(format_error(tool, message), file=sys.stderr)
        code = 1
    sys.exit(code)
