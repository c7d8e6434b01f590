"""What the CUDA printer still knows about offsets: integer literals and the width of index math.

The printer never addresses a layout: ``lower-layout-access`` (run by ``print_cuda``) turns
every access by logical indices into ``arith`` index math on the layout algebra
(``regcopy_dialect.address.physical_offset``) and an access to 1-D flat storage. What is left
here is how that math is typed and spelled:

* index math is ``int``, or ``long long`` in a function touching a buffer of 2^31 elements or
  more (``kernel_info.needs_index64``): a 32-bit offset there overflows (TIRx's dispatch breaks
  at exactly that size);
* an integer literal outside the 32-bit range carries ``LL``.
"""

from __future__ import annotations

from xdsl.dialects import func

from regcopy_backend.cuda.types import INDEX_32, INDEX_64
from regcopy_backend.cuda.kernel_info import needs_index64

INT32_MAX = 2**31 - 1


def int_literal(value: int) -> str:
    """A C integer literal; ``LL`` once the value leaves the 32-bit range."""
    if -INT32_MAX <= value <= INT32_MAX:
        return str(value)
    return f"{value}LL"


def index_ctype(f: func.FuncOp) -> str:
    """The C type of ``index`` values in ``f``: ``long long`` when ``f`` touches a buffer of
    2^31 elements or more (its offsets need 64 bits), else ``int``."""
    return INDEX_64 if needs_index64(f) else INDEX_32
