"""What the CUDA printer still knows about offsets: integer literals and the width of index math.

The printer never addresses a layout: ``lower-layout-access`` (run by ``print_cuda``) turns
every access by logical indices into ``arith`` index math on the layout algebra
(``regcopy_dialect.address.physical_offset``) and an access to 1-D flat storage. What is left
here is how that math is typed and spelled:

* index math is ``int``, or ``long long`` in a function touching a static buffer of 2^31
  elements or more (``kernel_info.needs_index64``): a 32-bit offset there overflows (TIRx's
  dispatch breaks at exactly that size);
* a function touching runtime-shaped buffers (whose sizes the printer cannot know) computes in
  ``rc_index``, a typedef of the module: ``long long`` as printed, ``int`` when the source is
  compiled with ``-DREGCOPY_INDEX32``, which the runner does when every offset the launch can
  form fits in 32 bits (``runtime.index_width``); its literals are plain (an ``int`` operand
  widens to ``rc_index``), its extents, strides and ``index`` scalars are ``long long``
  parameters cast to ``rc_index`` where they are read;
* an integer literal outside the 32-bit range carries ``LL``.
"""

from __future__ import annotations

from xdsl.dialects import func

from regcopy_backend.cuda.types import INDEX_32, INDEX_64, INDEX_SWITCH
from regcopy_backend.cuda.kernel_info import needs_index64, switchable_index

INT32_MAX = 2**31 - 1


def int_literal(value: int) -> str:
    """A C integer literal; ``LL`` once the value leaves the 32-bit range."""
    if -INT32_MAX <= value <= INT32_MAX:
        return str(value)
    return f"{value}LL"


def index_ctype(f: func.FuncOp) -> str:
    """The C type of ``index`` values in ``f``: ``rc_index`` when ``f`` touches runtime-shaped
    buffers (``kernel_info.switchable_index``: the width is chosen when the source is
    compiled), ``long long`` when it touches a buffer of 2^31 elements or more (its offsets
    need 64 bits), else ``int``."""
    if switchable_index(f):
        return INDEX_SWITCH
    return INDEX_64 if needs_index64(f) else INDEX_32
