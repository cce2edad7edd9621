"""The radio model: log-distance path loss with optional seeded Gaussian shadowing."""

from __future__ import annotations

import math
import random

MIN_DISTANCE_M = 0.1  # closer than this the far-field model means nothing; clamp instead of log10(0)


class PathLoss:
    """rssi(d) = measuredPower - 10 n log10(d) + X, with X ~ N(0, sigma^2) from a seeded generator."""

    def __init__(self, sigma_db: float = 0.0, seed: int | None = None) -> None:
        self.sigma_db = sigma_db
        self.random = random.Random(seed)

    def rssi(self, measured_power: float, exponent: float, distance_m: float) -> int:
        """The RSSI in whole dBm a receiver at `distance_m` reports, within the HCI range -127...20."""
        d = max(distance_m, MIN_DISTANCE_M)
        value = measured_power - 10.0 * exponent * math.log10(d)
        if self.sigma_db > 0:
            value += self.random.gauss(0.0, self.sigma_db)
        return max(-127, min(20, int(round(value))))
