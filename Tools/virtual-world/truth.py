"""The tags' true positions as BlueDot truth JSONL (docs/formats.md, "Truth stream"), on a fixed time grid."""

from __future__ import annotations

import asyncio
import json
import math
import time
from typing import Callable

INTERVAL_S = 0.1


def truth_line(t: float, target: str, x: float, y: float, z: float) -> str:
    """`{"t": ..., "target": ..., "x": ..., "y": ..., "z": ...}` with the datasets' decimals (t and positions 3)."""
    def fixed(value: float) -> str:
        return f"{round(value, 3) + 0.0:.3f}"  # + 0.0 turns -0.0 into 0.0: never "-0.000"
    return (f'{{"t": {t:.3f}, "target": {json.dumps(target)}, "x": {fixed(x)}, "y": {fixed(y)}, '
            f'"z": {fixed(z)}}}\n')


class TruthWriter:
    """Writes every tag's position at t = start + k * INTERVAL_S * rate for each k from now on (wall-clock grid
    point start + k * INTERVAL_S), flushed after each k.

    The grid is anchored at `start`, so lines and their times do not depend on when the writer wakes up; a late
    wake-up skips the grid points already past rather than writing them late.
    """

    def __init__(self, path: str, tags: list, start: float, clock: Callable[[], float] = time.time,
                 rate: float = 1.0) -> None:
        self.file = open(path, "w", encoding="utf-8")
        self.tags = tags
        self.start = start
        self.clock = clock
        self.rate = rate  # track seconds per wall-clock second (site.py --rate): grid point k is at track time k * 0.1 * rate

    def lines(self, k: int) -> str:
        """The lines of grid point k."""
        elapsed = k * INTERVAL_S * self.rate
        out = []
        for tag in self.tags:
            p = tag.position_at(elapsed)
            out.append(truth_line(self.start + elapsed, tag.id, p.x, p.y, p.z))
        return "".join(out)

    def next_k(self) -> int:
        return math.ceil(round((self.clock() - self.start) / INTERVAL_S, 9))

    async def run(self) -> None:
        k = self.next_k()
        while True:
            await asyncio.sleep(max(0.0, self.start + k * INTERVAL_S - self.clock()))
            self.file.write(self.lines(k))
            self.file.flush()
            k = max(k + 1, self.next_k())

    def close(self) -> None:
        self.file.close()
