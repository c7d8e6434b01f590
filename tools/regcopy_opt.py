"""``regcopy-opt``: ``xdsl-opt`` with the regcopy dialect, ``--lower-reg-copy`` and ``-t cuda``.

Everything ``xdsl-opt`` offers keeps working. On bad input it prints one diagnostic to stderr
(``file:line:col: error: message``, the source line and a caret; ``regcopy-opt: error: message``
where there is no location), writes nothing to ``-o`` and exits 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from io import StringIO
from typing import IO

from regcopy_tools.universe import DIALECT_OVERRIDES, REGCOPY_UNIVERSE
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from regcopy_dialect.diagnostics import first_invalid_op, format_error, op_error, parse_error
from regcopy_dialect.source import parse_located


class _Buffer(StringIO):
    """Output held back until the whole run succeeded (xDSLOptMain closes its stream)."""

    def close(self) -> None:
        pass


class RegcopyOptMain(xDSLOptMain):
    version_format = "regcopy-opt (xdsl {xdsl_version})"

    def __init__(self, args: Sequence[str] | None = None):
        self._buffer = _Buffer()
        self._chunk_offset = 0
        super().__init__(description="regcopy modular optimizer driver", args=args)

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        registered = self.ctx._registered_dialects  # pyright: ignore[reportPrivateUsage]
        registered.update(DIALECT_OVERRIDES)  # no public API replaces a registered dialect
        for name, factory in REGCOPY_UNIVERSE.all_dialects.items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_frontends(self) -> None:
        """The MLIR frontend records each op's ``file:line:col`` (``regcopy_dialect.source``)."""
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            return parse_located(self.ctx, io.read(), self.get_input_name(), self._chunk_offset,
                                 not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_mlir

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in REGCOPY_UNIVERSE.all_passes.items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        for name, factory in REGCOPY_UNIVERSE.all_targets.items():
            self.available_targets.setdefault(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument("--lower-reg-copy", action="store_true",
                                help="shorthand for -p lower-reg-copy (after any -p passes)")
        from regcopy_passes.lower_reg_copy import LowerRegCopyPass  # not needed to start up
        from regcopy_passes.core.options import options_help

        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        arg_parser.epilog = options_help(LowerRegCopyPass.name, LowerRegCopyPass.options())

    def setup_pipeline(self) -> None:
        if self.args.lower_reg_copy:
            self.args.passes = ",".join(p for p in (self.args.passes, "lower-reg-copy") if p)
        super().setup_pipeline()

    def parse_chunk(self, chunk: IO[bytes], file_extension: str,
                    start_offset: int = 0) -> ModuleOp | None:
        self._chunk_offset = start_offset
        try:
            module = super().parse_chunk(chunk, file_extension, start_offset)
        except ParseError as e:
            if type(e) is not ParseError:
                raise
            raise _ParseDiagnostic(e.span, e.msg) from None
        if module is not None and not self.args.disable_verify and not self.args.verify_diagnostics:
            if (bad := first_invalid_op(module)) is not None:
                op, err = bad
                raise _Diagnostic(op_error(op, f"does not verify: {err}"))
        return module

    def prepare_output(self) -> IO[str]:
        if self.args.verify_diagnostics or self.args.parsing_diagnostics:
            return super().prepare_output()  # diagnostics interleave with output, in order
        return self._buffer

    def flush(self) -> None:
        """Write the held-back output to ``-o`` or stdout."""
        text = self._buffer.getvalue()
        if self.args.output_file is None:
            sys.stdout.write(text)
        else:
            with open(self.args.output_file, "w") as f:
                f.write(text)


class _Diagnostic(Exception):
    """A diagnostic already phrased for the user."""


class _ParseDiagnostic(ParseError):
    """A parse error that prints as one ``file:line:col: error:`` line, the source line and
    carets (also under ``--parsing-diagnostics``, which prints the exception)."""

    def __str__(self) -> str:
        return parse_error(self)


def _message(e: BaseException) -> str:
    if isinstance(e, ParseError):
        return parse_error(e)
    if isinstance(e, _Diagnostic):
        return str(e)
    if isinstance(e, DiagnosticException):
        return str(e.args[0]) if e.args else str(e)
    return f"{type(e).__name__}: {e}"


def main(args: Sequence[str] | None = None) -> None:
    try:
        tool = RegcopyOptMain(args=args)
        tool.run()
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 - no traceback reaches the user
        if os.environ.get("REGCOPY_TRACEBACK"):
            raise
        print(format_error("regcopy-opt", _message(e)), file=sys.stderr)
        sys.exit(1)
    tool.flush()


if __name__ == "__main__":
    main()
