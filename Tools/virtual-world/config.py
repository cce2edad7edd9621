"""The virtual world's configuration file: the receiver's position and the beacons (see README.md)."""

from __future__ import annotations

import dataclasses
import json
import math
import struct
import uuid
from typing import Any

import frames

FRAME_TYPES = ("ibeacon", "eddystone-uid", "eddystone-url", "eddystone-tlm", "altbeacon", "private")


class ConfigError(ValueError):
    """A configuration file problem; the message names the file and the JSON path."""


@dataclasses.dataclass(frozen=True)
class Position:
    x: float
    y: float
    z: float

    def distance_to(self, other: Position) -> float:
        return math.dist((self.x, self.y, self.z), (other.x, other.y, other.z))


@dataclasses.dataclass
class Beacon:
    """One advertiser: where it is, how its signal falls off, and what it sends."""

    id: str
    frame: str
    address: str  # random static address, AA:BB:CC:DD:EE:FF
    position: Position
    measured_power: float  # true RSSI at 1 m, dBm
    advertised_power: int  # what the frame claims at 1 m (defaults to measured_power)
    path_loss_exponent: float
    interval_ms: float
    fields: dict[str, Any]
    pdu: str = "legacy"  # "legacy" PDUs, or "extended" ones (ADV_EXT_IND and AUX_ADV_IND: heard by extended scans only)
    track: Any = None  # a track.Track for a moving tag (site.py); None for a beacon that stays at `position`
    irk: bytes | None = None  # frame "private": the Identity Resolving Key, most significant byte first
    rotate_s: float = 900.0  # frame "private": seconds between changes of its resolvable private address
    silences: tuple = ()  # a tag's (from, to) spans of seconds after t = 0 in which no receiver hears it

    def silent_at(self, elapsed_s: float) -> bool:
        """Whether the advertiser is unheard `elapsed_s` seconds after t = 0 (asleep, or away from the site)."""
        return any(start <= elapsed_s < end for start, end in self.silences)

    def position_at(self, elapsed_s: float) -> Position:
        """Where the advertiser is `elapsed_s` seconds after the world's t = 0."""
        return self.position if self.track is None else self.track.position_at(elapsed_s)

    def payload(self, uptime_s: float = 0.0) -> bytes:
        """The advertising data at `uptime_s` seconds after start (only TLM frames change over time)."""
        f = self.fields
        power_at_0m = self.advertised_power + 41  # Eddystone ranging data is the power at 0 m
        if self.frame == "ibeacon":
            return frames.ibeacon(f["uuid"], f["major"], f["minor"], self.advertised_power)
        if self.frame == "eddystone-uid":
            return frames.eddystone_uid(f["namespace"], f["instance"], power_at_0m)
        if self.frame == "eddystone-url":
            return frames.eddystone_url(f["url"], power_at_0m)
        if self.frame == "private":
            return frames.private()
        if self.frame == "eddystone-tlm":
            count = int(uptime_s * 1000 / self.interval_ms)
            return frames.eddystone_tlm(f.get("batteryMv", 3000), f.get("temperature", 21.5), count, uptime_s)
        return frames.altbeacon(
            f["id1"], f["id2"], f["id3"], self.advertised_power,
            f.get("manufacturerId", frames.RADIUS_NETWORKS_COMPANY_ID), f.get("reserved", 0),
        )


@dataclasses.dataclass
class World:
    receiver: Position
    beacons: list[Beacon]
    noise_sigma: float


def get_field(obj: dict, key: str, path: str, kind: type | tuple, default: Any = None, required: bool = True) -> Any:
    """`obj[key]` checked to be of `kind`; `default` when absent (absent with no default and `required`: an error).
    Errors read `<path>.<key>: ...`, or `<file>: <key>: ...` for a top-level key (`path` is then "<file>: ")."""
    where = f"{path}{key}" if path.endswith(": ") else f"{path}.{key}"
    if key not in obj:
        if required and default is None:
            raise ConfigError(f"{where}: missing")
        return default
    value = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
        words = {int: "an integer", float: "a number", str: "a string", dict: "an object", list: "an array",
                 bool: "true or false"}
        names = "a number" if kinds == (int, float) else " or ".join(words.get(k, k.__name__) for k in kinds)
        raise ConfigError(f"{where}: expected {names}, got {json.dumps(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{where}: expected a finite number, got {value}")
    return value


def parse_position(obj: dict, path: str) -> Position:
    """`x`, `y` and optional `z` (default 0) of `obj`, metres."""
    return Position(*(float(get_field(obj, k, path, (int, float), default=0.0 if k == "z" else None)) for k in "xyz"))


def _canonical_id(frame: str, f: dict, address: str, path: str) -> str:
    try:
        if frame == "ibeacon":
            return f"ibeacon:{uuid.UUID(f['uuid'])}:{f['major']}:{f['minor']}"
        if frame == "eddystone-uid":
            return f"eddystone:{f['namespace'].lower()}:{f['instance'].lower()}"
        if frame == "altbeacon":
            return f"altbeacon:{f['id1'].replace('-', '').lower()}:{f['id2']}:{f['id3']}"
    except (KeyError, ValueError) as error:
        raise ConfigError(f"{path}: bad or missing id field: {error}") from None
    return f"mac:{address.lower()}"


def _address(index: int, given: str | None, path: str) -> str:
    if given is None:
        # A random static address: the two most significant bits set (Core Spec 5.4, Vol 6, Part B, 1.3.2.1).
        return f"C0:00:00:00:{(index >> 8) & 0xFF:02X}:{index & 0xFF:02X}"
    parts = given.split(":")
    if len(parts) != 6 or not all(len(p) == 2 and all(c in "0123456789abcdefABCDEF" for c in p) for p in parts):
        raise ConfigError(f"{path}.address: expected AA:BB:CC:DD:EE:FF, got {given!r}")
    if int(parts[0], 16) & 0xC0 != 0xC0:
        raise ConfigError(f"{path}.address: {given} is not a random static address (top two bits must be 1)")
    return given.upper()


def parse_beacon(entry: Any, index: int, path: str, defaults: dict, position: Position | None = None) -> Beacon:
    """One advertiser's entry (the `beacons` of a world, the `tags` of a site). `index` (from 0) picks the default
    address; `position` stands in for the entry's own `x`, `y`, `z` when given (a tag's is its track's start)."""
    if not isinstance(entry, dict):
        raise ConfigError(f"{path}: expected an object")
    frame = get_field(entry, "frame", path, str)
    if frame not in FRAME_TYPES:
        raise ConfigError(f"{path}.frame: {frame!r} is not one of {', '.join(FRAME_TYPES)}")

    def number(key: str, fallback: float) -> float:
        fallback = defaults.get(key, fallback)  # parse_defaults checked it
        return float(get_field(entry, key, path, (int, float), default=fallback))

    measured = number("measuredPower", -59.0)
    address = _address(index + 1, entry.get("address"), path)
    fields = {k: v for k, v in entry.items()
              if k not in ("x", "y", "z", "track", "loop", "silent", "pdu", "irk", "rotateSeconds")}
    pdu = get_field(entry, "pdu", path, str, default="legacy")
    if pdu not in ("legacy", "extended"):
        raise ConfigError(f"{path}.pdu: {pdu!r} is not legacy or extended")
    beacon = Beacon(
        id=_canonical_id(frame, fields, address, path), frame=frame, address=address,
        position=position if position is not None else parse_position(entry, path), measured_power=measured,
        advertised_power=int(round(number("advertisedPower", measured))),
        path_loss_exponent=number("pathLossExponent", 2.0), interval_ms=number("intervalMs", 100.0),
        fields=fields, pdu=pdu,
    )
    if frame == "private":
        irk = get_field(entry, "irk", path, str)
        try:
            beacon.irk = bytes.fromhex(irk)
        except ValueError:
            beacon.irk = b""
        if len(beacon.irk) != 16:
            raise ConfigError(f"{path}.irk: expected 32 hex digits, got {irk!r}")
        beacon.rotate_s = float(get_field(entry, "rotateSeconds", path, (int, float), default=900.0, required=False))
        if beacon.rotate_s < 1:
            raise ConfigError(f"{path}.rotateSeconds: {beacon.rotate_s} is below 1 s")
        beacon.id = f"irk:{irk.lower()}"
    if beacon.interval_ms < 20:
        raise ConfigError(f"{path}.intervalMs: {beacon.interval_ms} is below the 20 ms minimum")
    if beacon.path_loss_exponent <= 0:
        raise ConfigError(f"{path}.pathLossExponent: {beacon.path_loss_exponent} must be greater than 0")
    try:
        beacon.payload()
    except (frames.FrameError, KeyError, ValueError, TypeError, struct.error) as error:
        raise ConfigError(f"{path}: {error}") from None
    return beacon


def check_unique(beacons: list[Beacon], paths: list[str]) -> None:
    """No two advertisers share a canonical id or an address."""
    seen: dict[str, str] = {}
    for beacon, path in zip(beacons, paths):
        for key in (beacon.id, beacon.address):
            if key in seen:
                raise ConfigError(f"{path}: {key} already used by {seen[key]}")
            seen[key] = path


DEFAULTABLE = ("measuredPower", "advertisedPower", "pathLossExponent", "intervalMs")


def parse_defaults(document: dict, root: str) -> dict:
    """The `defaults` object: values of DEFAULTABLE keys for advertisers that do not give their own."""
    defaults = get_field(document, "defaults", f"{root}: ", dict, default={}, required=False)
    for key in DEFAULTABLE:
        get_field(defaults, key, f"{root}: defaults", (int, float), default=0, required=False)
    return defaults


def parse_noise(document: dict, root: str) -> float:
    """`noise.sigma` in dB (default 0: the model exactly)."""
    noise = get_field(document, "noise", f"{root}: ", dict, default={}, required=False)
    sigma = float(get_field(noise, "sigma", f"{root}: noise", (int, float), default=0.0, required=False))
    if sigma < 0:
        raise ConfigError(f"{root}: noise.sigma: {sigma} must not be negative")
    return sigma


def parse(document: dict, source: str) -> World:
    """Builds the world from a parsed JSON document; `source` names the file in errors."""
    root = source
    defaults = parse_defaults(document, root)
    receiver = parse_position(get_field(document, "receiver", f"{root}: ", dict), f"{root}: receiver")
    noise = parse_noise(document, root)
    entries = get_field(document, "beacons", f"{root}: ", list)
    paths = [f"{root}: beacons[{index}]" for index in range(len(entries))]
    beacons = [parse_beacon(entry, index, path, defaults) for index, (entry, path) in enumerate(zip(entries, paths))]
    check_unique(beacons, paths)
    return World(receiver=receiver, beacons=beacons, noise_sigma=noise)


def read_document(path: str) -> dict:
    """The JSON object in the file at `path`; a ConfigError naming the file (and line) otherwise."""
    try:
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
    except OSError as error:
        raise ConfigError(f"{path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}:{error.lineno}:{error.colno}: {error.msg}") from None
    if not isinstance(document, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top level")
    return document


def load(path: str) -> World:
    """Reads and checks a configuration file."""
    return parse(read_document(path), path)
