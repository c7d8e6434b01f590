"""Imports flow one way: no circle between modules, none between subpackages, and the layers
keep their order (dialect < passes < backend.cuda < backend.interpreter < backend.runtime <
tools < bench). Every import counts, also one inside a function or under ``TYPE_CHECKING``
(``import_graph``)."""

from __future__ import annotations

from import_graph import cycles, graph

LAYERS = ("regcopy_dialect", "regcopy_passes", "regcopy_backend.host_data", "regcopy_backend.cuda",
          "regcopy_backend.interpreter", "regcopy_backend.runtime", "regcopy_tools",
          "regcopy_bench")
"""Lowest first: a module may import its own layer and those below, never one above."""


def _unit(module: str) -> str:
    """A module's subpackage (``regcopy_passes.core``, ``regcopy_backend.cuda``), or the module
    itself at the top of a package; the dialect, tools and bench are one unit each."""
    parts = module.split(".")
    if parts[0] in ("regcopy_dialect", "regcopy_tools", "regcopy_bench"):
        return parts[0]
    return ".".join(parts[:2]) if len(parts) >= 3 else module


def _layer(module: str) -> int:
    matches = [k for k, name in enumerate(LAYERS)
               if module == name or module.startswith(name + ".")]
    if matches:
        return max(matches)
    return LAYERS.index(module.split(".")[0]) if module.split(".")[0] in LAYERS else \
        LAYERS.index("regcopy_backend.runtime")  # regcopy_backend's own __init__ re-exports


G = graph()


def test_the_graph_sees_the_packages() -> None:
    assert len(G) > 100
    assert "regcopy_passes.reg_copy.plan" in G["regcopy_passes.lower_reg_copy"]


def test_no_module_imports_itself_back() -> None:
    assert cycles(G) == []


def test_no_subpackage_imports_itself_back() -> None:
    units: dict[str, set[str]] = {}
    for module, deps in G.items():
        units.setdefault(_unit(module), set()).update(
            u for d in deps if (u := _unit(d)) != _unit(module))
    assert cycles(units) == []


def test_layers_import_downward_only() -> None:
    upward = sorted(f"{m} -> {d}" for m, deps in G.items() for d in deps
                    if _layer(d) > _layer(m))
    assert upward == []
