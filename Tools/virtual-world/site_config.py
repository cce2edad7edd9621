"""The virtual site's configuration file: receivers at fixed positions, tags walking tracks (see README.md,
"Virtual site"). Errors name the file and the JSON path, like config.py's."""

from __future__ import annotations

import dataclasses
import json
import math

import config
import radio
from config import ConfigError, Position, get_field, parse_position
from track import Track, Waypoint

MAX_GAIN_DB = 20.0  # a receiver's hidden gain offset, either way


@dataclasses.dataclass(frozen=True)
class Receiver:
    """One fixed receiver: a controller of its own, and an anchor of the venue."""

    id: str
    position: Position
    index: int  # place in the file, from 0: picks the controller's address, whatever subset a process runs
    gain_db: float = 0.0  # hidden: added to all it reports, never written to the venue

    @property
    def address(self) -> str:
        """Its controller's public address, from its place in the file."""
        n = self.index + 1
        return f"F0:F1:F2:F3:{n >> 8:02X}:{n & 0xFF:02X}"


@dataclasses.dataclass
class Site:
    receivers: list[Receiver]
    tags: list[config.Beacon]  # each with a track
    noise_sigma: float
    seed: int
    walls: list[radio.Wall] = dataclasses.field(default_factory=list)
    # How a receiver's own advertisement falls off (when its host makes it advertise): dBm at 1 m, exponent.
    receiver_measured_power: float = -59.0
    receiver_path_loss_exponent: float = 2.0

    def receiver_advertisers(self) -> list[radio.FixedAdvertiser]:
        """Every receiver as an advertiser, by its controller's public address."""
        return [radio.FixedAdvertiser(r.address, r.position, self.receiver_measured_power,
                                      self.receiver_path_loss_exponent) for r in self.receivers]


def parse(document: dict, source: str) -> Site:
    """Builds the site from a parsed JSON document; `source` names the file in errors."""
    root = source
    defaults = config.parse_defaults(document, root)
    receivers = _receivers(get_field(document, "receivers", f"{root}: ", list), root)
    entries = get_field(document, "tags", f"{root}: ", list)
    if not entries:
        raise ConfigError(f"{root}: tags: expected at least one tag")
    paths = [f"{root}: tags[{index}]" for index in range(len(entries))]
    tags = [_tag(entry, index, path, defaults) for index, (entry, path) in enumerate(zip(entries, paths))]
    config.check_unique(tags, paths)
    seed = get_field(document, "seed", f"{root}: ", int, default=0, required=False)
    advertiser = get_field(document, "receiverAdvertiser", f"{root}: ", dict, default={}, required=False)
    where = f"{root}: receiverAdvertiser"
    power = float(get_field(advertiser, "measuredPower", where, (int, float), default=defaults.get("measuredPower", -59.0),
                            required=False))
    exponent = float(get_field(advertiser, "pathLossExponent", where, (int, float),
                               default=defaults.get("pathLossExponent", 2.0), required=False))
    if not exponent > 0:
        raise ConfigError(f"{where}.pathLossExponent: {exponent} must be positive")
    return Site(receivers=receivers, tags=tags, noise_sigma=config.parse_noise(document, root), seed=seed,
                walls=_walls(get_field(document, "walls", f"{root}: ", list, default=[], required=False), root),
                receiver_measured_power=power, receiver_path_loss_exponent=exponent)


def load(path: str) -> Site:
    """Reads and checks a site file."""
    return parse(config.read_document(path), path)


def _receivers(entries: list, root: str) -> list[Receiver]:
    if not entries:
        raise ConfigError(f"{root}: receivers: expected at least one receiver")
    receivers: list[Receiver] = []
    seen: dict[str, str] = {}
    for index, entry in enumerate(entries):
        path = f"{root}: receivers[{index}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{path}: expected an object")
        identifier = get_field(entry, "id", path, str)
        if not identifier or identifier != identifier.strip() or "=" in identifier or "," in identifier:
            raise ConfigError(f"{path}.id: {identifier!r} must be non-empty, without spaces at the ends, '=' or ','")
        if identifier in seen:
            raise ConfigError(f"{path}.id: {identifier!r} already used by {seen[identifier]}")
        seen[identifier] = path
        gain = float(get_field(entry, "gainDb", path, (int, float), default=0.0, required=False))
        if abs(gain) > MAX_GAIN_DB:
            raise ConfigError(f"{path}.gainDb: {gain} is beyond ±{MAX_GAIN_DB:g} dB")
        receivers.append(Receiver(id=identifier, position=parse_position(entry, path), index=index, gain_db=gain))
    return receivers


def _walls(entries: list, root: str) -> list[radio.Wall]:
    walls: list[radio.Wall] = []
    for index, entry in enumerate(entries):
        path = f"{root}: walls[{index}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{path}: expected an object like {{\"from\": {{\"x\": 0, \"y\": 0}}, \"to\": ..., \"lossDb\": 6}}")
        ends = []
        for key in ("from", "to"):
            end = get_field(entry, key, path, dict)
            ends.append(parse_position(end, f"{path}.{key}"))
        if (ends[0].x, ends[0].y) == (ends[1].x, ends[1].y):
            raise ConfigError(f"{path}: from and to are the same point")
        loss = float(get_field(entry, "lossDb", path, (int, float)))
        if not 0 <= loss <= 60:
            raise ConfigError(f"{path}.lossDb: {loss} must be in 0 ... 60 dB")
        walls.append(radio.Wall(ends[0].x, ends[0].y, ends[1].x, ends[1].y, loss))
    return walls


def _tag(entry: object, index: int, path: str, defaults: dict) -> config.Beacon:
    if not isinstance(entry, dict):
        raise ConfigError(f"{path}: expected an object")
    for key in ("x", "y"):
        if key in entry:
            raise ConfigError(f"{path}.{key}: a tag moves: give its positions in track")
    z = float(get_field(entry, "z", path, (int, float), default=0.0, required=False))
    track = Track(_waypoints(get_field(entry, "track", path, list), f"{path}.track", z),
                  loop=get_field(entry, "loop", path, bool, default=False, required=False))
    tag = config.parse_beacon(entry, index, path, defaults, position=track.waypoints[0].position)
    tag.track = track
    tag.silences = _silences(get_field(entry, "silent", path, list, default=[], required=False), f"{path}.silent")
    return tag


def _silences(entries: list, path: str) -> tuple:
    """`[{"from": s, "to": s}, ...]`: spans of track time, 0 <= from < to, in which the tag is not heard."""
    spans = []
    for index, entry in enumerate(entries):
        where = f"{path}[{index}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: expected an object like {{\"from\": 60, \"to\": 300}}")
        start = float(get_field(entry, "from", where, (int, float)))
        end = float(get_field(entry, "to", where, (int, float)))
        if not 0 <= start < end:
            raise ConfigError(f"{where}: from ({start}) must be 0 or more and before to ({end})")
        spans.append((start, end))
    return tuple(sorted(spans))


def _waypoints(entries: list, path: str, z: float) -> list[Waypoint]:
    if not entries:
        raise ConfigError(f"{path}: expected at least one waypoint")
    waypoints: list[Waypoint] = []
    for index, entry in enumerate(entries):
        here = f"{path}[{index}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{here}: expected an object like {{\"t\": 0, \"x\": 1.0, \"y\": 2.0}}")
        t = float(get_field(entry, "t", here, (int, float)))
        if t < 0:
            raise ConfigError(f"{here}.t: {t} must not be negative")
        if waypoints and t <= waypoints[-1].t:
            raise ConfigError(f"{here}.t: {t} must be later than the waypoint before ({waypoints[-1].t})")
        x, y = (float(get_field(entry, key, here, (int, float))) for key in ("x", "y"))
        waypoints.append(Waypoint(t, Position(x, y, float(get_field(entry, "z", here, (int, float), default=z,
                                                                    required=False)))))
    return waypoints


def venue(site: Site, source: str) -> dict:
    """A BlueDot venue (docs/formats.md, "Venue") with the receivers as anchors and the tags' path-loss model.

    Tags with different models cannot be told apart by a venue, whose model belongs to the anchors: then every
    anchor gets the mean, and `notes` says so.
    """
    powers = [tag.measured_power for tag in site.tags]
    exponents = [tag.path_loss_exponent for tag in site.tags]
    measured_power, exponent = sum(powers) / len(powers), sum(exponents) / len(exponents)
    notes = f"Generated by Tools/virtual-world/site.py from {source}: the receivers as anchors."
    if len(set(powers)) > 1 or len(set(exponents)) > 1:
        notes += " The tags' path-loss models differ; anchors carry their mean."
    model: dict = {"measuredPower": measured_power, "pathLossExponent": exponent}
    if site.noise_sigma > 0:
        model["shadowingSigma"] = site.noise_sigma
    anchors = [
        {"id": r.id, "x": r.position.x, "y": r.position.y, "z": r.position.z,
         "measuredPower": measured_power, "pathLossExponent": exponent}
        for r in site.receivers
    ]
    points = [r.position for r in site.receivers]
    points += [w.position for tag in site.tags for w in tag.track.waypoints]
    xs, ys = [p.x for p in points], [p.y for p in points]
    margin = 1.0  # metres around everything, rounded out to whole metres
    bounds = [[float(math.floor(min(xs) - margin)), float(math.floor(min(ys) - margin))],
              [float(math.ceil(max(xs) + margin)), float(math.ceil(max(ys) + margin))]]
    return {"name": f"Virtual site ({source})", "notes": notes, "model": model, "anchors": anchors,
            "bounds": bounds}


def venue_text(document: dict) -> str:
    """The venue as JSON text laid out like beacons.venue.json: one key per line, one anchor per line."""
    lines = []
    for key, value in document.items():
        if key == "anchors":
            rows = ",\n".join(f"    {json.dumps(anchor)}" for anchor in value)
            lines.append(f'  "anchors": [\n{rows}\n  ]')
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"
