"""Stand-ins for `functools.cache`, `functools.cached_property` and a compiled regular expression
that import nothing until they are used.

`re` costs ~5 ms to import (with `enum` and `functools`, which it brings) and `functools` alone
~1.5 ms: a tenth of a `tether history` that races `git log -L` on a small file, whose way needs
neither (docs/benchmarks.md, "History accuracy and speed"). The modules on that way take these
instead. Type checkers see functools' own and `re.Pattern`: the behaviour is theirs for what they
are used for here (functions of hashable positional arguments; properties of objects with a
`__dict__`; `search` and `fullmatch`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from functools import cache, cached_property
    from re import Match
    from typing import AnyStr, Generic

    class Pattern(Generic[AnyStr]):
        """As `re.compile(source)`, compiled at the first search."""

        def __init__(self, source: AnyStr) -> None: ...
        def search(self, text: AnyStr, pos: int = 0, endpos: int = ...) -> Match[AnyStr] | None: ...
        def fullmatch(self, text: AnyStr) -> Match[AnyStr] | None: ...

else:

    def cache(func):
        """`functools.cache` for positional, hashable arguments."""
        memo = {}

        def cached(*args):
            try:
                return memo[args]
            except KeyError:
                value = memo[args] = func(*args)
                return value

        cached.__name__, cached.__doc__, cached.__wrapped__ = func.__name__, func.__doc__, func
        cached.cache_clear = memo.clear
        return cached

    class cached_property:  # noqa: N801 - named as the one it stands for
        """`functools.cached_property` (without its per-class lock, which 3.12 dropped too)."""

        def __init__(self, func):
            self.func, self.attrname, self.__doc__ = func, func.__name__, func.__doc__

        def __set_name__(self, owner, name):
            self.attrname = name

        def __get__(self, instance, owner=None):
            if instance is None:
                return self
            value = instance.__dict__[self.attrname] = self.func(instance)
            return value

    class Pattern:
        """A regular expression compiled at its first search."""

        __slots__ = ("source", "_compiled")

        def __init__(self, source):
            self.source = source
            self._compiled = None

        def _pattern(self):
            if self._compiled is None:
                import re

                self._compiled = re.compile(self.source)
            return self._compiled

        def search(self, text, pos=0, endpos=None):
            pattern = self._compiled or self._pattern()
            return (
                pattern.search(text, pos) if endpos is None else pattern.search(text, pos, endpos)
            )

        def fullmatch(self, text):
            return (self._compiled or self._pattern()).fullmatch(text)
