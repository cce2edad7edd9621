"""A tag's walk: a piecewise-linear path through timed waypoints (see README.md, "Virtual site")."""

from __future__ import annotations

import bisect
import dataclasses

from config import Position


@dataclasses.dataclass(frozen=True)
class Waypoint:
    t: float  # seconds after the site's t = 0
    position: Position


class Track:
    """Position at time t by linear interpolation between the waypoints around t.

    Before the first waypoint the tag waits there; after the last it stays there, or with `loop` the walk repeats
    with period T = the last waypoint's t (so p(t) = p(t mod T); make the last waypoint equal the first for a
    closed walk, or the tag jumps back).
    """

    def __init__(self, waypoints: list[Waypoint], loop: bool = False) -> None:
        if not waypoints:
            raise ValueError("a track needs at least one waypoint")
        if any(b.t <= a.t for a, b in zip(waypoints, waypoints[1:])):
            raise ValueError("waypoint times must increase")
        self.waypoints = waypoints
        self.loop = loop and waypoints[-1].t > 0
        self.times = [w.t for w in waypoints]

    @property
    def period_s(self) -> float | None:
        """How long one walk takes when it loops, None otherwise."""
        return self.times[-1] if self.loop else None

    def position_at(self, t: float) -> Position:
        """p(t) = p_i + (t - t_i) / (t_{i+1} - t_i) * (p_{i+1} - p_i) for t_i <= t < t_{i+1}."""
        if self.loop and t > self.times[-1]:
            t %= self.times[-1]
        i = bisect.bisect_right(self.times, t)
        if i == 0:
            return self.waypoints[0].position
        if i == len(self.waypoints):
            return self.waypoints[-1].position
        a, b = self.waypoints[i - 1], self.waypoints[i]
        u = (t - a.t) / (b.t - a.t)
        return Position(*(p + u * (q - p) for p, q in zip(_xyz(a.position), _xyz(b.position))))


def _xyz(p: Position) -> tuple[float, float, float]:
    return (p.x, p.y, p.z)
