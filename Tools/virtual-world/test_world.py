"""Checks world.py end to end over its TCP port: run with `python -m unittest test_world` in this folder,
using a Python that has bumble installed."""

from __future__ import annotations

import json
import math
import os
import select
import subprocess
import sys
import tempfile
import unittest

from bumble import hci

from hci_client import (
    LE_SET_EVENT_MASK_ALL, LE_SET_EXT_SCAN_ENABLE, LE_SET_EXT_SCAN_PARAMETERS, LE_SET_SCAN_ENABLE,
    LE_SET_SCAN_PARAMETERS, RESET, SET_EVENT_MASK, H4Client, command,
)

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "beacons.json")
TIMEOUT_S = 10.0


class World:
    def __init__(self, *extra: str, config: str = CONFIG) -> None:
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "world.py"), "--config", config, *extra],
            stdout=subprocess.PIPE, text=True,
        )
        try:
            ready, _, _ = select.select([self.process.stdout], [], [], TIMEOUT_S)
            if not ready:
                raise TimeoutError("world.py did not print its ready line")
            self.info = json.loads(self.process.stdout.readline())
            self.client = H4Client("127.0.0.1", self.info["port"], TIMEOUT_S)
        except BaseException:
            self.close()  # a world that never became usable is stopped here: no caller will close it
            raise

    def send(self, packet: bytes) -> None:
        self.client.send(packet)

    def events(self, duration_s: float) -> list[hci.HCI_Event]:
        return self.client.events(duration_s)

    def close(self) -> None:
        if hasattr(self, "client"):
            self.client.close()
        self.process.terminate()
        self.process.stdout.close()
        try:
            self.process.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def expected_rssi(measured: float, n: float, position, receiver=(0.0, 0.0, 1.0)) -> int:
    return int(round(measured - 10 * n * math.log10(max(math.dist(position, receiver), 0.1))))


EXPECTED = {  # from beacons.json: address -> RSSI at the receiver
    "C0:00:00:00:00:01": expected_rssi(-59, 2.0, (3, 4, 1)),
    "C0:00:00:00:00:02": expected_rssi(-62, 2.2, (10, 0, 1)),
    "C0:00:00:00:00:03": expected_rssi(-59, 2.0, (0, 6, 1)),
    "C0:00:00:00:00:04": expected_rssi(-59, 2.0, (1, 1, 1)),
    "C0:00:00:00:00:05": expected_rssi(-65, 2.0, (0, 0, 3)),
}


def reports(events, kind):
    return [r for e in events if isinstance(e, kind) for r in e.reports]


class WorldTests(unittest.TestCase):
    def test_legacy_scan_gives_one_legacy_report_per_pdu_with_model_rssi(self) -> None:
        world = World()
        try:
            for packet in (RESET, SET_EVENT_MASK, LE_SET_SCAN_PARAMETERS, LE_SET_SCAN_ENABLE):
                world.send(packet)
            events = world.events(1.2)
        finally:
            world.close()
        legacy = reports(events, hci.HCI_LE_Advertising_Report_Event)
        self.assertFalse(reports(events, hci.HCI_LE_Extended_Advertising_Report_Event))
        self.assertEqual({str(r.address).split("/")[0] for r in legacy}, set(EXPECTED))
        for report in legacy:
            self.assertEqual(report.rssi, EXPECTED[str(report.address).split("/")[0]])
            self.assertEqual(report.event_type, hci.HCI_LE_Advertising_Report_Event.EventType.ADV_NONCONN_IND)
        ibeacon = [r for r in legacy if str(r.address).startswith("C0:00:00:00:00:01")]
        # 100 ms interval over ~1.2 s: one report per PDU, not two (stock Bumble doubles them).
        self.assertTrue(8 <= len(ibeacon) <= 14, len(ibeacon))

    def test_without_event_mask_no_reports(self) -> None:
        world = World()
        try:
            for packet in (RESET, LE_SET_SCAN_PARAMETERS, LE_SET_SCAN_ENABLE):
                world.send(packet)
            events = world.events(0.6)
        finally:
            world.close()
        self.assertEqual(len([e for e in events if isinstance(e, hci.HCI_Command_Complete_Event)]), 3)
        self.assertFalse(reports(events, hci.HCI_LE_Advertising_Report_Event))

    def test_extended_scan_gives_extended_reports_with_legacy_bit(self) -> None:
        world = World()
        try:
            for packet in (RESET, SET_EVENT_MASK, LE_SET_EVENT_MASK_ALL, LE_SET_EXT_SCAN_PARAMETERS,
                           LE_SET_EXT_SCAN_ENABLE):
                world.send(packet)
            events = world.events(0.6)
        finally:
            world.close()
        extended = reports(events, hci.HCI_LE_Extended_Advertising_Report_Event)
        self.assertTrue(extended)
        self.assertFalse(reports(events, hci.HCI_LE_Advertising_Report_Event))
        for report in extended:
            self.assertEqual(report.event_type, 0x10)  # legacy PDU, non-connectable, non-scannable
            self.assertEqual(report.rssi, EXPECTED[str(report.address).split("/")[0]])

    def test_extended_pdus_reach_extended_scans_only(self) -> None:
        with tempfile.NamedTemporaryFile("w", suffix=".json") as config:
            json.dump({"receiver": {"x": 0, "y": 0, "z": 1}, "beacons": [
                {"frame": "ibeacon", "address": "C0:00:00:00:00:06", "uuid": "f7826da6-4fa2-4e98-8024-bc5b71e0893e",
                 "major": 1, "minor": 8, "x": 2, "y": 0, "z": 1, "pdu": "extended"}]}, config)
            config.flush()
            runs = {}
            for name, packets in (
                ("extended", (RESET, SET_EVENT_MASK, LE_SET_EVENT_MASK_ALL, LE_SET_EXT_SCAN_PARAMETERS,
                              LE_SET_EXT_SCAN_ENABLE)),
                ("legacy", (RESET, SET_EVENT_MASK, LE_SET_SCAN_PARAMETERS, LE_SET_SCAN_ENABLE)),
            ):
                world = World(config=config.name)
                try:
                    for packet in packets:
                        world.send(packet)
                    runs[name] = world.events(0.8)
                finally:
                    world.close()
        extended = reports(runs["extended"], hci.HCI_LE_Extended_Advertising_Report_Event)
        self.assertTrue(extended)
        for report in extended:
            self.assertEqual(report.event_type, 0x00)  # an extended PDU: non-connectable, non-scannable, not legacy
            self.assertEqual(report.rssi, expected_rssi(-59, 2.0, (2, 0, 1)))
        self.assertFalse(reports(runs["legacy"], hci.HCI_LE_Advertising_Report_Event))

    def test_legacy_features_reject_extended_commands(self) -> None:
        world = World("--features", "legacy")
        try:
            world.send(LE_SET_EXT_SCAN_PARAMETERS)
            world.send(command(0x2003))  # LE Read Local Supported Features
            events = world.events(0.5)
        finally:
            world.close()
        complete = [e for e in events if isinstance(e, hci.HCI_Command_Complete_Event)]
        self.assertEqual(complete[0].return_parameters.status, hci.HCI_ErrorCode.UNKNOWN_HCI_COMMAND_ERROR)
        features = int.from_bytes(complete[1].return_parameters.le_features, "little")
        self.assertEqual(features & hci.LeFeatureMask.LE_EXTENDED_ADVERTISING, 0)


if __name__ == "__main__":
    unittest.main()
