"""One argument for a whole batched env: the ``Rows`` box (a numba StructRef).

Calling a numba kernel costs about 60 ns per array it is given, which at one row per call is
most of a step: a kernel with the 17 common buffers, the game's state arrays and its constants
took about 2 µs to enter. A game's ``run_rows`` kernel takes one ``Rows`` box instead, holding

* ``common``: the tuple of ``COMMON_FIELDS`` buffers (``fox_envs.batch._rows``),
* ``state``: the tuple of the game's state arguments (``GameKernels.box_state``),
* ``extra``: the tuple of the game's constant arguments (``GameKernels.box_extra``),

and is entered through its compiled entry point (``entry``), which skips numba's argument
typing: one box is unboxed as one pointer. ``run_rows(box, lo, hi, mode, actions, max_moves,
auto_reset, final_view)`` does, for the rows ``[lo, hi)``, what ``mode`` says (``prepare``):

* ``STEP``: step ``actions`` as given (already checked);
* ``CHECK``: find the first illegal action (returned; nothing is stepped then), else step;
* ``RANDOM``: draw a random legal action per row from its pick stream into ``actions``, then step;
* ``PICK``: only draw those actions.
"""
from __future__ import annotations

from typing import Any, Callable

import numba
from numba import njit, types
from numba.experimental import structref

from fox_envs.batch._rows import first_illegal, random_legal

STEP, CHECK, RANDOM, PICK = 0, 1, 2, 3


@structref.register
class RowsType(types.StructRef):
    """The numba type of a ``Rows`` box: one per combination of buffer and state types."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(kind)) for name, kind in fields)


class Rows(structref.StructRefProxy):
    """A batched env's buffers, state and constants, passed to kernels as one argument."""


structref.define_proxy(Rows, RowsType, ["common", "state", "extra"])


@njit(cache=True)
def new_rows(common: tuple, state: tuple, extra: tuple) -> Rows:
    """A box holding the three tuples (compiled once per type, cached on disk)."""
    return Rows(common, state, extra)


@njit(cache=True, inline="always")
def prepare(common: tuple, lo: int, hi: int, mode: int, actions) -> int:
    """The ``mode``'s work on ``actions`` before a step of rows ``[lo, hi)`` (see the module):
    for ``CHECK`` the first row whose action is out of range or illegal (finished rows are
    skipped), else -1; for ``RANDOM`` / ``PICK`` ``actions[i]`` is drawn from the row's pick
    stream (-1 for a finished game), and -1 is returned."""
    mask, player, streams, legal, nlegal = common[1], common[2], common[8], common[13], common[14]
    if mode == CHECK:
        return first_illegal(actions, mask, player, legal, nlegal, lo, hi)
    if mode == RANDOM or mode == PICK:
        for i in range(lo, hi):
            actions[i] = random_legal(legal, nlegal, streams, i)
    return -1


def entry(kernel: Callable, *args: Any) -> Callable:
    """``kernel``'s compiled entry point for arguments of the types of ``args`` (compiled, or
    loaded from the cache, by calling it once with ``args``, which must be harmless to run): it
    takes the same arguments without numba's typing of each call. The caller must always pass
    arguments of exactly those types."""
    kernel(*args)
    signature = tuple(numba.typeof(value) for value in args)
    overload = kernel.overloads.get(signature)
    return kernel if overload is None else overload.entry_point
