"""Parsing that remembers where each op came from.

xDSL 0.74's parser keeps an op's location only when the text spells it (``loc("f.mlir":3:5)``);
otherwise every op gets ``loc(unknown)``. ``LocatingParser`` gives each op it parses without
an explicit location a ``FileLineColLoc`` of its first token (the first result name, or the op
name when it has no results), so diagnostics can say ``file:line:col``, and remembers the text it
parsed so that a diagnostic can quote the line (``quote``).

It also lexes string literals in linear time: xDSL 0.74's pattern
``"(?:[^"\\\n\v\f]+|\\(...))*"`` nests quantifiers, so an unterminated ``"`` followed by a
long line backtracks exponentially (the parse hangs instead of reporting the missing quote).
"""

from __future__ import annotations

import linecache
import re
from bisect import bisect_right

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException


STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')
"""xDSL's string-literal pattern with the inner ``+`` dropped: the same strings, no nested
quantifier."""


_SOURCES: dict[str, dict[int, str]] = {}
"""The lines of each parsed input by name: ``_SOURCES[name][line]`` (1-based, offset applied)."""


def remember_source(name: str, text: str, line_offset: int = 0) -> None:
    """Record ``text`` as lines ``line_offset + 1 ...`` of input ``name``. A chunk that starts
    the input (offset 0) forgets what an earlier parse of the same name recorded."""
    lines = _SOURCES.setdefault(name, {})
    if not line_offset:
        lines.clear()
    lines.update({line_offset + i: line for i, line in enumerate(text.split("\n"), 1)})


def source_line(name: str, line: int) -> str | None:
    """Line ``line`` (1-based) of input ``name``: from a parse in this process, else read from
    the file of that name; None when neither has it."""
    if (text := _SOURCES.get(name, {}).get(line)) is None:
        text = linecache.getline(name, line) or None
    return None if text is None else text.rstrip("\r\n")


def quote(name: str, line: int, col: int, width: int = 1) -> list[str]:
    """The source line and, under column ``col`` (1-based), ``width`` carets (clang's layout):
    ``["  %T = memref.alloca()", "       ^^^^^^"]``; tabs before the column are kept so the
    caret lines up. Empty when the line is not known."""
    if (text := source_line(name, line)) is None:
        return []
    start = min(max(col - 1, 0), len(text))
    pad = "".join(c if c == "\t" else " " for c in text[:start])
    return [text, pad + "^" * max(1, min(width, len(text) - start))]


def quote_location(where: str) -> list[str]:
    """``quote`` for a ``file:line:col`` string (empty when it is not one)."""
    parts = where.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        return []
    return quote(parts[0], int(parts[1]), int(parts[2]))


class LocatingParser(Parser):
    """An xDSL ``Parser`` that sets ``op.location`` to ``name:line:col`` for every op whose text
    carries no ``loc(...)``. ``line_offset`` is added to line numbers (the chunk's first line
    minus one under ``--split-input-file``)."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>",
                 line_offset: int = 0) -> None:
        super().__init__(ctx, input, name)
        self.lexer._unescaped_characters_regex = STRING_LITERAL  # type: ignore[attr-defined]  # pyright: ignore[reportPrivateUsage]
        text = self.lexer.input.content
        remember_source(name, text, line_offset)
        self._line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        self._text_len = len(text)
        self._line_offset = line_offset
        self._file = StringAttr(name)

    def _location(self, pos: int) -> FileLineColLoc:
        """Line ``l`` (1-based) holds positions ``[starts[l-1], starts[l])``."""
        line = bisect_right(self._line_starts, pos)
        col = pos - self._line_starts[line - 1] + 1
        return FileLineColLoc(self._file, IntAttr(line + self._line_offset), IntAttr(col))

    def _line_end(self, pos: int) -> int:
        line = bisect_right(self._line_starts, pos)
        return self._line_starts[line] - 1 if line < len(self._line_starts) else self._text_len

    def parse_operation(self) -> Operation:
        """Also turns a ``VerifyException``/``ValueError`` raised while the op is built (xDSL
        checks attribute values there, e.g. ``arith.constant 8 : i1``) into a ``ParseError``
        at the op, instead of a message with no location."""
        start = self._current_token.span.start
        try:
            op = super().parse_operation()
        except (VerifyException, ValueError) as e:
            end = min(self.pos, self._line_end(start))
            self.raise_error(str(e.args[0]) if e.args else type(e).__name__, start, end)
        if isinstance(op.location, UnknownLoc):
            op.location = self._location(start)
        return op


def parse_located(ctx: Context, text: str | bytes, name: str, line_offset: int = 0,
                  allow_implicit_module: bool = True) -> ModuleOp:
    """Parse a module whose ops carry ``name:line:col`` locations (see ``LocatingParser``)."""
    return LocatingParser(ctx, text, name, line_offset).parse_module(allow_implicit_module)
