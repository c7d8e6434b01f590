"""The options of ``lower-reg-copy`` are declared once, by the pass dataclass's fields (and the
choices beside them): ``regcopy-opt --help``, the option table of docs/pass.md, the README's
list, the pass docstring and every ``option=value`` the product writes (remarks, warnings) agree
with that declaration."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from regcopy_passes.lower_reg_copy import LowerRegCopyPass
from regcopy_passes.core.options import OptionSpec
from regcopy_tools.regcopy_opt import main

ROOT = Path(__file__).resolve().parents[2]
SPECS = {s.name: s for s in LowerRegCopyPass.options()}
PRODUCT = ("regcopy_dialect", "passes", "backend", "tools", "bench")


def _doc_rows() -> dict[str, tuple[str, str]]:
    """docs/pass.md's option table: name -> (values column, meaning column)."""
    text = (ROOT / "docs" / "pass.md").read_text()
    table = text[text.index("## Options"):].split("\n\n")[1]
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


def test_the_declaration_is_what_the_pass_takes() -> None:
    assert list(SPECS) == ["max-vector-bits", "strict", "remarks", "warn-unlowered",
                           "bank-rotation", "transfer", "select-weight", "fma-swap-share",
                           "conversion", "misaligned-stores"]
    for spec in SPECS.values():
        if spec.choices:
            assert spec.default in spec.choices, spec
            for value in spec.choices:  # every declared choice builds a pass
                LowerRegCopyPass(**{spec.name.replace("-", "_"): value})


def test_help_lists_every_option_with_its_values(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for spec in SPECS.values():
        assert re.search(rf"^  {re.escape(spec.name)} +{re.escape(spec.values())}$", out,
                         re.MULTILINE), spec.name


def test_the_docs_table_has_every_option_default_first_and_every_choice() -> None:
    rows = _doc_rows()
    assert list(rows) == list(SPECS)
    for name, (values, _) in rows.items():
        spec = SPECS[name]
        words = [w.strip("` ") for w in values.split(",")]
        default = words[0].split(" ")[0].strip("`")
        if spec.kind is float:
            num, _, den = default.partition("/")
            assert float(num) / float(den or 1) == pytest.approx(spec.default), name
        else:
            assert default == OptionSpec(name, spec.kind, spec.default).values().split(", ")[0]
        if spec.choices:  # exactly the declared choices, default first
            assert words == spec.values().split(", "), name


def test_readme_and_docstring_name_every_option_and_choice() -> None:
    readme = (ROOT / "README.md").read_text()
    doc = LowerRegCopyPass.__doc__ or ""
    for spec in SPECS.values():
        assert f"`{spec.name}`" in readme, spec.name
        assert f"``{spec.name}``" in doc, spec.name
        if spec.kind is str:
            for choice in spec.choices:
                assert f"``{choice}``" in doc, (spec.name, choice)
    for choice in SPECS["transfer"].choices:
        assert f"`{choice}`" in readme, choice


def test_every_option_value_the_product_writes_is_declared() -> None:
    """Remarks, warnings and docs say ``transfer=matrix``, ``bank-rotation=off``...: each such
    value must be one the pass accepts (a renamed or dropped choice fails here)."""
    names = "|".join(re.escape(n) for n, s in SPECS.items() if s.choices)
    pattern = re.compile(rf"\b({names})=([a-z0-9]+)\b")
    found = 0
    files = [p for d in PRODUCT for p in (ROOT / d).rglob("*.py")]
    files += [*(ROOT / "docs").glob("*.md"), ROOT / "README.md"]
    for path in files:
        for m in pattern.finditer(path.read_text()):
            if path.suffix == ".py" and m.string[m.end():m.end() + 1] in (",", ")"):
                continue  # a keyword argument (``transfer=transfer``), not text
            line_end = m.string.find("\n", m.end())
            if "# exit 1" in m.string[m.end():line_end]:
                continue  # a documented bad value, shown with its error
            found += 1
            assert m.group(2) in map(str, SPECS[m.group(1)].choices), \
                f"{path.relative_to(ROOT)}: {m.group(0)}"
    assert found > 10
