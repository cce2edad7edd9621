"""The radio model: log-distance path loss with optional seeded Gaussian shadowing, walls that take a fixed loss
from every path crossing them, and the antenna that applies it between an advertiser's position at this instant and
a receiver's, adding the receiver's own gain offset."""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Callable, Sequence

MIN_DISTANCE_M = 0.1  # closer than this the far-field model means nothing; clamp instead of log10(0)


class PathLoss:
    """rssi(d) = measuredPower - 10 n log10(d) + X, with X ~ N(0, sigma^2) from a seeded generator."""

    def __init__(self, sigma_db: float = 0.0, seed: int | str | None = None) -> None:
        self.sigma_db = sigma_db
        self.random = random.Random(seed)

    def rssi(self, measured_power: float, exponent: float, distance_m: float, offset_db: float = 0.0) -> int:
        """The RSSI in whole dBm a receiver at `distance_m` reports, within the HCI range -127...20; `offset_db`
        (the receiver's gain less the walls' losses) is added before the noise."""
        d = max(distance_m, MIN_DISTANCE_M)
        value = measured_power - 10.0 * exponent * math.log10(d) + offset_db
        if self.sigma_db > 0:
            value += self.random.gauss(0.0, self.sigma_db)
        return max(-127, min(20, int(round(value))))


@dataclasses.dataclass(frozen=True)
class Wall:
    """A wall in the floor plane from (x1, y1) to (x2, y2): every path that crosses it loses `loss_db`."""

    x1: float
    y1: float
    x2: float
    y2: float
    loss_db: float

    def crosses(self, a, b) -> bool:
        """Whether the straight path from position `a` to `b` (their x and y) crosses the wall; touching an end of
        either segment counts, a path along the wall does not."""
        def side(px, py, qx, qy, rx, ry) -> float:
            return (qx - px) * (ry - py) - (qy - py) * (rx - px)
        d1 = side(self.x1, self.y1, self.x2, self.y2, a.x, a.y)
        d2 = side(self.x1, self.y1, self.x2, self.y2, b.x, b.y)
        d3 = side(a.x, a.y, b.x, b.y, self.x1, self.y1)
        d4 = side(a.x, a.y, b.x, b.y, self.x2, self.y2)
        if d1 == 0 and d2 == 0:
            return False  # collinear: the path runs along the wall, not through it
        return (d1 * d2 <= 0) and (d3 * d4 <= 0)


def wall_loss(walls: Sequence[Wall], a, b) -> float:
    """The loss in dB of the walls the path from `a` to `b` crosses."""
    return sum(wall.loss_db for wall in walls if wall.crosses(a, b))


@dataclasses.dataclass
class FixedAdvertiser:
    """An advertiser that stays put and is known by its controller's public address: a site receiver advertising
    while it scans."""

    address: str
    position: object  # config.Position
    measured_power: float
    path_loss_exponent: float

    def position_at(self, elapsed_s: float):
        return self.position


class Antenna:
    """A receiver's antenna at a fixed position: what it measures from each advertiser at this instant.

    An advertiser is anything with `address`, `measured_power`, `path_loss_exponent` and `position_at(elapsed_s)`
    (config.Beacon: fixed beacons and moving tags alike). `elapsed_s()` gives the seconds since the world's t = 0;
    it is passed in so tests can stop time. `gain_db` is the receiver's own gain offset (its radio, antenna and
    mounting: what makes one receiver hear everything louder), `walls` what stands between it and the advertisers.
    """

    def __init__(self, position, advertisers, model: PathLoss, elapsed_s: Callable[[], float], gain_db: float = 0.0,
                 walls: Sequence[Wall] = ()) -> None:
        self.position = position
        self.gain_db = gain_db
        self.walls = tuple(walls)
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
        elapsed = self.elapsed_s()
        if getattr(advertiser, "silences", ()) and advertiser.silent_at(elapsed):
            return None  # a quiet phone, or a tag away from the site: nobody hears it
        where = advertiser.position_at(elapsed)
        offset = self.gain_db - wall_loss(self.walls, where, self.position)
        return self.model.rssi(advertiser.measured_power, advertiser.path_loss_exponent, where.distance_to(self.position),
                               offset)
