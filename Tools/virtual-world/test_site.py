"""Checks the virtual site: `../../.venv/bin/python -m unittest -q test_site` in this folder (about 10 s).

The config, track, radio, venue and truth checks run in-process; LiveSiteTests starts site.py twice (two
receivers in one process, the third alone on a given port, as a test would in a network namespace) and scans them
over H4 TCP like BlueDot does.
"""

from __future__ import annotations

import copy
import json
import math
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from bumble import hci

import radio
import site_config
import truth
from config import ConfigError, Position
from hci_client import LEGACY_SCAN, H4Client
from track import Track, Waypoint

HERE = os.path.dirname(os.path.abspath(__file__))
SITE = os.path.join(HERE, "site.py")
TIMEOUT_S = 10.0
IBEACON_UUID = "f7826da6-4fa2-4e98-8024-bc5b71e0893e"

# Three receivers under the ceiling; one tag at 1 m walks (2, 2) -> (8, 2) in 3 s and stays there.
DOCUMENT = {
    "noise": {"sigma": 0.0},
    "receivers": [
        {"id": "rx-1", "x": 0.0, "y": 0.0, "z": 2.5},
        {"id": "rx-2", "x": 10.0, "y": 0.0, "z": 2.5},
        {"id": "rx-3", "x": 5.0, "y": 8.0, "z": 2.5},
    ],
    "tags": [
        {"frame": "ibeacon", "uuid": IBEACON_UUID.upper(), "major": 3, "minor": 9, "z": 1.0,
         "measuredPower": -61, "pathLossExponent": 2.2, "intervalMs": 100,
         "track": [{"t": 0, "x": 2.0, "y": 2.0}, {"t": 3, "x": 8.0, "y": 2.0}]},
    ],
}
TAG_ID = f"ibeacon:{IBEACON_UUID}:3:9"


def walk(t: float) -> tuple[float, float, float]:
    """DOCUMENT's tag at t, written out independently of track.py."""
    u = min(max(t / 3.0, 0.0), 1.0)
    return (2.0 + 6.0 * u, 2.0, 1.0)


def model_rssi(t: float, receiver: tuple[float, float, float]) -> float:
    """rssi = measuredPower - 10 n log10(d), unrounded."""
    return -61 - 10 * 2.2 * math.log10(math.dist(walk(t), receiver))


def with_changes(change) -> dict:
    document = copy.deepcopy(DOCUMENT)
    change(document)
    return document


class ConfigTests(unittest.TestCase):
    def assertRejected(self, change, *fragments: str) -> None:
        with self.assertRaises(ConfigError) as caught:
            site_config.parse(with_changes(change), "s.json")
        for fragment in fragments:
            self.assertIn(fragment, str(caught.exception))

    def test_example_site_loads(self) -> None:
        site = site_config.load(os.path.join(HERE, "site.json"))
        self.assertEqual([r.id for r in site.receivers], ["rx-1", "rx-2", "rx-3", "rx-4"])
        self.assertEqual([t.id for t in site.tags], [f"ibeacon:{IBEACON_UUID}:1:1",
                                                     "eddystone:edd1ebeac04e5defa017:000000000002"])

    def test_canonical_tag_id_is_lower_case(self) -> None:
        site = site_config.parse(with_changes(lambda d: None), "s.json")
        self.assertEqual(site.tags[0].id, TAG_ID)
        self.assertEqual(site.tags[0].address, "C0:00:00:00:00:01")

    def test_errors_name_file_and_field(self) -> None:
        self.assertRejected(lambda d: d.pop("receivers"), "s.json: receivers: missing")
        self.assertRejected(lambda d: d.update(receivers=[]), "s.json: receivers: expected at least one")
        self.assertRejected(lambda d: d.update(tags=[]), "s.json: tags: expected at least one")
        self.assertRejected(lambda d: d["receivers"][1].update(id="rx-1"), "s.json: receivers[1].id", "already used")
        self.assertRejected(lambda d: d["receivers"][2].update(x="a"),
                            's.json: receivers[2].x: expected a number, got "a"')
        self.assertRejected(lambda d: d["tags"][0]["track"][1].update(t=0), "s.json: tags[0].track[1].t", "later")
        self.assertRejected(lambda d: d["tags"][0]["track"][0].pop("y"), "s.json: tags[0].track[0].y: missing")
        self.assertRejected(lambda d: d["tags"][0]["track"][0].update(x=math.nan), "track[0].x: expected a finite")
        self.assertRejected(lambda d: d["tags"][0].update(track=[]), "s.json: tags[0].track: expected at least one")
        self.assertRejected(lambda d: d["tags"][0].update(x=1.0), "s.json: tags[0].x: a tag moves")
        self.assertRejected(lambda d: d["tags"][0].update(loop="yes"), "s.json: tags[0].loop: expected true or false")
        self.assertRejected(lambda d: d["tags"][0].update(frame="beacon"), "s.json: tags[0].frame")
        self.assertRejected(lambda d: d["tags"][0].update(pathLossExponent=0), "tags[0].pathLossExponent")
        self.assertRejected(lambda d: d["tags"].append(copy.deepcopy(d["tags"][0])), "s.json: tags[1]", TAG_ID)
        self.assertRejected(lambda d: d.update(seed=1.5), "s.json: seed: expected an integer")
        self.assertRejected(lambda d: d.update(noise={"sigma": -1}), "s.json: noise.sigma")

    def test_unreadable_files_are_named(self) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "bad.json")
            with open(path, "w") as file:
                file.write('{"receivers": [}')
            with self.assertRaisesRegex(ConfigError, r"bad\.json:1:"):
                site_config.load(path)
            with self.assertRaisesRegex(ConfigError, "missing.json"):
                site_config.load(os.path.join(scratch, "missing.json"))


    def test_a_private_tag_is_heard_at_its_current_address(self) -> None:
        def private(d: dict) -> None:
            d["tags"][0] = {"frame": "private", "irk": "ec0234a357c8ad05341010a60a397d9b", "rotateSeconds": 3,
                            "track": d["tags"][0]["track"]}
        site = site_config.parse(with_changes(private), "s.json")
        tag = site.tags[0]
        self.assertEqual(tag.id, "irk:ec0234a357c8ad05341010a60a397d9b")
        self.assertEqual((tag.irk.hex(), tag.rotate_s), ("ec0234a357c8ad05341010a60a397d9b", 3.0))
        antenna = radio.Antenna(Position(0, 0, 0), site.tags, radio.PathLoss(), lambda: 0.0)
        for _ in range(3):
            # What air.py does at each change: Bumble takes the key least significant byte first.
            address = hci.Address.generate_private_address(tag.irk[::-1])
            self.assertTrue(address.is_resolvable)
            old, tag.address = tag.address, address.to_string(False)
            self.assertIsNotNone(antenna.rssi_for(address))
            self.assertIsNone(antenna.rssi_for(old))
        self.assertNotIn(b"\x4c\x00\x02\x15", tag.payload(), "no beacon frame: only the IRK tells who it is")
        self.assertRejected(lambda d: (private(d), d["tags"][0].update(irk="ec02")), "s.json: tags[0].irk: expected 32 hex")
        self.assertRejected(lambda d: (private(d), d["tags"][0].pop("irk")), "s.json: tags[0].irk: missing")
        self.assertRejected(lambda d: (private(d), d["tags"][0].update(rotateSeconds=0.5)), "tags[0].rotateSeconds")


class TrackTests(unittest.TestCase):
    def setUp(self) -> None:
        self.waypoints = [Waypoint(0, Position(0, 0, 1)), Waypoint(10, Position(10, 0, 1)),
                          Waypoint(20, Position(10, 10, 3))]

    def assertAt(self, track: Track, t: float, x: float, y: float, z: float) -> None:
        p = track.position_at(t)
        for got, want in zip((p.x, p.y, p.z), (x, y, z)):
            self.assertAlmostEqual(got, want, delta=1e-9)

    def test_linear_between_waypoints(self) -> None:
        track = Track(self.waypoints)
        self.assertAt(track, 0, 0, 0, 1)
        self.assertAt(track, 2.5, 2.5, 0, 1)
        self.assertAt(track, 10, 10, 0, 1)
        self.assertAt(track, 15, 10, 5, 2)

    def test_waits_before_and_stays_after(self) -> None:
        track = Track(self.waypoints)
        self.assertAt(track, -3, 0, 0, 1)
        self.assertAt(track, 99, 10, 10, 3)

    def test_loop_repeats_with_the_last_waypoints_period(self) -> None:
        track = Track(self.waypoints, loop=True)
        self.assertEqual(track.period_s, 20)
        self.assertAt(track, 25, 5, 0, 1)
        self.assertAt(track, 215, 10, 5, 2)
        self.assertAt(track, -3, 0, 0, 1)  # before t = 0 it waits at the start

    def test_single_waypoint_stands_still(self) -> None:
        track = Track([Waypoint(0, Position(1, 2, 3))], loop=True)
        self.assertAt(track, 7, 1, 2, 3)

    def test_config_track_uses_tag_height_unless_a_waypoint_gives_one(self) -> None:
        def change(d: dict) -> None:
            d["tags"][0]["track"][1]["z"] = 2.0
        tag = site_config.parse(with_changes(change), "s.json").tags[0]
        self.assertAt(tag.track, 0, 2, 2, 1)
        self.assertAt(tag.track, 1.5, 5, 2, 1.5)
        self.assertFalse(tag.track.loop)


class AntennaTests(unittest.TestCase):
    def test_rssi_follows_the_moving_tag(self) -> None:
        site = site_config.parse(with_changes(lambda d: None), "s.json")
        now = [0.0]
        antennas = {r.id: radio.Antenna(r.position, site.tags, radio.PathLoss(), lambda: now[0])
                    for r in site.receivers}
        receivers = {r.id: (r.position.x, r.position.y, r.position.z) for r in site.receivers}
        heard = {}
        for t in (-1.0, 0.0, 0.7, 1.5, 2.9, 3.0, 8.0):
            now[0] = t
            for identifier, antenna in antennas.items():
                rssi = antenna.rssi_for(hci.Address("C0:00:00:00:00:01", hci.Address.RANDOM_DEVICE_ADDRESS))
                self.assertEqual(rssi, round(model_rssi(t, receivers[identifier])), (t, identifier))
                heard.setdefault(identifier, []).append(rssi)
        self.assertGreater(heard["rx-1"][0], heard["rx-1"][-1] + 5)  # walking away from rx-1
        self.assertLess(heard["rx-2"][0], heard["rx-2"][-1] - 5)  # and towards rx-2
        self.assertIsNone(antennas["rx-1"].rssi_for("C0:00:00:00:00:99"))

    def test_a_tag_is_unheard_in_its_silences(self) -> None:
        def change(d: dict) -> None:
            d["tags"][0]["silent"] = [{"from": 5, "to": 7.5}, {"from": 1, "to": 2}]
        site = site_config.parse(with_changes(change), "s.json")
        self.assertEqual(site.tags[0].silences, ((1.0, 2.0), (5.0, 7.5)))
        now = [0.0]
        antenna = radio.Antenna(site.receivers[0].position, site.tags, radio.PathLoss(), lambda: now[0])
        heard = {}
        for t in (0.5, 1.0, 1.99, 2.0, 4.9, 5.0, 7.49, 7.5):
            now[0] = t
            heard[t] = antenna.rssi_for("C0:00:00:00:00:01") is not None
        self.assertEqual(heard, {0.5: True, 1.0: False, 1.99: False, 2.0: True, 4.9: True, 5.0: False,
                                 7.49: False, 7.5: True})
        for bad, fragment in (([{"from": 3, "to": 3}], "silent[0]: from (3.0)"), ([{"from": 1}], "silent[0].to"),
                              ([5], "silent[0]: expected an object")):
            def breaking(d: dict, bad=bad) -> None:
                d["tags"][0]["silent"] = bad
            with self.assertRaises(ConfigError) as caught:
                site_config.parse(with_changes(breaking), "s.json")
            self.assertIn(fragment, str(caught.exception))
            self.assertIn("s.json", str(caught.exception))

    def test_noise_is_seeded_per_receiver(self) -> None:
        site = site_config.parse(with_changes(lambda d: None), "s.json")

        def samples(seed: str) -> list[int]:
            antenna = radio.Antenna(Position(0, 0, 0), site.tags, radio.PathLoss(4.0, seed=seed), lambda: 1.0)
            return [antenna.rssi_for("C0:00:00:00:00:01") for _ in range(20)]
        self.assertEqual(samples("0:rx-1"), samples("0:rx-1"))
        self.assertNotEqual(samples("0:rx-1"), samples("0:rx-2"))


class VenueAndTruthTests(unittest.TestCase):
    def test_venue_has_the_receivers_as_anchors(self) -> None:
        site = site_config.parse(with_changes(lambda d: None), "s.json")
        venue = json.loads(site_config.venue_text(site_config.venue(site, "s.json")))
        self.assertEqual(venue["model"], {"measuredPower": -61.0, "pathLossExponent": 2.2})
        self.assertEqual(venue["anchors"][2], {"id": "rx-3", "x": 5.0, "y": 8.0, "z": 2.5,
                                               "measuredPower": -61.0, "pathLossExponent": 2.2})
        self.assertEqual(venue["bounds"], [[-1.0, -1.0], [11.0, 9.0]])

    def test_venue_of_noisy_mixed_tags(self) -> None:
        def change(d: dict) -> None:
            d["noise"]["sigma"] = 3.0
            d["tags"].append({"frame": "eddystone-uid", "namespace": "00112233445566778899",
                              "instance": "aabbccddeeff", "measuredPower": -55, "pathLossExponent": 1.8,
                              "track": [{"t": 0, "x": 1, "y": 1}]})
        venue = site_config.venue(site_config.parse(with_changes(change), "s.json"), "s.json")
        self.assertEqual(venue["model"], {"measuredPower": -58.0, "pathLossExponent": 2.0, "shadowingSigma": 3.0})
        self.assertIn("differ", venue["notes"])

    def test_truth_lines_sit_on_the_grid_of_start(self) -> None:
        site = site_config.parse(with_changes(lambda d: None), "s.json")
        with tempfile.TemporaryDirectory() as scratch:
            writer = truth.TruthWriter(os.path.join(scratch, "t.jsonl"), site.tags, 1000.0, clock=lambda: 1001.53)
            self.assertEqual(writer.next_k(), 16)
            self.assertEqual(writer.lines(15), f'{{"t": 1001.500, "target": "{TAG_ID}", "x": 5.000, "y": 2.000, '
                                               '"z": 1.000}\n')
            writer.close()
        with tempfile.TemporaryDirectory() as scratch:
            # site.py --rate 10: grid point k is 0.1 s of wall time, 1 s of track time and of the truth's t.
            fast = truth.TruthWriter(os.path.join(scratch, "t.jsonl"), site.tags, 1000.0, clock=lambda: 1000.2,
                                     rate=10)
            self.assertEqual(fast.next_k(), 2)
            self.assertTrue(fast.lines(2).startswith('{"t": 1002.000, '), fast.lines(2))
            self.assertIn('"x": 6.000', fast.lines(2))
            fast.close()
        self.assertEqual(truth.truth_line(0, "a", -0.0001, 1e-4, 2), '{"t": 0.000, "target": "a", "x": 0.000, '
                                                                     '"y": 0.000, "z": 2.000}\n')


class SiteProcess:
    """site.py as a child process, until close()."""

    def __init__(self, *arguments: str) -> None:
        self.process = subprocess.Popen([sys.executable, SITE, *arguments], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)

    def ready(self) -> dict:
        ready, _, _ = select.select([self.process.stdout], [], [], TIMEOUT_S)
        if not ready:
            raise TimeoutError("site.py did not print its ready line")
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"site.py exited: {self.process.wait()}: {self.process.stderr.read()}")
        return json.loads(line)

    def close(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()
        finally:
            self.process.stdout.close()
            self.process.stderr.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def scan(ready: dict, receiver: str, until: float, into: dict) -> None:
    """Scans `receiver` with a legacy scan until the wall-clock time `until`; (arrival, report) pairs into `into`."""
    place = ready["receivers"][receiver]
    client = H4Client(place["host"], place["port"], TIMEOUT_S)
    try:
        client.send(*LEGACY_SCAN)
        events = client.timed_events(max(0.0, until - time.time()))
    finally:
        client.close()
    into[receiver] = [(arrived, report) for arrived, event in events
                      if isinstance(event, hci.HCI_LE_Advertising_Report_Event) for report in event.reports]


class LiveSiteTests(unittest.TestCase):
    def test_command_line_errors_exit_2_naming_the_problem(self) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "s.json")
            with open(path, "w") as file:
                json.dump(with_changes(lambda d: d["tags"][0]["track"][0].update(t=-1)), file)
            run = subprocess.run([sys.executable, SITE, "--config", path], capture_output=True, text=True,
                                 timeout=TIMEOUT_S)
            self.assertEqual(run.returncode, 2)
            self.assertIn(f"site.py: {path}: tags[0].track[0].t: -1.0 must not be negative", run.stderr)
        run = subprocess.run([sys.executable, SITE, "--only", "rx-9"], capture_output=True, text=True,
                             timeout=TIMEOUT_S)
        self.assertEqual(run.returncode, 2)
        self.assertIn("--only: no receiver 'rx-9'", run.stderr)

    def test_receivers_hear_the_walking_tag_with_model_rssi(self) -> None:
        receivers = {r["id"]: (r["x"], r["y"], r["z"]) for r in DOCUMENT["receivers"]}
        with tempfile.TemporaryDirectory() as scratch:
            config = os.path.join(scratch, "s.json")
            with open(config, "w") as file:
                json.dump(DOCUMENT, file)
            truth_path, venue_path = os.path.join(scratch, "t.jsonl"), os.path.join(scratch, "v.json")
            start = time.time() + 2.5  # both processes are up by then; until then the tag waits at (2, 2)
            port = free_port()
            common = ("--config", config, "--start", repr(start))
            pair = SiteProcess(*common, "--only", "rx-1,rx-2", "--truth", truth_path, "--venue", venue_path)
            alone = SiteProcess(*common, "--only", "rx-3", "--listen", f"rx-3=127.0.0.1:{port}")
            try:
                ready = pair.ready()
                ready_alone = alone.ready()
                self.assertEqual(set(ready["receivers"]), {"rx-1", "rx-2"})
                self.assertEqual(ready_alone["receivers"], {"rx-3": {"host": "127.0.0.1", "port": port}})
                self.assertEqual(ready["tags"], [TAG_ID])
                self.assertEqual(ready["start"], start)
                heard: dict = {}
                until = start + 3.5
                threads = [threading.Thread(target=scan, args=(ready, "rx-1", until, heard)),
                           threading.Thread(target=scan, args=(ready, "rx-2", until, heard)),
                           threading.Thread(target=scan, args=(ready_alone, "rx-3", until, heard))]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join(TIMEOUT_S)
            finally:
                # Both are stopped before either status is checked: a failed check must not leave one running.
                statuses = pair.close(), alone.close()
                self.assertEqual(statuses, (0, 0))
            with open(truth_path) as file:
                truth_lines = [json.loads(line) for line in file]
            with open(venue_path) as file:
                venue = json.load(file)

        for receiver, reports in heard.items():
            self.assertGreater(len(reports), 20, receiver)  # 10 PDUs/s for about 4 s
            for arrived, report in reports:
                self.assertEqual(str(report.address), "C0:00:00:00:00:01")
                # The model at the moment the controller sent it: at most 0.2 s before it arrived here.
                window = [model_rssi(arrived - start - 0.01 * k, receivers[receiver]) for k in range(21)]
                self.assertLessEqual(min(abs(report.rssi - w) for w in window), 1.0, (receiver, arrived - start))
        # The tag walks away from rx-1 towards rx-2 and passes rx-3 at its nearest halfway.
        rssi = {r: [report.rssi for _, report in reports] for r, reports in heard.items()}
        self.assertGreaterEqual(rssi["rx-1"][0] - rssi["rx-1"][-1], 6)
        self.assertGreaterEqual(rssi["rx-2"][-1] - rssi["rx-2"][0], 6)
        self.assertGreater(max(rssi["rx-3"]), rssi["rx-3"][0])

        self.assertGreater(len(truth_lines), 30)
        for line in truth_lines:
            self.assertEqual(set(line), {"t", "target", "x", "y", "z"})
            self.assertEqual(line["target"], TAG_ID)
            x, y, z = walk(line["t"] - start)
            self.assertAlmostEqual(line["x"], x, delta=0.002)
            self.assertEqual((line["y"], line["z"]), (y, z))
        steps = {round(b["t"] - a["t"], 3) for a, b in zip(truth_lines, truth_lines[1:])}
        self.assertEqual(steps, {0.1}, "one line every 0.1 s")
        self.assertEqual([(a["id"], a["x"], a["y"], a["z"]) for a in venue["anchors"]],
                         [(r["id"], r["x"], r["y"], r["z"]) for r in DOCUMENT["receivers"]])


if __name__ == "__main__":
    unittest.main()
