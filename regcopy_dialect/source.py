"""Parsing that remembers where each op came from.

xDSL 0.74's parser keeps an op's location only when the text spells it (``loc("f.mlir":3:5)``);
otherwise every op gets ``loc(unknown)``. ``LocatingParser`` gives each op it parses without
an explicit location a ``FileLineColLoc`` of its first token (the first result name, or the op
name when it has no results), so diagnostics can say ``file:line:col``.

It also lexes string literals in linear time: xDSL 0.74's pattern
``"(?:[^"\\\n\v\f]+|\\(...))*"`` nests quantifiers, so an unterminated ``"`` followed by a
long line backtracks exponentially (the parse hangs instead of reporting the missing quote).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser


STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')
"""xDSL's string-literal pattern with the inner ``+`` dropped: the same strings, no nested
quantifier."""


class LocatingParser(Parser):
    """An xDSL ``Parser`` that sets ``op.location`` to ``name:line:col`` for every op whose text
    carries no ``loc(...)``. ``line_offset`` is added to line numbers (the chunk's first line
    minus one under ``--split-input-file``)."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>",
                 line_offset: int = 0) -> None:
        super().__init__(ctx, input, name)
        self.lexer._unescaped_characters_regex = STRING_LITERAL  # pyright: ignore[reportPrivateUsage]
        text = self.lexer.input.content
        self._line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        self._line_offset = line_offset
        self._file = StringAttr(name)

    def _location(self, pos: int) -> FileLineColLoc:
        """Line ``l`` (1-based) holds positions ``[starts[l-1], starts[l])``."""
        line = bisect_right(self._line_starts, pos)
        col = pos - self._line_starts[line - 1] + 1
        return FileLineColLoc(self._file, IntAttr(line + self._line_offset), IntAttr(col))

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            op.location = self._location(start)
        return op


def parse_located(ctx: Context, text: str | bytes, name: str, line_offset: int = 0,
                  allow_implicit_module: bool = True) -> ModuleOp:
    """Parse a module whose ops carry ``name:line:col`` locations (see ``LocatingParser``)."""
    return LocatingParser(ctx, text, name, line_offset).parse_module(allow_implicit_module)
