"""Checks world.py end to end over its TCP port: run with `python -m unittest test_world` in this folder,
using a Python that has bumble installed."""

from __future__ import annotations

import json
import math
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import tty
import unittest

from bumble import hci

from hci_client import (
    LE_SET_EVENT_MASK_ALL, LE_SET_EXT_SCAN_ENABLE, LE_SET_EXT_SCAN_PARAMETERS, LE_SET_SCAN_ENABLE,
    LE_SET_SCAN_PARAMETERS, LEGACY_SCAN, RESET, SET_EVENT_MASK, H4Client, command, split_events,
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
        stop(self.process)


def stop(process: subprocess.Popen) -> None:
    """SIGTERM, up to TIMEOUT_S to exit, then SIGKILL."""
    process.terminate()
    process.stdout.close()
    try:
        process.wait(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


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


class PtyKernel:
    """The kernel's side of /dev/vhci, played on a pty's master while world.py holds the replica as its "vhci"
    device: the vendor packet that asks for an adapter, then H4 commands out and events back."""

    VENDOR_PACKET = bytes([0xFF, 0x00])  # create a primary adapter

    def __init__(self) -> None:
        self.master, self.replica = os.openpty()
        tty.setraw(self.replica)  # H4 bytes through unchanged; held open so the raw mode outlives world.py's close
        self.path = os.ttyname(self.replica)
        self.buffer = b""

    def read_until(self, predicate, what: str) -> None:
        deadline = time.monotonic() + TIMEOUT_S
        while not predicate(self.buffer):
            ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError(f"no {what} on the pty within {TIMEOUT_S} s (read {self.buffer.hex()})")
            self.buffer += os.read(self.master, 4096)

    def expect_vendor_packet(self) -> None:
        self.read_until(lambda b: b.startswith(self.VENDOR_PACKET), "vendor packet")
        self.buffer = self.buffer[len(self.VENDOR_PACKET):]

    def events(self, duration_s: float) -> list[hci.HCI_Event]:
        deadline = time.monotonic() + duration_s
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                self.buffer += os.read(self.master, 4096)
        events, self.buffer = split_events(self.buffer)
        return events

    def close(self) -> None:
        os.close(self.master)
        os.close(self.replica)


class VhciPlugTests(unittest.TestCase):
    """world.py --vhci on SIGUSR2: the controller unplugged (its device closed) and a new one plugged in, as
    Tools/vm/keep.sh replugs the kernel's adapter without starting a new world."""

    def setUp(self) -> None:
        self.kernel = PtyKernel()
        self.addCleanup(self.kernel.close)

    def start(self, *extra: str) -> subprocess.Popen:
        process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "world.py"), "--config", CONFIG, "--vhci", self.kernel.path, *extra],
            stdout=subprocess.PIPE, text=True,
        )
        self.addCleanup(stop, process)
        return process

    def line(self, process: subprocess.Popen) -> dict:
        ready, _, _ = select.select([process.stdout], [], [], TIMEOUT_S)
        self.assertTrue(ready, "world.py printed nothing")
        return json.loads(process.stdout.readline())

    def command_completes(self, opcode: int) -> list[hci.HCI_Event]:
        events = self.kernel.events(1.0)
        completes = [e for e in events if isinstance(e, hci.HCI_Command_Complete_Event)]
        self.assertIn(opcode, [e.command_opcode for e in completes], "no Command Complete for the command")
        return events

    def test_sigusr2_unplugs_and_plugs_a_new_controller_in_its_reset_state(self) -> None:
        world = self.start()
        self.kernel.expect_vendor_packet()
        self.assertEqual(self.line(world)["plugged"], True)
        os.write(self.kernel.master, b"".join(LEGACY_SCAN))
        events = self.command_completes(0x200C)
        self.assertTrue(reports(events + self.kernel.events(1.0), hci.HCI_LE_Advertising_Report_Event),
                        "the first controller's scan reported nothing")

        world.send_signal(signal.SIGUSR2)
        self.assertEqual(self.line(world), {"plugged": False})
        self.kernel.events(0.5)  # what was under way when the device closed
        world.send_signal(signal.SIGUSR2)
        self.assertEqual(self.line(world), {"plugged": True})
        self.kernel.expect_vendor_packet()  # a new adapter asked for
        # A new controller: no scan until its host sets one up, though the old one's was on.
        self.assertFalse([e for e in self.kernel.events(1.5) if isinstance(e, hci.HCI_LE_Meta_Event)],
                         "the replugged controller reported without a scan set up")
        os.write(self.kernel.master, RESET)
        self.command_completes(0x0C03)

    def test_unplugged_starts_without_a_device_until_sigusr2(self) -> None:
        world = self.start("--unplugged")
        self.assertEqual(self.line(world)["plugged"], False)
        self.assertEqual(self.kernel.events(1.0), [])
        self.assertEqual(self.kernel.buffer, b"", "world.py wrote to its device while unplugged")
        world.send_signal(signal.SIGUSR2)
        self.assertEqual(self.line(world), {"plugged": True})
        self.kernel.expect_vendor_packet()
        os.write(self.kernel.master, RESET)
        self.command_completes(0x0C03)


if __name__ == "__main__":
    unittest.main()
