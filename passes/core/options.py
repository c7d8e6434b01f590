"""Pass options from a ``-p`` spec, more forgiving than xDSL's default.

xDSL 0.74 maps ``{name=value ...}`` onto dataclass fields after turning ``-`` into ``_``, but a
bare ``{strict}`` fails (``Incompatible types: given (), expected bool``) and its errors name
the fields with underscores. ``parse_options`` accepts dash or underscore spellings, a bare
boolean as ``true``, and says what is wrong in the spelling the user writes (dashes).
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping, Sequence
from typing import Any, get_type_hints

from xdsl.utils.exceptions import PassFailedException


class PassOptionError(PassFailedException, ValueError):
    """A bad pass option: a diagnostic for the drivers, a ``ValueError`` for xDSL's API."""


def _dash(name: str) -> str:
    return name.replace("_", "-")


def _convert(pass_name: str, name: str, value: Sequence[object], kind: type,
             choices: Sequence[object] = ()) -> object:
    """One option value: ``()`` (bare) is ``true`` for booleans; otherwise a single value
    of the field's type (``bool`` only from ``true``/``false``, ``int`` never from a bool)."""
    shown = ",".join(str(v).lower() if isinstance(v, bool) else str(v) for v in value)
    if kind is bool:
        if len(value) == 0:
            return True
        if len(value) == 1 and isinstance(value[0], bool):
            return value[0]
        raise PassOptionError(f"{pass_name}: option {_dash(name)} expects true or false "
                              f"(or bare {_dash(name)} for true), got '{shown}'")
    if len(value) == 1 and isinstance(value[0], kind) and not isinstance(value[0], bool):
        return value[0]
    if kind is float and len(value) == 1 and isinstance(value[0], int) and \
            not isinstance(value[0], bool):
        return float(value[0])
    expected = ({int: "an integer", str: "a word", float: "a number"}.get(kind, kind.__name__)
                if not choices else f"one of {', '.join(map(str, choices))}")
    raise PassOptionError(f"{pass_name}: option {_dash(name)} expects {expected}, "
                          f"got '{shown}'" if value else
                          f"{pass_name}: option {_dash(name)} needs a value ({_dash(name)}=...)")


def parse_options(cls: type, parameters: Mapping[str, Sequence[object]],
                  choices: Mapping[str, Sequence[object]] | None = None) -> dict[str, Any]:
    """Keyword arguments for the frozen-dataclass pass ``cls`` from a spec's parameters
    (``choices``: the valid values of some fields, named in type errors; the pass itself
    checks membership)."""
    choices = choices or {}
    hints = get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls) if f.init and f.name != "name"]
    pass_name = getattr(cls, "name", cls.__name__)
    kwargs: dict[str, Any] = {}
    for raw, value in parameters.items():
        key = raw.replace("-", "_")
        if key not in fields:
            close = difflib.get_close_matches(key, fields, n=1)
            hint = f" (did you mean {_dash(close[0])}?)" if close else ""
            raise PassOptionError(f"{pass_name}: unknown option '{raw}'{hint}; the options are "
                                  f"{', '.join(map(_dash, fields))}")
        if key in kwargs:
            raise PassOptionError(f"{pass_name}: option {_dash(key)} is given twice")
        kwargs[key] = _convert(pass_name, key, tuple(value), hints[key], choices.get(key, ()))
    return kwargs


@dataclasses.dataclass(frozen=True)
class OptionSpec:
    """One option of a frozen-dataclass pass, as its fields declare it: the dashed ``name``,
    the field's type ``kind``, its ``default`` and, where the pass restricts them, ``choices``
    (the default among them)."""

    name: str
    kind: type
    default: object
    choices: tuple[object, ...] = ()

    def values(self) -> str:
        """The values in user spelling, default first: ``128, 64, 32, 16, 8`` / ``false, true``."""
        if self.kind is bool:
            return ", ".join(_spell(v) for v in (self.default, not self.default))
        if not self.choices:
            return f"{_spell(self.default)}, any {self.kind.__name__}"
        rest = [c for c in self.choices if c != self.default]
        if self.kind is int:
            rest.sort(key=lambda c: c if isinstance(c, int) else 0, reverse=True)
        return ", ".join(_spell(v) for v in (self.default, *rest))


def _spell(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def option_specs(cls: type, choices: Mapping[str, Sequence[object]] | None = None
                 ) -> tuple[OptionSpec, ...]:
    """The options of the frozen-dataclass pass ``cls``, in field order: the one declaration
    that ``-p`` parsing, ``regcopy-opt --help`` and the documentation tables are checked against."""
    choices = choices or {}
    hints = get_type_hints(cls)
    return tuple(OptionSpec(_dash(f.name), hints[f.name], f.default, tuple(choices.get(f.name, ())))
                 for f in dataclasses.fields(cls) if f.init and f.name != "name")


def options_help(pass_name: str, specs: Sequence[OptionSpec]) -> str:
    """``--help`` lines for a pass's options: ``  name: values (default first)``."""
    width = max(len(s.name) for s in specs)
    lines = [f"options of {pass_name} (-p '{pass_name}{{{specs[0].name}=...}}'):"]
    lines += [f"  {s.name.ljust(width)}  {s.values()}" for s in specs]
    return "\n".join(lines)
