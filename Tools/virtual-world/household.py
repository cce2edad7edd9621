#!/usr/bin/env python3
"""A simulated household day (issue 42): three people whose phones go quiet as phones do, in a flat of seven rooms
with six ESPresense-style receivers, run fast against a real BlueDot solver and a real mosquitto.

The chain is the real one from the radio up:
- site.py runs one Bumble controller per receiver (H4 over TCP) and one advertising Bumble device per phone
  (iBeacon frames, as Home Assistant's companion app sends), with walls and hidden receiver gains, and the tracks
  and silences written here, RATE times faster than the wall clock (`--rate`).
- One host per receiver (here, `Node`) scans its controller over HCI, as an ESPresense node's firmware does, and
  publishes every iBeacon it hears to `espresense/devices/iBeacon:<uuid>-<major>-<minor>/<node>` on mosquitto.
- `bluedot run --mqtt ... --espresense --mode tag --fast-clock RATE@START` solves, with the venue's rooms and its
  exit, on a clock that runs RATE times faster from the same instant as the tracks; it stamps each report when it
  arrives, as it does for real ESPresense nodes.
- A subscriber to `bluedot/home/locations/+` keeps every published fix, and the figures compare them with the truth
  of the schedule.

Phones: moving, a phone is heard; still, it falls quiet for spans of minutes, the longest 20 min (see QUIET_* and
README.md, "A household day"); away from home it is not heard at all.

Prints the figures, writes them as JSON with `--json`, and with `--check` exits 1 when a presence target is
missed: a false not_home event, or a departure not read as not_home within away-timeout + 30 s. The rooms' target
(at most one change per stationary hour) is printed with the figures and checked only with `--check-rooms`.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import math
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bumble import hci  # noqa: E402
import paho.mqtt.client as mqtt  # noqa: E402

from hci_client import LEGACY_SCAN  # noqa: E402

SITE = "home"
UUID = "e2c56db5-dffb-48d2-b060-d0f5a71096e0"
AWAY_TIMEOUT_S = 120.0  # the solver's defaults: what the figures' targets are counted from
AWAY_TIMEOUT_INSIDE_S = 2700.0
WALK_SPEED = 1.0  # m/s
SETTLE_S = 30.0  # a stay's first seconds belong to the room change that began it, not to its stillness

# How long an idle phone goes unheard. The field's threads give the lengths: an idle iPhone unseen for 12, 20 and
# 13 min at night (room-assistant #309), "15 minutes at a time" (home-assistant/core #123036), and Bermuda's "iOS
# Transmit Outages" label (#375, #385) for the same. Still phones here alternate between being heard for 0.5-3 min
# and quiet spans log-uniform between 2 and 20 min, after their first 2 min of stillness; a moving phone is heard.
QUIET_AFTER_STILL_S = 120.0
QUIET_MIN_S, QUIET_MAX_S = 120.0, 1200.0
HEARD_MIN_S, HEARD_MAX_S = 30.0, 180.0

# The flat, metres: seven rooms along a corridor (hall), the front door in the foyer (the exit).
ROOMS = {
    "living": (0.0, 0.0, 7.0, 4.0),
    "kitchen": (7.0, 0.0, 14.0, 4.0),
    "foyer": (0.0, 4.0, 3.0, 6.0),
    "hall": (3.0, 4.0, 14.0, 6.0),
    "bedroom-1": (0.0, 6.0, 5.0, 10.0),
    "bath": (5.0, 6.0, 8.0, 10.0),
    "bedroom-2": (8.0, 6.0, 14.0, 10.0),
}
EXIT = "foyer"
# Where each room opens onto the corridor line y = 5 (the foyer and hall are on it).
DOORS = {"living": (2.0, 4.0), "kitchen": (10.0, 4.0), "bedroom-1": (3.5, 6.0), "bath": (6.5, 6.0),
         "bedroom-2": (10.0, 6.0)}
FRONT_DOOR = (0.5, 5.0)
# The receivers: one node per room but the hall, on shelves at 1.5 m, each with a hidden gain (its radio and case).
NODES = [("foyer", 1.5, 5.0, 2.0), ("living", 3.5, 0.5, -2.0), ("kitchen", 12.5, 1.0, 3.0),
         ("bedroom-1", 0.5, 9.0, -1.0), ("bath", 6.5, 9.5, 1.0), ("bedroom-2", 13.5, 9.0, -3.0)]
# Interior walls: 5 dB each (plasterboard and doors), the living room and kitchen 4 dB apart.
WALLS = [((0.0, 4.0), (14.0, 4.0), 5.0), ((0.0, 6.0), (14.0, 6.0), 5.0), ((7.0, 0.0), (7.0, 4.0), 4.0),
         ((5.0, 6.0), (5.0, 10.0), 5.0), ((8.0, 6.0), (8.0, 10.0), 5.0)]


def hm(text: str) -> float:
    """"07:45" -> seconds after midnight."""
    hours, minutes = text.split(":")
    return int(hours) * 3600.0 + int(minutes) * 60.0


# Each person's day: (from, where) steps; `where` is a room and a spot in it, or "out". Between steps they walk at
# WALK_SPEED through the corridor; "out" leaves by the front door and comes back through it.
PEOPLE = {
    "alice": [("00:00", "bedroom-1", (2.0, 8.5)), ("06:50", "bath", (6.5, 8.0)), ("07:10", "kitchen", (10.5, 2.0)),
              ("07:40", "out", None), ("17:30", "living", (3.0, 2.0)), ("19:00", "kitchen", (11.0, 2.5)),
              ("19:45", "living", (3.0, 2.0)), ("22:30", "bath", (6.5, 8.0)), ("22:45", "bedroom-1", (2.0, 8.5))],
    "bob": [("00:00", "bedroom-2", (12.0, 8.5)), ("07:30", "bath", (6.5, 8.5)), ("07:50", "kitchen", (9.5, 1.5)),
            ("08:15", "out", None), ("12:30", "living", (5.5, 1.0)), ("18:30", "kitchen", (12.0, 2.5)),
            ("20:00", "living", (1.5, 2.0)), ("23:30", "bedroom-2", (12.0, 8.5))],
    "carol": [("00:00", "bedroom-1", (4.0, 9.0)), ("08:00", "kitchen", (10.0, 3.0)), ("08:30", "living", (1.5, 2.5)),
              ("11:00", "bath", (6.0, 8.5)), ("11:15", "kitchen", (10.0, 3.0)), ("12:00", "out", None),
              ("13:00", "living", (1.5, 2.5)), ("16:00", "bedroom-1", (4.0, 9.0)), ("17:00", "living", (1.5, 2.5)),
              ("21:30", "bedroom-1", (4.0, 9.0))],
}
MINOR = {"alice": 1, "bob": 2, "carol": 3}


def target_of(person: str) -> str:
    return f"ibeacon:{UUID}:1:{MINOR[person]}"


def room_at(x: float, y: float) -> str | None:
    for room, (x0, y0, x1, y1) in ROOMS.items():
        if x0 <= x < x1 and y0 <= y < y1:
            return room
    return None


@dataclasses.dataclass
class Span:
    """What a person does from t0 to t1 (seconds of the day): stay at a spot, walk a path, or be out."""
    kind: str  # "stay", "walk", "out"
    t0: float
    t1: float
    path: list  # [(t, x, y)] for a walk; [(t0, x, y)] for a stay; [] for out

    def position(self, t: float) -> tuple[float, float]:
        if self.kind == "stay":
            return self.path[0][1], self.path[0][2]
        for (ta, xa, ya), (tb, xb, yb) in zip(self.path, self.path[1:]):
            if t <= tb:
                u = 0.0 if tb == ta else (t - ta) / (tb - ta)
                return xa + u * (xb - xa), ya + u * (yb - ya)
        return self.path[-1][1], self.path[-1][2]


def route(a: tuple[float, float], room_a: str, b: tuple[float, float], room_b: str) -> list[tuple[float, float]]:
    """Spot to spot: out through the room's door onto the corridor line (y = 5), along it, in through the other
    room's door; within one room, straight."""
    if room_a == room_b:
        return [a, b] if math.dist(a, b) > 1e-9 else [a]
    points = [a]
    out_door, in_door = DOORS.get(room_a), DOORS.get(room_b)
    points += ([out_door] if out_door else []) + [((out_door or a)[0], 5.0)]
    points += [((in_door or b)[0], 5.0)] + ([in_door] if in_door else []) + [b]
    deduplicated = [points[0]]
    for p in points[1:]:
        if math.dist(p, deduplicated[-1]) > 1e-9:
            deduplicated.append(p)
    return deduplicated


def day_of(person: str) -> list[Span]:
    """The person's spans over the whole day (0 ... 86400 s)."""
    steps = PEOPLE[person]
    spans: list[Span] = []
    here_room, here = steps[0][1], steps[0][2]
    for index, (start, room, spot) in enumerate(steps):
        begin = hm(start)
        end = hm(steps[index + 1][0]) if index + 1 < len(steps) else 86400.0
        if index == 0:
            spans.append(Span("stay", begin, end, [(begin, *spot)]))
            continue
        if room == "out":
            spans += walk(here, here_room, FRONT_DOOR, EXIT, begin)
            leave = spans[-1].t1
            spans.append(Span("out", leave, end, []))
            here_room, here = EXIT, FRONT_DOOR
            continue
        walked = walk(here, here_room, spot, room, begin)
        spans += walked
        arrived = walked[-1].t1 if walked else begin
        spans.append(Span("stay", arrived, end, [(arrived, *spot)]))
        here_room, here = room, spot
    return spans


def walk(a, room_a, b, room_b, begin) -> list[Span]:
    points = route(a, room_a, b, room_b)
    path, t = [(begin, *points[0])], begin
    for p, q in zip(points, points[1:]):
        t += math.dist(p, q) / WALK_SPEED
        path.append((t, *q))
    return [Span("walk", begin, t, path)] if len(path) > 1 else []


def quiet_spans(spans: list[Span], rng: random.Random) -> list[tuple[float, float]]:
    """When the phone is unheard: all of every span out, and the idle gaps of the stays (QUIET_*)."""
    quiet = []
    for span in spans:
        if span.kind == "out":
            quiet.append((span.t0, span.t1))
        elif span.kind == "stay":
            t = span.t0 + QUIET_AFTER_STILL_S
            while t < span.t1:
                gap = math.exp(rng.uniform(math.log(QUIET_MIN_S), math.log(QUIET_MAX_S)))
                quiet.append((t, min(span.t1, t + gap)))
                t += gap + rng.uniform(HEARD_MIN_S, HEARD_MAX_S)
    return [(a, b) for a, b in quiet if b > a]


def site_document(days: dict[str, list[Span]], quiet: dict[str, list], origin: float, until: float,
                  interval_ms: float, sigma: float, seed: int) -> dict:
    """site.py's file: the nodes, the walls, and each phone's track and silences in seconds after `origin`."""
    def track(spans):
        points = []
        for span in spans:
            if span.kind == "out":
                continue
            for t, x, y in (span.path if span.kind == "walk" else [(span.t0, *span.path[0][1:]),
                                                                    (span.t1, *span.path[0][1:])]):
                if origin <= t <= until and (not points or t - origin > points[-1]["t"]):
                    points.append({"t": t - origin, "x": x, "y": y})
                elif t > until:
                    break
        if not points or points[0]["t"] > 0:
            x, y = position_of(spans, origin)
            points.insert(0, {"t": 0.0, "x": x, "y": y})
        return points

    return {
        "noise": {"sigma": sigma}, "seed": seed,
        "defaults": {"measuredPower": -59, "pathLossExponent": 2.2, "intervalMs": interval_ms},
        "receivers": [{"id": node, "x": x, "y": y, "z": 1.5, "gainDb": gain} for node, x, y, gain in NODES],
        "walls": [{"from": {"x": a[0], "y": a[1]}, "to": {"x": b[0], "y": b[1]}, "lossDb": loss}
                  for a, b, loss in WALLS],
        "tags": [{"frame": "ibeacon", "uuid": UUID, "major": 1, "minor": MINOR[person], "z": 1.0,
                  "address": f"C0:00:00:00:01:0{MINOR[person]}", "track": track(days[person]),
                  "silent": [{"from": max(0.0, a - origin), "to": b - origin} for a, b in quiet[person]
                             if b > origin and a < until]}
                 for person in PEOPLE],
    }


def position_of(spans: list[Span], t: float) -> tuple[float, float]:
    for span in spans:
        if span.t0 <= t < span.t1 and span.kind != "out":
            return span.position(t)
    last = FRONT_DOOR
    for span in spans:
        if span.t0 > t:
            break
        if span.kind != "out":
            last = span.position(min(t, span.t1))
    return last


def span_at(spans: list[Span], t: float) -> Span | None:
    for span in spans:
        if span.t0 <= t < span.t1:
            return span
    return None


def venue_document() -> dict:
    return {
        "name": "A household day (Tools/virtual-world/household.py)",
        "model": {"measuredPower": -59, "pathLossExponent": 2.2, "shadowingSigma": 4},
        "anchors": [{"id": node, "x": x, "y": y, "z": 1.5} for node, x, y, _ in NODES],
        "bounds": [[0.0, 0.0], [14.0, 10.0]],
        "rooms": [dict({"id": room, "name": room.replace("-", " ").capitalize(),
                        "polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]}, **({"exit": True} if room == EXIT else {}))
                  for room, (x0, y0, x1, y1) in ROOMS.items()],
    }


class Node:
    """An ESPresense-style receiver: scans one site.py controller over HCI and publishes every iBeacon heard."""

    def __init__(self, node: str, host: str, port: int, client: mqtt.Client, counts: dict) -> None:
        self.node, self.host, self.port, self.client, self.counts = node, host, port, client, counts

    async def run(self) -> None:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        for packet in LEGACY_SCAN:
            writer.write(packet)
        await writer.drain()
        buffer = b""
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                return
            buffer += chunk
            while len(buffer) >= 3 and len(buffer) >= 3 + buffer[2]:
                size = 3 + buffer[2]
                packet, buffer = buffer[:size], buffer[size:]
                if packet[0] == 0x04 and packet[1] == 0x3E and packet[3] == 0x02:
                    event = hci.HCI_Packet.from_bytes(packet)
                    for report in event.reports:
                        self.publish(report)

    def publish(self, report) -> None:
        beacon = ibeacon(bytes(report.data))
        if beacon is None:
            return
        uuid, major, minor, power = beacon
        device = f"iBeacon:{uuid}-{major}-{minor}"
        payload = {"id": device, "rssi@1m": power, "rssi": report.rssi,
                   "mac": str(report.address).split("/")[0].replace(":", "").lower()}
        self.client.publish(f"espresense/devices/{device}/{self.node}", json.dumps(payload))
        self.counts[self.node] = self.counts.get(self.node, 0) + 1


def ibeacon(data: bytes) -> tuple[str, int, int, int] | None:
    """(uuid, major, minor, measured power) of an iBeacon advertisement, None for anything else."""
    i = 0
    while i + 1 < len(data):
        length = data[i]
        if length == 0 or i + 1 + length > len(data):
            return None
        kind, body = data[i + 1], data[i + 2:i + 1 + length]
        if kind == 0xFF and len(body) == 25 and body[:4] == b"\x4c\x00\x02\x15":
            u = body[4:20].hex()
            uuid = f"{u[:8]}-{u[8:12]}-{u[12:16]}-{u[16:20]}-{u[20:]}"
            major, minor = struct.unpack(">HH", body[20:24])
            return uuid, major, minor, struct.unpack("b", body[24:25])[0]
        i += 1 + length
    return None


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Fixes:
    """Every location the solver publishes, per target, in order of arrival, each with `arrived`: the time of day it
    arrived at on the shared clock. A `not_home` update carries its target's last fix, whose `t` may be long past;
    its arrival is when the solver decided."""

    def __init__(self, day_of_wall) -> None:
        self.lock = threading.Lock()
        self.by_target: dict[str, list[dict]] = {}
        self.day_of_wall = day_of_wall

    def on_message(self, client, userdata, message) -> None:
        if message.retain:
            return
        try:
            location = json.loads(message.payload)
        except ValueError:
            return
        location["arrived"] = self.day_of_wall(time.time())
        with self.lock:
            self.by_target.setdefault(location.get("target", ""), []).append(location)


def figures(days: dict[str, list[Span]], fixes: dict[str, list[dict]], origin: float, begin: float,
            until: float, settle_s: float = SETTLE_S) -> dict:
    """The four figures of issue 42, item 4, and what they were counted over (times: seconds of the day)."""
    false_away, departures, changes, still_s, moving_right, moving_all, still_right, still_all = [], [], 0, 0.0, 0, 0, 0, 0
    per_person = {}
    for person, spans in days.items():
        located = sorted(fixes.get(target_of(person), []), key=lambda f: f["t"])
        for f in located:
            f["day"] = f["t"] - origin
        located = [f for f in located if begin <= f["day"] <= until]
        # not_home events: a fix reading not_home after one reading home (or the first fix), at the moment the
        # solver decided on its own clock: when it last heard the target (the `t` of its last current fix; the
        # last-known fixes after it are stamped later) plus the update's `silentFor`. How late the update then
        # arrived here is this run's own lag, scaled up by the rate: it is kept apart (`arrivedAfter`).
        previous = "home"
        events = []
        heard = None
        for f in sorted(located, key=lambda f: f["arrived"]):
            presence = f.get("presence", "home")
            if not f.get("lastKnown", False):
                heard = f["day"]
            if presence == "not_home" and previous != "not_home":
                decided = heard + f["silentFor"] if heard is not None and "silentFor" in f else f["arrived"]
                events.append((decided, heard, f["arrived"]))
            previous = presence
        mine_false = [(t, heard) for t, heard, _ in events
                      if (span_at(spans, t) or Span("stay", 0, 0, [])).kind != "out"]
        # What the exit rule saw: the last current fixes before the silence, up to the last one heard.
        false_away += [(person, t, [trail_fix(f) for f in located if not f.get("lastKnown", False)
                                    and heard is not None and heard - 60 <= f["day"] <= heard][-8:])
                       for t, heard in mine_false]
        for span in spans:
            if span.kind == "out" and begin <= span.t0 < until:
                after = [event for event in events if span.t0 <= event[0] < span.t1 + 1]
                decided, heard, arrived = after[0] if after else (None, None, None)
                # The walk's last current fixes, from 20 s before the door to 60 s after: what the exit rule saw.
                trail = [f for f in located if not f.get("lastKnown", False) and span.t0 - 20 <= f["day"] <= span.t0 + 60]
                departures.append({
                    "person": person, "left": span.t0, "notHomeAfter": None if decided is None else decided - span.t0,
                    "lastHeardAfter": None if heard is None else heard - span.t0,
                    "arrivedAfter": None if arrived is None else arrived - span.t0,
                    "lastFixes": [trail_fix(f) for f in trail[-8:]]})
        # Rooms: changes while still, and accuracy while moving and while still.
        mine_changes = 0
        last_room = first = object()  # no fix yet (a room of None is a fix in no room)
        for f in located:
            room = f.get("room")
            span = span_at(spans, f["day"])
            if span is not None and span.kind != "out" and f.get("presence", "home") == "home":
                truth = room_at(*span.position(f["day"]))
                if span.kind == "walk":
                    moving_all += 1
                    moving_right += room == truth
                elif f["day"] >= span.t0 + settle_s:
                    still_all += 1
                    still_right += room == truth
                    if last_room is not first and room != last_room:
                        mine_changes += 1
            last_room = room
        changes += mine_changes
        mine_still = sum(max(0.0, min(s.t1, until) - max(s.t0 + settle_s, begin)) for s in spans if s.kind == "stay")
        still_s += mine_still
        per_person[person] = {"fixes": len(located), "notHome": len(events), "falseNotHome": len(mine_false),
                              "stillChanges": mine_changes, "stillHours": round(mine_still / 3600, 2)}
    delays = [d["notHomeAfter"] for d in departures if d["notHomeAfter"] is not None]
    return {
        "falseNotHome": len(false_away), "falseNotHomeAt": [(p, clock_text(t)) for p, t, _ in false_away],
        "falseNotHomeFixes": [{"person": p, "at": clock_text(t), "lastFixes": trail} for p, t, trail in false_away],
        "departures": [dict(d, left=clock_text(d["left"])) for d in departures],
        "departuresMissed": sum(d["notHomeAfter"] is None for d in departures),
        "doorToNotHomeMaxS": max(delays) if delays else None,
        "stillChangesPerHour": changes / (still_s / 3600) if still_s else None, "stillHours": still_s / 3600,
        "roomAccuracyMoving": moving_right / moving_all if moving_all else None, "movingFixes": moving_all,
        "roomAccuracyStill": still_right / still_all if still_all else None, "stillFixes": still_all,
        "people": per_person,
    }


TRAIL_FIELDS = ("x", "y", "room", "roomProbability", "horizontalAccuracy", "speed", "course")


def trail_fix(f: dict) -> dict:
    """A fix as the report prints it: its time of day and `TRAIL_FIELDS`."""
    return {"at": clock_text(f["day"]), **{key: f.get(key) for key in TRAIL_FIELDS}}


def clock_text(t: float) -> str:
    return f"{int(t // 3600):02d}:{int(t % 3600 // 60):02d}:{int(t % 60):02d}"


def parse_arguments(argv):
    parser = argparse.ArgumentParser(prog="household.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--bluedot", required=True, help="the bluedot binary")
    parser.add_argument("--from", dest="begin", default="00:00", help="time of day the run starts (HH:MM)")
    parser.add_argument("--to", dest="end", default="24:00", help="time of day it ends (HH:MM)")
    parser.add_argument("--rate", type=float, default=60.0, help="simulated seconds per wall-clock second")
    parser.add_argument("--interval-ms", type=float, default=40.0,
                        help="each phone's advertising interval on the wall clock (x rate on the day's clock)")
    parser.add_argument("--noise", type=float, default=3.0, help="RSSI noise sigma, dB")
    parser.add_argument("--seed", type=int, default=1, help="seed of the quiet spans and the RSSI noise")
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--keep", help="keep the run's files (site, venue, fixes, solver log) in this folder")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless: no false not_home, every departure not_home within away-timeout + 30 s")
    parser.add_argument("--check-rooms", action="store_true",
                        help="with --check: also at most 1 room change per stationary hour")
    return parser.parse_args(argv)


def main(argv) -> int:
    arguments = parse_arguments(argv)
    begin, until = hm(arguments.begin), hm(arguments.end)
    rng = random.Random(arguments.seed)
    days = {person: day_of(person) for person in PEOPLE}
    quiet = {person: quiet_spans(days[person], rng) for person in PEOPLE}
    folder = arguments.keep or tempfile.mkdtemp(prefix="bluedot-household-")
    os.makedirs(folder, exist_ok=True)
    site_path, venue_path = os.path.join(folder, "household.site.json"), os.path.join(folder, "household.venue.json")
    rate = arguments.rate
    lead_s = 8.0  # wall seconds before the day's first second, for everything to start
    start = time.time() + lead_s  # wall time of `begin`
    origin = start - begin  # the day's midnight on the shared (fast) clock: t = start + (wall - start) * rate
    with open(site_path, "w") as f:
        json.dump(site_document(days, quiet, begin, until, arguments.interval_ms, arguments.noise, arguments.seed), f)
    with open(venue_path, "w") as f:
        json.dump(venue_document(), f, indent=1)

    processes = []
    port = free_port()
    conf = os.path.join(folder, "mosquitto.conf")
    with open(conf, "w") as f:
        f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 100000\n")
    broker = subprocess.Popen(["/usr/sbin/mosquitto", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    processes.append(broker)
    try:
        site = subprocess.Popen([sys.executable, os.path.join(HERE, "site.py"), "--config", site_path,
                                 "--start", f"{start:.3f}", "--rate", str(rate), "--seed", str(arguments.seed)],
                                stdout=subprocess.PIPE, text=True)
        processes.append(site)
        ready = json.loads(site.stdout.readline())
        url = f"mqtt://127.0.0.1:{port}"
        log = open(os.path.join(folder, "solver.log"), "w")
        solver = subprocess.Popen([
            arguments.bluedot, "run", "--mqtt", url, "--site", SITE, "--espresense", "--venue", venue_path,
            "--mode", "tag", "--listen", "127.0.0.1:0", "--fast-clock", f"{rate}@{start:.3f}",
            "--reorder-window", f"{max(0.3, 0.05 * rate):.2f}", "--history", "memory",
            "--learned-calibration", "memory", "--no-ha-discovery", "--log-level", "notice"],
            stdout=subprocess.DEVNULL, stderr=log)
        processes.append(solver)
        fixes = Fixes(lambda wall: begin + (wall - start) * rate)
        watcher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="household-watcher")
        watcher.on_message = fixes.on_message
        watcher.on_connect = lambda c, *_: c.subscribe(f"bluedot/{SITE}/locations/+")
        watcher.connect("127.0.0.1", port)
        watcher.loop_start()
        publisher = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="household-nodes")
        publisher.max_queued_messages_set(0)
        publisher.max_inflight_messages_set(0)
        publisher.connect("127.0.0.1", port)
        publisher.loop_start()
        counts: dict[str, int] = {}
        wall_end = start + (until - begin) / rate

        async def scan() -> None:
            nodes = [Node(node, place["host"], place["port"], publisher, counts)
                     for node, place in ready["receivers"].items()]
            tasks = [asyncio.create_task(node.run()) for node in nodes]
            last_report = time.time()
            while time.time() < wall_end:
                await asyncio.sleep(1.0)
                if time.time() - last_report >= 30:
                    last_report = time.time()
                    day = begin + (time.time() - start) * rate
                    print(f"household: {clock_text(day)}, {sum(counts.values())} reports, "
                          f"{sum(len(v) for v in fixes.by_target.values())} fixes", flush=True)
                if solver.poll() is not None:
                    raise RuntimeError(f"the solver exited ({solver.returncode}); see {folder}/solver.log")
            for task in tasks:
                task.cancel()

        print(f"household: {arguments.begin} to {arguments.end} at {rate:g}x: "
              f"{(until - begin) / rate / 60:.1f} min; files in {folder}", flush=True)
        asyncio.run(scan())
        time.sleep(0.5)
        watcher.loop_stop()
        publisher.loop_stop()
        with fixes.lock:
            published = {target: list(locations) for target, locations in fixes.by_target.items()}
        with open(os.path.join(folder, "fixes.jsonl"), "w") as f:
            for locations in published.values():
                for location in locations:
                    f.write(json.dumps(location) + "\n")
        result = figures(days, published, start - begin, begin, until)
        result.update({"from": arguments.begin, "to": arguments.end, "rate": rate, "seed": arguments.seed,
                       "reports": counts, "quietSpans": {p: len(q) for p, q in quiet.items()},
                       "longestQuietMin": round(max(b - a for p in PEOPLE for a, b in quiet[p]
                                                    if span_at(days[p], a).kind == "stay") / 60, 1)})
    finally:
        for process in reversed(processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in reversed(processes):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        if not arguments.keep:
            shutil.rmtree(folder, ignore_errors=True)
    print(report(result))
    if arguments.json:
        with open(arguments.json, "w") as f:
            json.dump(result, f, indent=1)
    if arguments.check:
        failures = check(result, rooms=arguments.check_rooms)
        for failure in failures:
            print(f"household: FAILED: {failure}", file=sys.stderr)
        return 1 if failures else 0
    return 0


def check(result: dict, rooms: bool) -> list[str]:
    failures = []
    if result["falseNotHome"]:
        failures.append(f"{result['falseNotHome']} false not_home events: {result['falseNotHomeAt']}")
    if result["departuresMissed"]:
        failures.append(f"{result['departuresMissed']} departures never read not_home")
    if result["doorToNotHomeMaxS"] is not None and result["doorToNotHomeMaxS"] > AWAY_TIMEOUT_S + 30:
        failures.append(f"door to not_home took {result['doorToNotHomeMaxS']:.0f} s (> {AWAY_TIMEOUT_S + 30:.0f})")
    if rooms and result["stillChangesPerHour"] is not None and result["stillChangesPerHour"] > 1:
        failures.append(f"{result['stillChangesPerHour']:.2f} room changes per stationary hour (> 1)")
    return failures


def report(r: dict) -> str:
    def pct(x):
        return "-" if x is None else f"{100 * x:.1f}%"
    delays = ", ".join(f"{d['person']} {d['left']}: " + (
        "never" if d["notHomeAfter"] is None else
        f"{d['notHomeAfter']:.0f} s (last heard {d['lastHeardAfter']:+.0f} s, arrived {d['arrivedAfter']:.0f} s)")
        for d in r["departures"])
    # A departure never read, or read later than the check allows: the fixes the exit rule had, for the log (a CI
    # run keeps no files).
    def number(value, digits: int) -> str:
        return "-" if value is None else f"{value:.{digits}f}"
    def late(d) -> str | None:
        if d["notHomeAfter"] is None:
            return "never read not_home"
        return f"read not_home {d['notHomeAfter']:.0f} s later" if d["notHomeAfter"] > AWAY_TIMEOUT_S + 30 else None
    def fixes(trail) -> str:
        return "; ".join(
            f"{f['at']} ({number(f['x'], 1)}, {number(f['y'], 1)}) {f['room']} {number(f['roomProbability'], 2)}, "
            f"radius {number(f['horizontalAccuracy'], 1)} m, {number(f['speed'], 2)} m/s, "
            f"course {number(f['course'], 0)}" for f in trail)
    missed = [f"  {d['person']} left at {d['left']} and {late(d)}; the last fixes around it: {fixes(d['lastFixes'])}"
              for d in r["departures"] if late(d)]
    # A false not_home: the fixes before the silence it was read from.
    strays = [f"  {e['person']} read not_home at {e['at']} while at home; the last fixes before the silence: "
              f"{fixes(e['lastFixes'])}" for e in r.get("falseNotHomeFixes", [])]
    return "\n".join([
        f"household day {r['from']}-{r['to']} at {r['rate']:g}x (seed {r['seed']}):",
        f"  false not_home events: {r['falseNotHome']} {r['falseNotHomeAt'] or ''}".rstrip(),
        *strays,
        f"  door to not_home: {delays or 'no departures'}",
        *missed,
        f"  room changes per stationary hour: "
        + ("-" if r["stillChangesPerHour"] is None else f"{r['stillChangesPerHour']:.2f}")
        + f" over {r['stillHours']:.1f} h",
        f"  room accuracy while moving: {pct(r['roomAccuracyMoving'])} of {r['movingFixes']} fixes; "
        f"while still: {pct(r['roomAccuracyStill'])} of {r['stillFixes']}",
        f"  quiet spans {r['quietSpans']}, the longest inside {r['longestQuietMin']} min; reports {r['reports']}",
    ])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
