"""Equality and hashing by a key, for the plain classes on the way of `tether history`, which
does not import `dataclasses` (see `anchors.history_walk.HistoryEntry`)."""

from __future__ import annotations


class Keyed:
    """Objects equal when they are of one class and their `_key()` tuples are equal (hashed by
    it too): what a frozen dataclass gives for the fields it compares."""

    __slots__ = ()

    def _key(self) -> tuple[object, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Keyed)
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())
