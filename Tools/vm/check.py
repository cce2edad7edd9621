#!/usr/bin/env python3
"""Checks what the scans of Tools/vm/guest.sh left in the share's out/ folder (run by Tools/vm/run).

Each scan left NAME.jsonl (its sightings), NAME.err (its log), NAME.rc (its exit code) and its start and end
times (guest uptime). Recordings are decoded here, on the host, with the binary under test, and compared with
btmon's capture of the same session. Prints unittest's summary and exits non-zero on any failure.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import math
import os
import re
import struct
import subprocess
import sys
import unittest

OUT = ""
BINARY = ""
GUEST_STATUS = ""

# The virtual world's beacons (Tools/vm/world.json) that a scan must hear, by frame type.
EXPECTED_TYPES = {"ibeacon", "eddystone-uid", "altbeacon"}
# The beacon of Tools/vm/world.json that advertises with extended PDUs: extended scans hear it, legacy ones do not.
EXTENDED_PDU_BEACON = "C0:00:00:00:00:06"

# btsnoop times count microseconds from 0 AD; this many of them lie before the Unix epoch.
BTSNOOP_EPOCH_OFFSET_US = 0x00DCDDB30F2F8000
# btsnoop monitor opcodes (BlueZ src/shared/btsnoop.h).
MONITOR_COMMAND, MONITOR_EVENT, MONITOR_CLOSE_INDEX, MONITOR_INDEX_INFO = 2, 3, 9, 10
# The kernel powers an adapter set up without bluetoothd off this long after its set-up (HCI_AUTO_OFF_TIMEOUT).
AUTO_OFF_SECONDS = 2.0


# ReceiverBeacon's namespace: the first 10 bytes of SHA-256 of "BlueDot receiver" (docs/site.md).
RECEIVER_NAMESPACE = hashlib.sha256(b"BlueDot receiver").digest()[:10]


def eddystone_uid(data: bytes) -> tuple[bytes, bytes] | None:
    """(namespace, instance) of the Eddystone-UID frame in advertising data, None when it carries none."""
    offset = 0
    while offset + 1 < len(data):
        length = data[offset]
        if length == 0:
            break
        kind, body = data[offset + 1], data[offset + 2:offset + 1 + length]
        if kind == 0x16 and body[:2] == b"\xaa\xfe" and len(body) >= 20 and body[2] == 0x00:
            return bytes(body[4:14]), bytes(body[14:20])
        offset += 1 + length
    return None


def read(name: str, suffix: str) -> str:
    with open(os.path.join(OUT, f"{name}.{suffix}"), encoding="utf-8", errors="replace") as f:
        return f.read()


def sightings(name: str) -> list[dict]:
    return [json.loads(line) for line in read(name, "jsonl").splitlines() if line.strip()]


def exit_code(name: str) -> int | str:
    """The step's exit code, or "hung" where guest.sh had to kill it (it says so in its log)."""
    rc = read(name, "rc").strip()
    return int(rc) if rc.lstrip("-").isdigit() else rc


def beacon_types(lines: list[dict]) -> set[str]:
    return {line["beacon"]["type"] for line in lines if "beacon" in line}


def decode(path: str) -> list[dict]:
    """`bluedot decode` of a btsnoop file (H4 or Linux monitor datalink)."""
    done = subprocess.run([BINARY, "decode", path], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
    if done.returncode != 0:
        raise AssertionError(f"bluedot decode {path} failed ({done.returncode}): {done.stderr}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def without_time(lines: list[dict]) -> collections.Counter:
    return collections.Counter(json.dumps({k: v for k, v in line.items() if k != "t"}, sort_keys=True)
                               for line in lines)


def monitor_records(path: str) -> list[tuple[float, int, bytes]]:
    """(Unix seconds, opcode, payload) of each record of a btmon capture (btsnoop, datalink 2001)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"btsnoop\0" or struct.unpack(">II", data[8:16])[1] != 2001:
        raise AssertionError(f"{path} is not a btsnoop monitor capture")
    records, offset = [], 16
    while offset + 24 <= len(data):
        _, included, flags, _, stamp = struct.unpack(">IIIIq", data[offset:offset + 24])
        payload = data[offset + 24:offset + 24 + included]
        if len(payload) < included:
            break  # btmon was stopped mid-record
        records.append(((stamp - BTSNOOP_EPOCH_OFFSET_US) / 1e6, flags & 0xFFFF, payload))
        offset += 24 + included
    return records


# HCI's LE Meta event, and its subevents that carry advertising reports: legacy and extended (Core Spec 5.4,
# Vol 4, Part E, §7.7.65.2 and §7.7.65.13).
LE_META_EVENT, LE_ADVERTISING_REPORT, LE_EXTENDED_ADVERTISING_REPORT = 0x3E, 0x02, 0x0D


def advertising_report_times(records: list[tuple[float, int, bytes]]) -> list[float]:
    """The time of each advertising report the controller delivered in a btmon capture, one per report (an event
    may carry several), in order."""
    return sorted(t for t, opcode, payload in records
                  if opcode == MONITOR_EVENT and len(payload) >= 4 and payload[0] == LE_META_EVENT
                  and payload[2] in (LE_ADVERTISING_REPORT, LE_EXTENDED_ADVERTISING_REPORT)
                  for _ in range(payload[3]))


class KernelPathTests(unittest.TestCase):
    def test_guest_finished(self):
        self.assertEqual(GUEST_STATUS, "0", "the guest's script failed (its log is above)")

    def assert_heard(self, name: str, procedure: str | None = None):
        self.assertEqual(exit_code(name), 0, read(name, "err"))
        lines = sightings(name)
        self.assertGreater(len(lines), 20, f"{name}: too few sightings")
        self.assertLessEqual(EXPECTED_TYPES, beacon_types(lines), f"{name}: not every beacon type heard")
        self.assertTrue(all(line["address"].startswith("C0:00:00:00:00:0") for line in lines),
                        f"{name}: a sighting of something that is not the world's beacons")
        if procedure:
            self.assertIn(f"procedure={procedure}", read(name, "err"))
        return lines

    def assert_refused(self, name: str, message: str):
        err = read(name, "err")
        self.assertNotEqual(exit_code(name), 0, f"{name} exited 0: {err}")
        self.assertIn(message, err)
        self.assertEqual(sightings(name), [], f"{name}: sightings despite the error")
        self.assertNotIn("retrying", err, f"{name}: a permanent error was retried")
        took = float(read(name, "end")) - float(read(name, "start"))
        self.assertLess(took, 15, f"{name}: took {took:.1f} s of its 30 s: it should stop at once")

    def test_raw_as_root_extended(self):
        lines = self.assert_heard("raw-root", procedure="extended")
        extended = [line for line in lines if line["address"] == EXTENDED_PDU_BEACON]
        self.assertGreater(len(extended), 5, "the extended advertising was not heard through hci0")
        self.assertEqual({line["id"] for line in extended}, {"ibeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:8"})

    def test_raw_as_root_legacy(self):
        lines = self.assert_heard("raw-legacy", procedure="legacy")
        self.assertNotIn(EXTENDED_PDU_BEACON, {line["address"] for line in lines}, "a legacy scan heard extended PDUs")

    def test_a_scan_turned_off_by_another_program_resumes(self):
        """hcitool's LE Set Scan Enable = 0 while BlueDot scans: the controller took it (its reply to hcitool, or a
        silence of over 0.9 s), BlueDot logged it and set the scan up again, and sightings never stopped for 10 s
        (issue 45's target)."""
        self.assertIn(exit_code("disabled-elsewhere"), (0, 143), read("disabled-elsewhere", "err"))
        disabled = float(read("disabled-elsewhere", "time"))
        lines = sightings("disabled-elsewhere")
        self.assertTrue([line for line in lines if line["t"] < disabled], "nothing heard before the disable")
        # hcitool takes a moment to start after `disabled` was read: the deaf span is the longest silence between
        # two sightings from then on (the beacons advertise every 100-200 ms). BlueDot waits 1 s before it sets
        # the scan up again, so a span of over 0.9 s shows that the controller took the disable.
        times = sorted(line["t"] for line in lines if line["t"] >= disabled)
        self.assertGreater(len(times), 10, "too few sightings after another program disabled the scan")
        gap, resumed = max((b - a, b) for a, b in zip(times, times[1:]))
        print(f"vm: a scan disabled by hcitool was deaf {gap:.1f} s; {sum(t >= resumed for t in times)} sightings "
              "after it resumed", file=sys.stderr)
        # hcitool prints the first event it reads after its command. That is the controller's Command Complete for
        # LE Set Scan Enable (opcode 0x200C, little-endian 0C 20) with status 0 when it came first: proof that the
        # controller took the disable. Otherwise an advertising report came first (it did, once), and only the
        # silence shows it. The silence alone is not enough: twice in CI (which builds the packages beside the VM)
        # the controller replied status 0 and BlueDot logged the change and set the scan up again a second later,
        # yet sightings never paused (deaf 0.1 s; 1.1 s when the VM ran alone). The likely reason, not measured: a
        # slow guest's controller falls a second behind and takes hcitool's disable and BlueDot's enable one after
        # the other.
        printed = read("disabled-elsewhere", "hcitool")
        replied = re.search(r"HCI Event: 0x0e plen 4\s+[0-9A-Fa-f]{2} 0C 20 00\b", printed) is not None
        log = read("disabled-elsewhere", "err")
        self.assertTrue(replied or gap > 0.9, "no proof that the disable took: no silence, and hcitool printed:\n"
                        + printed + "BlueDot logged:\n" + log)
        self.assertLess(gap, 10)
        changed = log.find("another program changed the scan")
        self.assertGreaterEqual(changed, 0, log)
        self.assertIn("[Scanner] scanning", log[changed:], "BlueDot did not set the scan up again")

    def test_a_long_scan_keeps_hearing_through_every_fault(self):
        """One `bluedot scan --hci F0:F1:F2:F3:F4:F5` (by address) through Tools/vm/keep.sh's faults: the scan
        disabled by another program, a power cycle, the controller removed and added as hci0, then as hci1 while a
        decoy holds hci0, and (with --soak) those at random. After each, sightings came back within 10 s of the
        fault (of `up` for a power cycle, of its return for a removed controller), within 5 s of `up` for a power
        cycle, and the run never ended by itself; its memory stayed flat over a soak."""
        self.assertIn(exit_code("keep"), (0, 143), read("keep", "err"))
        marks = [(name, float(t)) for name, t in (line.split() for line in read("keep", "marks").splitlines())]
        times = sorted(line["t"] for line in sightings("keep"))
        self.assertTrue(times and times[0] < marks[0][1], "nothing heard before the first fault")
        # Each fault: from its first mark to the next fault's first mark. The reference the delay counts from is the
        # moment the fault was over: the disable itself, `up`, or the controller's return.
        starts = {"disabled": "disabled", "down": "up", "removed": "added", "removed-again": "added-as-hci1"}
        def kind(name: str) -> str:
            # "soak-12-down" is a "down" of the soak's round 12.
            parts = name.split("-", 2)
            return parts[2] if parts[0] == "soak" and len(parts) == 3 and parts[1].isdigit() else name

        begins = [index for index, (name, _) in enumerate(marks) if kind(name) in starts]
        finish = next(t for name, t in marks if name == "end")
        faults = []
        for number, index in enumerate(begins):
            name, at = marks[index]
            prefix = name[: len(name) - len(kind(name))]
            reference = next(t for n, t in marks[index:] if n == prefix + starts[kind(name)])
            end = marks[begins[number + 1]][1] if number + 1 < len(begins) else finish
            faults.append((name, at, reference, end))
        figures = []
        for name, at, reference, end in faults:
            window = [t for t in times if at <= t < end]
            self.assertTrue(window, f"{name}: nothing heard after it")
            before = max((t for t in times if t < at), default=at)
            span = [before] + window
            gap, resumed = max((b - a, b) for a, b in zip(span, span[1:]))
            delay = resumed - reference
            figures.append((name, delay, gap))
            self.assertLess(delay, 5 if name.endswith("down") else 10,
                            f"{name}: sightings came back {delay:.1f} s after the fault was over")
        summary = ", ".join(f"{name} {delay:.1f} s" for name, delay, _ in figures)
        print(f"vm: keeps hearing: back after {summary}", file=sys.stderr)
        err = read("keep", "err")
        self.assertIn("the controller was reset by another program", err)
        self.assertIn("another program changed the scan", err)
        self.assertIn("hci1", read("keep", "hciconfig"))
        self.assertIn("adapter=hci1 (F0:F1:F2:F3:F4:F5)", err, "the link's return does not say where it was found")
        rss = [int(parts[1]) for parts in (line.split() for line in read("keep", "rss").splitlines())
               if len(parts) == 2]
        if any(name == "soak-start" for name, _ in marks):
            third = max(1, len(rss) // 3)
            early, late = sorted(rss[third:2 * third])[third // 2], sorted(rss[-third:])[third // 2]
            print(f"vm: soak of {len(figures) - 4} faults: resident memory {early} kB in its middle third, {late} kB "
                  f"in its last (median); the longest delay {max(d for _, d, _ in figures):.1f} s", file=sys.stderr)
            self.assertLess(late, early * 1.10 + 2048, "memory grew over the soak")

    def test_the_gateway_keeps_hearing_beside_bluetoothd(self):
        """bluedot.service on hci0 while bluetoothd starts, a client's discovery runs 10 s and ends, and bluetoothd
        powers the adapter off and on (Tools/vm/systemd.sh). The scan stayed on: in btmon's capture of those minutes
        the controller's advertising reports never paused for more than 10 s after any of them, and came again
        within 5 s of the power-on. And the gateway took them in: its report counter rose by at least 95% of the
        reports the controller delivered, and the oldest report not yet counted never waited 30 s.

        The counter's own standstills are printed, not judged: in this guest they also measure its one CPU. While
        bluetoothd starts (30-140 s here), an AddressSanitizer gateway took reports in bursts, and its counter stood
        still for 9.2 s while the controller's reports never paused for more than 2.2 s; it counted them all later,
        7.9 s behind at most. Judged by the counter alone, this check failed at 12.2 s in CI (docs/hardening.md)."""
        marks = dict((name, float(t)) for name, t in (line.split() for line in read("systemd", "marks").splitlines()))
        samples = [(float(t), int(float(n))) for t, n in (line.split() for line in read("systemd", "reports").splitlines())]
        self.assertTrue(samples, "the gateway's metrics were never read")
        records = monitor_records(os.path.join(OUT, "systemd.btmon"))
        self.assertTrue(records, "btmon captured nothing")
        reports = advertising_report_times(records)
        self.assertTrue(reports, "the controller delivered no advertising report while btmon ran")
        captured = records[0][0]
        self.assertLess(captured, marks["bluetoothd-started"], "btmon's capture began after bluetoothd started")

        order = ["bluetoothd-started", "discovery-on", "discovery-off", "power-off", "power-on", "end"]
        # From the last report before the step (from the step's start after the power-on: the adapter was down).
        def longest_silence(times: list[float], at: float, end: float, since_start: bool) -> float:
            before = at if since_start else max((t for t in times if t < at), default=at)
            span = [before] + [t for t in times if at <= t < end]
            return max((b - a for a, b in zip(span, span[1:])), default=math.inf)

        rises = [t for (t0, n0), (t, n) in zip(samples, samples[1:]) if n > n0]
        silences, standstills = {}, {}
        for step, following in zip(order, order[1:]):
            if step == "power-off":
                continue
            silences[step] = longest_silence(reports, marks[step], marks[following], step == "power-on")
            standstills[step] = longest_silence(rises, marks[step], marks[following], step == "power-on")
        back = min((t for t in reports if t >= marks["power-on"]), default=math.inf) - marks["power-on"]

        # What the gateway took in, against what the controller delivered, from the first sample of the capture
        # on: at each sample, the oldest delivered report not yet counted had waited `lag` (the counter counts
        # each report once, as the controller delivered them).
        sampled = [(t, n) for t, n in samples if t >= captured]
        self.assertGreater(len(sampled), 10, "too few samples of the counter while btmon ran")
        (first, base), (last, final) = sampled[0], sampled[-1]
        delivered = [t for t in reports if first < t <= last]
        lags = []
        for t, n in sampled:
            waiting = delivered[n - base] if 0 <= n - base < len(delivered) else math.inf
            lags.append(max(0.0, t - waiting))
        counted = (final - base) / max(1, len(delivered))

        print("vm: beside bluetoothd: " + "; ".join(
            f"{step}: the controller's longest silence {silences[step]:.1f} s (the counter's {standstills[step]:.1f} s)"
            for step in silences) + f"; reports again {back:.1f} s after the power-on; the gateway counted "
            f"{final - base} of {len(delivered)} reports ({100 * counted:.1f}%), at most {max(lags):.1f} s behind; "
            "recoveries: " + " ".join(read("systemd", "recoveries").split("\n")), file=sys.stderr)
        for step, gap in silences.items():
            self.assertLess(gap, 10, f"{step}: the controller delivered no report for {gap:.1f} s: the scan was off")
        self.assertLess(back, 5, "the scan was not set up again within 5 s of the power-on")
        self.assertGreaterEqual(counted, 0.95, "the gateway did not count what the controller delivered")
        self.assertLess(max(lags), 30, "the gateway stopped taking reports in")

    def test_raw_unprivileged_with_ambient_capabilities(self):
        self.assert_heard("raw-caps")

    def test_unprivileged_without_capabilities_on_an_up_adapter(self):
        self.assert_refused("raw-nocaps-up", "missing CAP_NET_RAW")

    def test_unprivileged_without_capabilities_on_a_down_adapter(self):
        self.assert_refused("raw-nocaps-down", "missing CAP_NET_ADMIN")

    def test_user_channel_on_an_up_adapter(self):
        self.assert_refused("user-up", "adapter hci0 in use")

    def test_no_such_adapter(self):
        self.assert_refused("no-adapter", "no adapter hci7")

    def test_user_channel_on_a_down_adapter(self):
        self.assert_heard("user-down")

    def test_raw_again_after_the_user_channel(self):
        self.assert_heard("raw-after-user")

    def test_recording_decodes_on_the_host_and_agrees_with_btmon(self):
        live = sightings("raw-root")
        recorded = decode(os.path.join(OUT, "raw-root.btsnoop"))
        captured = decode(os.path.join(OUT, "raw-root.btmon"))
        self.assertEqual(without_time(recorded), without_time(live), "the recording differs from the live scan")
        self.assertEqual(without_time(captured), without_time(recorded), "btmon heard other reports")

    def test_a_scan_started_in_the_auto_off_window_keeps_its_adapter(self):
        inside = 0
        for name in ("auto-off-1", "auto-off-2"):
            with self.subTest(name):
                hit = self.assert_kept_adapter(name)
                inside += hit
        # Both rounds starting too late (a loaded host) leaves the race unexercised: said, not failed.
        print(f"\nauto-off: {inside} of 2 scans started inside the kernel's window"
              + ("" if inside else "; the race was not exercised in this run"), file=sys.stderr)

    def test_the_shipped_unit_runs_bluedot_as_its_user_with_two_capabilities(self):
        self.assertTrue(os.path.exists(os.path.join(OUT, "systemd.show")),
                        "the boot under systemd left no results (its log is above)")
        show = dict(line.split("=", 1) for line in read("systemd", "show").splitlines() if "=" in line)
        self.assertEqual((show["ActiveState"], show["SubState"]), ("active", "running"), read("systemd", "journal"))
        self.assertEqual(show["User"], "bluedot")
        self.assertEqual(show["NRestarts"], "0")
        status = dict(line.split(":", 1) for line in read("systemd", "status").splitlines())
        self.assertEqual(status["Uid"].split()[0], read("systemd", "uid").strip(), "not the bluedot user")
        scanning = (1 << 12) | (1 << 13)  # CAP_NET_ADMIN, CAP_NET_RAW
        for field in ("CapEff", "CapPrm", "CapAmb", "CapBnd"):
            self.assertEqual(int(status[field], 16), scanning, f"{field}: {status[field].strip()}")
        self.assertEqual(status["NoNewPrivs"].strip(), "1")
        locations = json.loads(read("systemd", "locations"))
        self.assertTrue(locations, "no location from the service: " + read("systemd", "journal")[-2000:])
        self.assertEqual(locations[0]["target"], "self", "not the gateway's own location")
        self.assertIn("x", locations[0])
        self.assertEqual(json.loads(read("systemd", "health")).get("scan"), "running", read("systemd", "health"))
        stopped = dict(line.split("=", 1) for line in read("systemd", "stopped").splitlines() if "=" in line)
        self.assertEqual((stopped["Result"], stopped["ExecMainStatus"]), ("success", "0"), "not a clean stop")

    def test_the_solver_template_runs_without_any_capability(self):
        self.assertTrue(os.path.exists(os.path.join(OUT, "solver.show")),
                        "the solver's unit left no results (the systemd boot's log is above)")
        show = dict(line.split("=", 1) for line in read("solver", "show").splitlines() if "=" in line)
        journal = read("solver", "journal")[-2000:]
        self.assertEqual((show["ActiveState"], show["SubState"]), ("active", "running"), journal)
        self.assertEqual((show["User"], show["NRestarts"]), ("bluedot", "0"))
        status = dict(line.split(":", 1) for line in read("solver", "status").splitlines())
        for field in ("CapEff", "CapPrm", "CapAmb", "CapBnd"):
            self.assertEqual(int(status[field], 16), 0, f"{field}: {status[field].strip()}")
        self.assertEqual(status["NoNewPrivs"].strip(), "1")
        self.assertEqual(json.loads(read("solver", "health")).get("status"), "ok", journal)
        self.assertIn("history.sqlite", read("solver", "state"), "no history in the unit's state directory")
        stopped = dict(line.split("=", 1) for line in read("solver", "stopped").splitlines() if "=" in line)
        self.assertEqual((stopped["Result"], stopped["ExecMainStatus"]), ("success", "0"), "not a clean stop")

    def test_the_kernel_lists_an_adapter_in_its_auto_off_window_as_down(self):
        listed = float(read("listing", "time"))
        self.assertIn("DOWN", read("listing", "hciconfig"), "hciconfig listed the new adapter as up")
        records = monitor_records(os.path.join(OUT, "listing.btmon"))
        info = next((t for t, op, _ in records if op == MONITOR_INDEX_INFO), None)
        closes = [t for t, op, _ in records if op == MONITOR_CLOSE_INDEX]
        self.assertIsNotNone(info, "btmon saw no adapter set up")
        self.assertTrue(closes, "the kernel did not power the idle adapter off")
        # Listed while still powered: the power-off came after the listing.
        self.assertLess(listed, closes[0], "the adapter was listed after the kernel had powered it off")
        print(f"\nlisting: listed as DOWN {listed - info:.2f} s after its set-up; powered off "
              f"{closes[0] - info:.2f} s after it", file=sys.stderr)

    def test_a_receiver_advertises_through_the_kernel_and_a_second_controller_hears_it(self):
        instance = hashlib.sha256(b"vm/rx-vm").digest()[:6]
        for features in ("extended", "legacy"):
            with self.subTest(features):
                name = f"advertise-{features}"
                err = read(name, "err")
                self.assertEqual(exit_code(name), 0, err[-2000:])
                self.assertIn(f"procedure={features}", err, "the receiver did not scan with the expected commands")
                self.assertRegex(err, r"advertising", "the receiver did not say it advertises: " + err[-2000:])
                address = re.search(r"BD Address: ([0-9A-F:]{17})", read(name, "hciconfig"))
                self.assertIsNotNone(address, read(name, "hciconfig"))
                heard = [json.loads(line) for line in read(name, "heard").splitlines() if line.strip()]
                ours = [h for h in heard if eddystone_uid(bytes.fromhex(h["data"])) == (RECEIVER_NAMESPACE, instance)]
                # About 10 a second for 5 s; a loaded host scans late, so a third of that is enough.
                self.assertGreater(len(ours), 15, f"{len(heard)} reports heard, {len(ours)} of the receiver's frame")
                self.assertEqual({h["address"].upper() for h in ours}, {address.group(1)},
                                 "not sent from hci0's public address")
                self.assertEqual({h["addressType"] for h in ours}, {"public"})
                print(f"\n{name}: {len(ours)} reports of rx-vm's frame heard from {address.group(1)}", file=sys.stderr)

    def assert_kept_adapter(self, name: str) -> bool:
        """The scan's adapter stayed up for its 5 s; returns whether the scan started inside the 2 s window."""
        lines = self.assert_heard(name)
        records = monitor_records(os.path.join(OUT, f"{name}.btmon"))
        info = next((t for t, op, _ in records if op == MONITOR_INDEX_INFO), None)
        self.assertIsNotNone(info, "btmon saw no adapter set up")
        first = next((t for t, op, _ in records if op == MONITOR_COMMAND and t > info), None)
        self.assertIsNotNone(first, "the scan sent no command")
        closes = [t for t, op, _ in records if op == MONITOR_CLOSE_INDEX and t > info]
        self.assertEqual([t for t in closes if t > first], [], "the adapter was powered off under the scan")
        # Heard until the scan ended. Measured from its end, not its start: under software emulation a loaded host
        # may take a second or more to open the adapter (CI saw 3.8 s of sightings in a 5 s scan that kept it).
        last, exited = max(line["t"] for line in lines), float(read(name, "exited"))
        self.assertLess(exited - last, 1.5, f"sightings stopped {exited - last:.1f} s before the scan exited")
        span = last - min(line["t"] for line in lines)
        self.assertGreater(span, 2.0, f"sightings for only {span:.1f} s of 5")
        # Whether the scan met the race: it opened the adapter before the kernel powered it off.
        inside = not any(t < first for t in closes)
        print(f"\n{name}: the scan's first command came {first - info:.2f} s after the adapter's set-up, "
              + ("inside the kernel's auto power-off window" if inside
                 else "after the kernel had powered it off (the scan brought it up)"), file=sys.stderr)
        return inside


def print_world_starts() -> None:
    """How long the virtual world took to come up as an adapter (guest.sh's world-starts): a new world's Python
    and Bumble start, or a replugged controller."""
    seconds: dict[str, list[float]] = {"start": [], "plug": []}
    try:
        with open(os.path.join(OUT, "world-starts"), encoding="utf-8") as f:
            for line in f:
                kind, _, value = line.split()
                seconds[kind].append(float(value))
    except FileNotFoundError:
        return
    figures = [f"{'started' if kind == 'start' else 'plugged in'} in {min(v):.1f}-{max(v):.1f} s ({len(v)} times)"
               for kind, v in seconds.items() if v]
    print("vm: the virtual world's controller " + "; ".join(figures), file=sys.stderr)


def main() -> int:
    global OUT, BINARY, GUEST_STATUS
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--guest-status", required=True)
    arguments = parser.parse_args()
    OUT, BINARY, GUEST_STATUS = arguments.out, arguments.binary, arguments.guest_status
    counts = {}
    for name in sorted(f[:-6] for f in os.listdir(OUT) if f.endswith(".jsonl")):
        counts[name] = len(sightings(name))
    print("vm: sightings per scan: " + ", ".join(f"{k} {v}" for k, v in counts.items()), file=sys.stderr)
    print_world_starts()
    result = unittest.main(argv=["vm-check", "-v"], exit=False).result
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
