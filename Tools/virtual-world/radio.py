"""The radio model: log-distance path loss with optional seeded Gaussian shadowing, and the antenna that applies
it between an advertiser's position at this instant and a receiver's."""

from __future__ import annotations

import math
import random
from typing import Callable

MIN_DISTANCE_M = 0.1  # closer than this the far-field model means nothing; clamp instead of log10(0)


class PathLoss:
    """rssi(d) = measuredPower - 10 n log10(d) + X, with X ~ N(0, sigma^2) from a seeded generator."""

    def __init__(self, sigma_db: float = 0.0, seed: int | str | None = None) -> None:
        self.sigma_db = sigma_db
        self.random = random.Random(seed)

    def rssi(self, measured_power: float, exponent: float, distance_m: float) -> int:
        """The RSSI in whole dBm a receiver at `distance_m` reports, within the HCI range -127...20."""
        d = max(distance_m, MIN_DISTANCE_M)
        value = measured_power - 10.0 * exponent * math.log10(d)
        if self.sigma_db > 0:
            value += self.random.gauss(0.0, self.sigma_db)
        return max(-127, min(20, int(round(value))))


class Antenna:
    """A receiver's antenna at a fixed position: what it measures from each advertiser at this instant.

    An advertiser is anything with `address`, `measured_power`, `path_loss_exponent` and `position_at(elapsed_s)`
    (config.Beacon: fixed beacons and moving tags alike). `elapsed_s()` gives the seconds since the world's t = 0;
    it is passed in so tests can stop time.
    """

    def __init__(self, position, advertisers, model: PathLoss, elapsed_s: Callable[[], float]) -> None:
        self.position = position
        self.advertisers = list(advertisers)
        self.by_address = {advertiser.address.upper(): advertiser for advertiser in advertisers}
        self.model = model
        self.elapsed_s = elapsed_s

    def rssi_for(self, address) -> int | None:
        """The RSSI of the advertiser at `address` (a bumble Address or "AA:BB:..."), None for a stranger."""
        key = str(address).split("/")[0].upper()
        advertiser = self.by_address.get(key)
        if advertiser is None or advertiser.address.upper() != key:
            # A private address changes (air.py): look the advertiser up by its current one.
            advertiser = next((a for a in self.advertisers if a.address.upper() == key), None)
            if advertiser is None:
                return None
            self.by_address[key] = advertiser
        d = advertiser.position_at(self.elapsed_s()).distance_to(self.position)
        return self.model.rssi(advertiser.measured_power, advertiser.path_loss_exponent, d)
