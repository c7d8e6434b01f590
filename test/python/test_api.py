"""The Python API: layouts from strings, builders, ``lower`` and ``to_cuda``."""

from __future__ import annotations

import subprocess
import sys

import pytest
from xdsl.dialects import vector
from xdsl.passes import PassPipeline
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.utils.exceptions import PassFailedException

import regcopy_dialect as rd
from regcopy_backend import to_cuda
from regcopy_dialect.layout import Iter, Layout, Swizzle
from regcopy_dialect.regcopy import CopyOp, LaunchAttr
from regcopy_passes import LowerRegCopyPass, lower


def _vector_widths(module) -> list[int]:  # type: ignore[no-untyped-def]
    return [op.result.type.get_shape()[0] for op in module.walk()
            if isinstance(op, vector.LoadOp)]


def test_parse_layout_returns_the_layout_value() -> None:
    assert rd.parse_layout("(32,8):(1@laneid,1)") == Layout((Iter(32, 1, "laneid"), Iter(8, 1)))
    assert rd.parse_layout("256:1") == Layout((Iter(256, 1),))
    sw = rd.parse_layout("(64,64):(64,1), swizzle<3,3,3>")
    assert sw.swizzle == Swizzle(3, 3, 3)
    assert str(sw) == "(64,64):(64,1), swizzle<3,3,3>"


@pytest.mark.parametrize("text, column, words", [
    ("(32,8):(1@lane,1)", 10, "unknown thread axis '@lane'"),
    ("(32,8):(1@laneid,1) junk", 21, "unexpected text"),
    ("(32,8):(1@laneid)", 1, "2 extents but 1 strides"),
    ("(32,8):(1@laneid,0)", 1, "not injective"),
])
def test_parse_layout_errors_give_the_column(text: str, column: int, words: str) -> None:
    with pytest.raises(ValueError) as info:
        rd.parse_layout(text)
    assert isinstance(info.value, rd.LayoutSyntaxError)
    assert info.value.column == column
    assert f"column {column}" in str(info.value) and words in str(info.value)


def test_buffer_types_print_as_the_ir_syntax() -> None:
    assert str(rd.local_buffer_type([32, 8], "f32", "(32,8):(1@laneid,1)")) == \
        "memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>"
    assert str(rd.shared_buffer_type([64, 64], "f16", "(64,64):(64,1), swizzle<3,3,3>",
                                     dynamic=True)) == \
        "memref<64x64xf16, #regcopy.layout<(64,64):(64,1), swizzle<3,3,3>>, " \
        "#regcopy.mem<shared.dyn>>"
    assert str(rd.global_buffer_type([4], "ui8")) == "memref<4xui8, #regcopy.mem<global>>"


@pytest.mark.parametrize("call", [
    lambda: rd.local_buffer_type([16, 8], "f32", "(32,8):(1@laneid,1)"),   # does not fit
    lambda: rd.shared_buffer_type([32, 8], "f32", "(32,8):(1@laneid,1)"),  # thread axis
    lambda: rd.global_buffer_type([32], "f4"),                              # unknown type
])
def test_bad_buffer_types_are_value_errors(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        call()


def _seed_kernel(dtype: str = "f32", k: int = 8) -> rd.KernelBuilder:
    t = rd.global_buffer_type([32, k], dtype)
    with rd.kernel("seed", {"src": t, "dst": t}, block=32) as kb:
        r = kb.alloca(rd.local_buffer_type([32, k], dtype, f"(32,{k}):(1@laneid,1)"), "R")
        s = kb.alloca(rd.shared_buffer_type([32, k], dtype), "S")
        rd.copy("warp", kb.arg("src"), s)  # not a register copy: stays in the IR
        kb.barrier()
        rd.copy("warp", s, r)
        rd.copy("warp", r, kb.arg("dst"), dst_region=([0, 0], [32, k]))
    return kb


def test_kernel_builder_builds_a_verified_kernel() -> None:
    module = _seed_kernel().module()
    f = module.ops.first
    assert isinstance(f.attributes["regcopy.launch"], LaunchAttr)
    assert [a.name_hint for a in f.body.block.args] == ["src", "dst"]
    assert sum(isinstance(op, CopyOp) for op in module.walk()) == 3
    assert "func.return" in str(module)


@pytest.mark.parametrize("dtype, k, bits, widths", [
    ("f32", 8, 128, [4, 4]), ("f16", 16, 128, [8, 8]), ("f32", 8, 64, [2, 2])])
def test_lower_takes_the_pass_options(dtype: str, k: int, bits: int, widths: list[int]) -> None:
    module = lower(_seed_kernel(dtype, k).module(), max_vector_bits=bits, bank_rotation="off")
    assert _vector_widths(module) == widths
    assert sum(isinstance(op, CopyOp) for op in module.walk()) == 1  # the shared<-global one


def test_lower_strict_raises_with_the_reason() -> None:
    with pytest.raises(PassFailedException, match="exactly one side must be local"):
        lower(_seed_kernel().module(), strict=True)


def test_to_cuda_prints_the_lowered_kernel() -> None:
    t = rd.global_buffer_type([32, 8], "f32")
    with rd.kernel("rt", [t, t], block=32) as kb:
        r = kb.alloca(rd.local_buffer_type([32, 8], "f32", "(32,8):(1@laneid,1)"))
        rd.copy("warp", kb.args[0], r)
        rd.copy("warp", r, kb.args[1])
    module = kb.module()
    PassPipeline((LowerRegCopyPass(), CanonicalizePass())).apply(rd.regcopy_context(), module)
    source = to_cuda(module)
    assert 'extern "C" __global__' in source and " rt(" in source
    assert source.count("reinterpret_cast<uint4*>") == 2  # two 128-bit stores


def test_divisibility_promise_is_an_argument_attribute() -> None:
    from xdsl.dialects.builtin import IndexType

    kb = rd.kernel("k", {"A": rd.global_buffer_type([8], "f32"), "n": IndexType()}, block=32,
                   divisibility={"n": 64})
    assert "regcopy.divisibility = 64 : i64" in str(kb.func)
    with pytest.raises(ValueError, match="unknown parameters"):
        rd.kernel("k", {"A": rd.global_buffer_type([8], "f32")}, block=32,
                  divisibility={"m": 2})


def test_layout_module_imports_without_xdsl() -> None:
    code = ("import sys; sys.modules['xdsl'] = None; import regcopy_dialect.layout as l; "
            "print(l.Layout.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "Layout"
