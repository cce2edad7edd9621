"""Checks receivers that advertise: `../../.venv/bin/python -m unittest -q test_advertising` in this folder.

A receiver's host (here a bare H4 client, as BlueDot's `--advertise` would be) sends the legacy or the extended
advertising commands to its controller; the other receivers of the site hear it with the model's RSSI, their own
gain and the walls between; nobody hears itself; world.py's listener logs what a host advertised.
"""

from __future__ import annotations

import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import time
import unittest

from bumble import hci

import radio
import site_config
from config import ConfigError, Position
from hci_client import LE_SET_EXT_SCAN_ENABLE, LE_SET_EXT_SCAN_PARAMETERS, LEGACY_SCAN, RESET, SET_EVENT_MASK, \
    LE_SET_EVENT_MASK_ALL, H4Client, command
from test_site import SiteProcess
from test_world import World

TIMEOUT_S = 10.0
# An Eddystone-UID advertisement: Flags, the Eddystone service UUID, the frame (what ReceiverBeacon sends).
DATA = bytes.fromhex("020106" "0303aafe" "1716aafe00ee" "b8202f43bd98bf7f8fe8" "b81af50f3d08" "0000")

# ADV_NONCONN_IND every 100 ms (160 units) from the public address, on all three channels.
LEGACY_ADVERTISING = (
    command(0x2006, struct.pack("<HHBBB6sBB", 160, 160, 0x03, 0x00, 0x00, bytes(6), 0x07, 0x00)),
    command(0x2008, bytes([len(DATA)]) + DATA + bytes(31 - len(DATA))),
    command(0x200A, bytes([0x01])),
)
# Set 0 with legacy, non-connectable PDUs every 100 ms, from the public address.
EXTENDED_ADVERTISING = (
    command(0x2036, bytes([0x00]) + struct.pack("<H", 0x0010) + (160).to_bytes(3, "little") * 2
            + bytes([0x07, 0x00, 0x00]) + bytes(6) + bytes([0x00, 0x7F, 0x01, 0x00, 0x01, 0x00, 0x00])),
    command(0x2037, bytes([0x00, 0x03, 0x01, len(DATA)]) + DATA),
    command(0x2039, bytes([0x01, 0x01, 0x00, 0x00, 0x00, 0x00])),
)
EXTENDED_SCAN = (RESET, SET_EVENT_MASK, LE_SET_EVENT_MASK_ALL, LE_SET_EXT_SCAN_PARAMETERS, LE_SET_EXT_SCAN_ENABLE)

# Two receivers 10 m apart under the ceiling, a wall of 6 dB between them, hidden gains; a tag that stays put.
DOCUMENT = {
    "noise": {"sigma": 0.0},
    "receiverAdvertiser": {"measuredPower": -62, "pathLossExponent": 2.0},
    "receivers": [
        {"id": "rx-1", "x": 0.0, "y": 0.0, "z": 2.5, "gainDb": 4.0},
        {"id": "rx-2", "x": 10.0, "y": 0.0, "z": 2.5, "gainDb": -3.0},
    ],
    "walls": [{"from": {"x": 5.0, "y": -2.0}, "to": {"x": 5.0, "y": 2.0}, "lossDb": 6.0}],
    "tags": [
        {"frame": "ibeacon", "uuid": "f7826da6-4fa2-4e98-8024-bc5b71e0893e", "major": 1, "minor": 1, "z": 2.5,
         "track": [{"t": 0, "x": 2.0, "y": 0.0}]},
    ],
}


def link_rssi(gain: float) -> int:
    """What the other receiver reports of a receiver's advertisement: -62 dBm at 1 m, n = 2, over 10 m, through
    the wall, plus the hearing receiver's gain."""
    return int(round(-62 - 20 * math.log10(10.0) - 6.0 + gain))


class ConfigTests(unittest.TestCase):
    def load(self, change=None) -> site_config.Site:
        document = json.loads(json.dumps(DOCUMENT))
        if change:
            change(document)
        return site_config.parse(document, "s.json")

    def test_gains_walls_and_the_advertiser_model_load(self) -> None:
        site = self.load()
        self.assertEqual([r.gain_db for r in site.receivers], [4.0, -3.0])
        self.assertEqual(site.walls, [radio.Wall(5.0, -2.0, 5.0, 2.0, 6.0)])
        self.assertEqual((site.receiver_measured_power, site.receiver_path_loss_exponent), (-62.0, 2.0))
        self.assertEqual([a.address for a in site.receiver_advertisers()], ["F0:F1:F2:F3:00:01", "F0:F1:F2:F3:00:02"])
        defaults = self.load(lambda d: d.pop("receiverAdvertiser"))
        self.assertEqual((defaults.receiver_measured_power, defaults.receiver_path_loss_exponent), (-59.0, 2.0))

    def test_errors_name_the_field(self) -> None:
        cases = [
            (lambda d: d["receivers"][1].update(gainDb=25), "s.json: receivers[1].gainDb: 25.0 is beyond ±20 dB"),
            (lambda d: d["receivers"][0].update(gainDb="loud"), "s.json: receivers[0].gainDb: expected a number"),
            (lambda d: d["walls"][0].update(lossDb=-1), "s.json: walls[0].lossDb: -1.0 must be in 0 ... 60 dB"),
            (lambda d: d["walls"][0].pop("to"), "s.json: walls[0].to: missing"),
            (lambda d: d["walls"][0]["from"].pop("y"), "s.json: walls[0].from.y: missing"),
            (lambda d: d["walls"][0].update(to={"x": 5.0, "y": -2.0}), "s.json: walls[0]: from and to are the same"),
            (lambda d: d.update(walls=[3]), "s.json: walls[0]: expected an object"),
            (lambda d: d["receiverAdvertiser"].update(pathLossExponent=0),
             "s.json: receiverAdvertiser.pathLossExponent: 0.0 must be positive"),
        ]
        for change, message in cases:
            with self.subTest(message):
                with self.assertRaises(ConfigError) as caught:
                    self.load(change)
                self.assertIn(message, str(caught.exception))

    def test_a_wall_takes_its_loss_from_paths_that_cross_it_only(self) -> None:
        wall = radio.Wall(5.0, -2.0, 5.0, 2.0, 6.0)
        p = lambda x, y: Position(x, y, 1.0)  # noqa: E731
        self.assertTrue(wall.crosses(p(0, 0), p(10, 0)))
        self.assertTrue(wall.crosses(p(0, 2), p(10, 2)), "touching its end counts")
        self.assertFalse(wall.crosses(p(0, 3), p(10, 3)), "passing beyond its end")
        self.assertFalse(wall.crosses(p(0, 0), p(4, 0)), "stopping short of it")
        self.assertFalse(wall.crosses(p(5, -5), p(5, 5)), "running along it")
        walls = [wall, radio.Wall(7.0, -1.0, 7.0, 1.0, 4.0)]
        self.assertEqual(radio.wall_loss(walls, p(0, 0), p(10, 0)), 10.0)
        antenna = radio.Antenna(p(10, 0), [radio.FixedAdvertiser("F0:F1:F2:F3:00:01", p(0, 0), -62, 2.0)],
                                radio.PathLoss(), lambda: 0.0, gain_db=-3.0, walls=walls)
        self.assertEqual(antenna.rssi_for("F0:F1:F2:F3:00:01"), int(round(-62 - 20 - 10 - 3)))

    def test_the_venue_keeps_the_gains_hidden(self) -> None:
        venue = site_config.venue(self.load(), "s.json")
        self.assertNotIn("gain", json.dumps(venue).lower())


class LiveAdvertisingTests(unittest.TestCase):
    def start(self, *extra: str) -> tuple[SiteProcess, dict, str]:
        directory = tempfile.TemporaryDirectory(prefix="bluedot-adv-")
        self.addCleanup(directory.cleanup)
        scratch = directory.name
        config = os.path.join(scratch, "s.json")
        with open(config, "w") as file:
            json.dump(DOCUMENT, file)
        gains = os.path.join(scratch, "gains.json")
        site = SiteProcess("--config", config, "--truth-gains", gains, *extra)
        return site, site.ready(), gains

    def clients(self, ready: dict) -> tuple[H4Client, H4Client]:
        places = ready["receivers"]
        pair = (H4Client(places["rx-1"]["host"], places["rx-1"]["port"], TIMEOUT_S),
                H4Client(places["rx-2"]["host"], places["rx-2"]["port"], TIMEOUT_S))
        for client in pair:
            self.addCleanup(client.close)
        return pair

    def test_a_legacy_advertisement_is_heard_by_the_other_receiver_only(self) -> None:
        site, ready, gains = self.start()
        try:
            self.assertEqual(ready["addresses"], {"rx-1": "F0:F1:F2:F3:00:01", "rx-2": "F0:F1:F2:F3:00:02"})
            with open(gains) as file:
                self.assertEqual(json.load(file), {"rx-1": 4.0, "rx-2": -3.0})
            advertiser, listener = self.clients(ready)
            # rx-1 advertises and scans at once, as a BlueDot receiver does; rx-2 scans.
            advertiser.send(*LEGACY_SCAN, *LEGACY_ADVERTISING)
            listener.send(*LEGACY_SCAN)
            heard_by_2 = [r for e in listener.events(1.5) if isinstance(e, hci.HCI_LE_Advertising_Report_Event)
                          for r in e.reports]
            heard_by_1 = [r for e in advertiser.events(0.2) if isinstance(e, hci.HCI_LE_Advertising_Report_Event)
                          for r in e.reports]
        finally:
            self.assertEqual(site.close(), 0)
        ours = [r for r in heard_by_2 if str(r.address).startswith("F0:F1:F2:F3:00:01")]
        self.assertGreaterEqual(len(ours), 8, "about 10 a second")
        self.assertLessEqual(len(ours), 20)
        self.assertEqual({r.event_type for r in ours}, {hci.HCI_LE_Advertising_Report_Event.EventType.ADV_NONCONN_IND})
        self.assertEqual({r.address.address_type for r in ours}, {hci.Address.PUBLIC_DEVICE_ADDRESS})
        self.assertEqual({bytes(r.data) for r in ours}, {DATA})
        self.assertEqual({r.rssi for r in ours}, {link_rssi(-3.0)})
        self.assertFalse([r for r in heard_by_1 if str(r.address).startswith("F0:F1:F2:F3:00:01")],
                         "a receiver never hears itself")
        # The tag at 2 m from rx-1, on rx-1's side of the wall: the gain, and no wall.
        tag = [r for r in heard_by_1 if str(r.address).startswith("C0")]
        self.assertTrue(tag)
        self.assertEqual({r.rssi for r in tag}, {int(round(-59 - 20 * math.log10(2.0) + 4.0))})

    def test_an_extended_advertisement_with_legacy_pdus_reaches_both_kinds_of_scan(self) -> None:
        site, ready, _ = self.start()
        try:
            advertiser, listener = self.clients(ready)
            advertiser.send(RESET, *EXTENDED_ADVERTISING)
            listener.send(*EXTENDED_SCAN)
            extended = [r for e in listener.events(1.0) if isinstance(e, hci.HCI_LE_Extended_Advertising_Report_Event)
                        for r in e.reports]
            listener.send(*LEGACY_SCAN)
            legacy = [r for e in listener.events(1.0) if isinstance(e, hci.HCI_LE_Advertising_Report_Event)
                      for r in e.reports]
        finally:
            self.assertEqual(site.close(), 0)
        for name, reports in (("extended", extended), ("legacy", legacy)):
            ours = [r for r in reports if str(r.address).startswith("F0:F1:F2:F3:00:01")]
            with self.subTest(name):
                self.assertGreaterEqual(len(ours), 5)
                self.assertEqual({bytes(r.data) for r in ours}, {DATA})
                self.assertEqual({r.rssi for r in ours}, {link_rssi(-3.0)})
        self.assertTrue(all(r.event_type & 0x10 for r in extended if str(r.address).startswith("F0")),
                        "the legacy bit of a set with legacy PDUs")


class ListenerTests(unittest.TestCase):
    def test_the_listener_logs_what_the_host_advertised_and_not_the_beacons(self) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            log = os.path.join(scratch, "heard.jsonl")
            world = World("--listen-log", log)
            try:
                world.send(RESET)
                for packet in LEGACY_ADVERTISING:
                    world.send(packet)
                time.sleep(1.0)
            finally:
                world.close()
            with open(log) as file:
                lines = [json.loads(line) for line in file]
        self.assertGreaterEqual(len(lines), 5)
        self.assertEqual({line["address"] for line in lines}, {"F0:F1:F2:F3:F4:F5"})
        self.assertEqual({(line["addressType"], line["pdu"], line["data"]) for line in lines},
                         {("public", "legacy", DATA.hex())})
        self.assertEqual({line["rssi"] for line in lines}, {int(round(-59 - 20 * math.log10(3.0)))})
        self.assertTrue(all(abs(line["t"] - time.time()) < 30 for line in lines))


if __name__ == "__main__":
    unittest.main()
