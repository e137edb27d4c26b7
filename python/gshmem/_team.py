"""Teams: the predefined ones and those that splits and team unique IDs make."""

from __future__ import annotations

from typing import Optional, Tuple

from . import _native


class Team(int):
    """A team of PEs: its team number, with the team's methods. An int, so that it passes wherever a team number
    does, and the bindings read it as they read an int (no method call per collective)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Team({int(self)})"

    def my_pe(self) -> int:
        """This PE's index in the team, or -1 if it is not a member."""
        return _native.team_my_pe(self)

    def n_pes(self) -> int:
        """The number of members, or -1 for a team this PE is not in."""
        return _native.team_n_pes(self)

    def translate_pe(self, pe: int, dest: "Team | int") -> int:
        """The index in ``dest`` of member ``pe`` of this team, or -1."""
        return _native.team_translate_pe(self, int(pe), int(dest))

    def split_strided(self, start: int, stride: int, size: int) -> Optional["Team"]:
        """A team of the members start + i * stride, i < size (collective over this team); None on a PE that is
        not in it."""
        t = _native.team_split_strided(self, int(start), int(stride), int(size))
        return None if t == _native.TEAM_INVALID else Team(t)

    def split_2d(self, xrange: int) -> Tuple[Optional["Team"], Optional["Team"]]:
        """(row, column): rows of ``xrange`` members and the columns across them (collective over this team)."""
        x, y = _native.team_split_2d(self, int(xrange))
        return (None if x == _native.TEAM_INVALID else Team(x), None if y == _native.TEAM_INVALID else Team(y))

    def destroy(self) -> None:
        """Destroys a team that a split made (collective over its members)."""
        _native.team_destroy(self)

    def __enter__(self) -> "Team":
        return self

    def __exit__(self, *exc: object) -> None:
        self.destroy()

    @staticmethod
    def uniqueid() -> int:
        """An ID for :meth:`from_uniqueid` (on one PE; hand it to the members)."""
        return _native.team_uniqueid()

    @staticmethod
    def from_uniqueid(uniqueid: int, npes: int, index: int) -> Optional["Team"]:
        """The team of ``npes`` PEs that share ``uniqueid``; this PE is member ``index`` (collective over them)."""
        t = _native.team_init(int(uniqueid), int(npes), int(index))
        return None if t == _native.TEAM_INVALID else Team(t)


TEAM_WORLD = Team(_native.TEAM_WORLD)
TEAM_SHARED = Team(_native.TEAM_SHARED)
TEAM_NODE = Team(_native.TEAM_NODE)
TEAM_SAME_MYPE_NODE = Team(_native.TEAM_SAME_MYPE_NODE)
