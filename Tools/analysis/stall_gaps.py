"""How often would the scan-stall rule fire on real recordings where the scanner was fine?

The rule (Sources/Scanner/ScanWatch.swift): at time t, with the last report at t_last, let
rate = (reports in the 60 s window ending at t_last) / 60. With at least N_min reports in that window ("the
anchors were being heard"), the scan is stalled when t - t_last > max(T_min, k / rate).

Every real recording with per-report arrival times is turned into streams of report times, one per scanning
receiver (self mode: the recording's one scanner hears every anchor; tag mode: each fixed receiver is a stream),
all beacons together, as the scanner sees them. Every silence between two reports of a stream is a silence in
which the scanner was fine, so every silence the rule calls a stall is a false stall. This prints Markdown: the
streams, false stalls per (k, T_min, N_min), the distribution of gap x rate (the gap in mean report intervals),
the longest gaps, and the smallest k and T_min that stay clear of all of them with a margin.

Run from the repository root:
    .venv/bin/python Tools/analysis/stall_gaps.py [--data /work/shared/data] [--bluedot .build/debug/bluedot] > out.md
Plain Python (no numpy); a few seconds of CPU.
"""

import argparse
import bisect
import glob
import json
import math
import os
import struct
import subprocess
from collections import defaultdict

WINDOW = 60  # seconds of reports the rate is taken over, as ScanWatch.windowSeconds
KS = [5, 10, 20, 30, 50]
T_MINS = [2, 5, 10, 15]
N_MINS = [10, 20, 50]
TYPICAL_RATES = [10.0, 1.0, 0.2]
MIN_SPAN = 10  # s of covered window before a scaled-up rate is trusted (mode 'full')
MARGIN = 2.0  # a recommended limit must be at least this many times every evidence gap seen
WUT_RUN_BREAK = 600.0  # s; WUT's four runs are 22-87 min apart (data README): recording stopped, not silence


class Stream:
    """Report times of one receiver over one stretch in which it was recording."""

    def __init__(self, dataset, source, receiver, times):
        self.dataset, self.source, self.receiver = dataset, source, receiver
        self.times = sorted(times)

    @property
    def hours(self):
        return (self.times[-1] - self.times[0]) / 3600 if len(self.times) > 1 else 0.0


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def split_at_breaks(times, limit):
    """Cuts a time list where the recording stopped (gaps over `limit`), so those are not scored as silences."""
    parts, current = [], []
    for t in sorted(times):
        if current and t - current[-1] > limit:
            parts.append(current)
            current = []
        current.append(t)
    return parts + [current] if current else parts


def tag_mode_streams(data, dataset, break_limit=None):
    """One stream per (file, receiver): in tag mode the anchor is the receiver that logged the packet."""
    streams = []
    for path in sorted(glob.glob(os.path.join(data, dataset, "*.observations.jsonl"))):
        by_rx = defaultdict(list)
        for o in read_jsonl(path):
            by_rx[o["anchor"]].append(o["t"])
        for rx, times in sorted(by_rx.items()):
            parts = split_at_breaks(times, break_limit) if break_limit else [times]
            for i, part in enumerate(parts):
                name = rx if len(parts) == 1 else f"{rx} run {i + 1}"
                streams.append(Stream(dataset, os.path.basename(path), name, part))
    return streams


def uji_streams(data):
    """UJI from its raw files: the converted observations put scans 100 s apart, the raw Android elapsed-time
    counter (`geo_tms.csv`, ns) keeps the true spacing. One stream per visit of a point (13 consecutive scans
    at one power level): between visits the collector walked to the next point, scanning or not, unrecorded.
    Empty scans within a visit stay in as silence (they are real: the phone scanned and heard nothing)."""
    raw = os.path.join(data, "uji-ble-db", "raw", "data", "rss")
    with open(os.path.join(raw, "geo_tms.csv")) as f:
        tms = [[int(x) for x in line.split(",")] for line in f if line.strip()]
    with open(os.path.join(raw, "geo_ids.csv")) as f:
        ids = [line.strip() for line in f if line.strip()]
    visits = defaultdict(list)  # (power, campaign, point, pass) -> times
    order = []
    prev_key = None
    for row, code in zip(tms, ids):
        key = code[:6]  # phone, power, campaign, point: a new key is a new visit
        if key != prev_key:
            order.append((key, len(order)))
            prev_key = key
        visits[order[-1]].extend(x / 1e9 for x in row if x)
    power = {"1": "geo-tx04", "2": "geo-tx12", "3": "geo-tx20"}
    return [Stream("uji-ble-db", f"raw geo_tms ({power[key[1]]})", f"phone-a5 point {key[3:6]} visit {n}", times)
            for (key, n), times in visits.items() if len(times) > 1]


def btsnoop_records(path):
    """(time s, H4 bytes) of each record of a btsnoop file (datalink 1002), for the scan commands."""
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:8] != b"btsnoop\0" or struct.unpack(">I", blob[12:16])[0] != 1002:
        return []
    records, pos = [], 16
    while pos + 24 <= len(blob):
        _, incl, _, _, ts = struct.unpack(">IIIIq", blob[pos:pos + 24])
        records.append((ts / 1e6 - 62168256000.0, blob[pos + 24:pos + 24 + incl]))  # from 0 AD to Unix epoch
        pos += 24 + incl
    return records


def scan_enabled_spans(path):
    """Spans with the scan enabled (LE Set [Extended] Scan Enable, 0x200c / 0x2042): a host that turned the scan
    off is not a silence the rule must tolerate. None when the file shows no enable command."""
    spans, start = [], None
    for t, pkt in btsnoop_records(path):
        if len(pkt) < 5 or pkt[0] != 0x01:
            continue
        opcode = pkt[1] | pkt[2] << 8
        if opcode in (0x200C, 0x2042):
            if pkt[4] and start is None:
                start = t
            elif not pkt[4] and start is not None:
                spans.append((start, t))
                start = None
    if start is not None:
        spans.append((start, math.inf))
    return spans or None


def btsnoop_streams(paths, bluedot):
    """One stream per capture (the phone's one controller), report times as `bluedot decode` prints them."""
    streams = []
    for path in paths:
        out = subprocess.run([bluedot, "decode", path], capture_output=True, text=True, check=True).stdout
        times = [json.loads(line)["t"] for line in out.splitlines() if line.strip()]
        spans = scan_enabled_spans(path) or [(-math.inf, math.inf)]
        for i, (a, b) in enumerate(spans):
            part = [t for t in times if a <= t <= b]
            if len(part) > 1:
                streams.append(Stream("btsnoop", os.path.basename(path), f"scan {i + 1} of {len(spans)}", part))
    return streams


def unique_captures(data, repo):
    """btsnoop files in the shared captures and the repository's test fixtures, each content once."""
    seen, paths = set(), []
    candidates = glob.glob(os.path.join(data, "captures", "*"))
    for root, _, files in os.walk(os.path.join(repo, "Tests")):
        candidates += [os.path.join(root, f) for f in files if f.endswith((".log", ".btsnoop"))]
    for path in sorted(candidates):
        with open(path, "rb") as f:
            blob = f.read()
        if blob[:8] == b"btsnoop\0" and blob not in seen:
            seen.add(blob)
            paths.append(path)
    return paths


def gaps(stream):
    """(gap s, reports in the window before it, seconds of the window the recording covers) for every silence
    between two reports. The window counts whole seconds as ScanWatch's buckets do: floor(t_last) - 59 ...
    floor(t_last); the covered part starts at the stream's first second."""
    secs = [math.floor(t) for t in stream.times]
    out = []
    for i in range(len(stream.times) - 1):
        first = bisect.bisect_right(secs, secs[i] - WINDOW, 0, i + 1)
        span = min(WINDOW, secs[i] - secs[0] + 1)
        out.append((stream.times[i + 1] - stream.times[i], i + 1 - first, span))
    return out


def window_count(count, span, mode):
    """Reports the 60 s window holds (or would hold), or None when the gap is not scored in this mode.
    literal: the rule as it runs, count / 60 even when the recording began less than 60 s before; short
    recordings (UJI visits of ~13 s, BOUN tracks of ~1 min) then look slower than they are, which hides false
    stalls. full: what a gateway running for a while would see, the covered part scaled up to 60 s, scored only
    with at least MIN_SPAN s covered (a rate from 2 s of reports says little)."""
    if mode == "literal":
        return count
    return count * WINDOW / span if span >= MIN_SPAN else None


def limit(k, t_min, count):
    return max(t_min, k * WINDOW / count)


def percentile(values, q):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q / 100 * len(s)) - 1))]


def fmt(x, digits=2):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def streams_table(streams, notes):
    print("## 1. Streams\n")
    print("| dataset | source files | streams | receiver-hours | reports | gaps (literal count >= 10) | timestamps |")
    print("|---|---:|---:|---:|---:|---:|---|")
    by_ds = defaultdict(list)
    for s in streams:
        by_ds[s.dataset].append(s)
    for ds, ss in by_ds.items():
        files = len({s.source for s in ss})
        ev = sum(1 for s in ss for g, c, _ in gaps(s) if c >= 10)
        print(f"| {ds} | {files} | {len(ss)} | {sum(s.hours for s in ss):.3f} | {sum(len(s.times) for s in ss)} "
              f"| {ev} | {notes[ds]} |")
    total = sum(s.hours for s in streams)
    print(f"| **all** | | {len(streams)} | {total:.3f} | {sum(len(s.times) for s in streams)} | | |\n")


def scored(all_gaps, mode):
    """(stream, gap s, window count) of the gaps a mode scores."""
    out = []
    for s, g, c, span in all_gaps:
        w = window_count(c, span, mode)
        if w is not None:
            out.append((s, g, w))
    return out


def rule_outcome(gs, k, t_min, n_min):
    """False stalls (stream, gap) and the margin: min over evidence gaps of limit / gap."""
    fired, margin = [], math.inf
    for s, g, c in gs:
        if c < n_min or g <= 0:
            continue
        lim = limit(k, t_min, c)
        margin = min(margin, lim / g)
        if g > lim:
            fired.append((s, g))
    return fired, margin


def false_stall_table(streams, by_mode):
    """A silence counts once however long it lasts: one false episode (one needless re-arm)."""
    hours = sum(s.hours for s in streams)
    print("## 2. False stalls per rule\n")
    print(f"Over {hours:.3f} receiver-hours. A silence counts once however long it lasts (one false episode, one "
          "needless re-arm). margin = min over evidence gaps of limit / gap: above 1 means no false stall; the "
          f"recommendation asks for >= {MARGIN:g}. Two ways to take the rate on recordings shorter than the "
          "window: **literal** = the rule as it runs (count / 60 even when the recording began less than 60 s "
          "before, which makes short recordings look slow and hides false stalls); **full** = what a gateway "
          "running for a while would see: the count over the covered part of the window scaled up to 60 s "
          f"(gaps with under {MIN_SPAN} s covered not scored). They agree wherever 60 s were covered. "
          "'where' lists the datasets of the full-mode false stalls.\n")
    print("| k | T_min s | N_min | false (literal) | per hour | margin | false (full) | per hour | margin | where |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    results = {}
    for k in KS:
        for t_min in T_MINS:
            for n_min in N_MINS:
                lit, m_lit = rule_outcome(by_mode["literal"], k, t_min, n_min)
                full, m_full = rule_outcome(by_mode["full"], k, t_min, n_min)
                results[(k, t_min, n_min)] = (len(lit), m_lit, len(full), m_full)
                where = defaultdict(int)
                for s, _ in full:
                    where[s.dataset] += 1
                w = ", ".join(f"{d} {n}" for d, n in sorted(where.items())) or "-"
                print(f"| {k} | {t_min} | {n_min} | {len(lit)} | {len(lit) / hours:.2f} | {fmt(m_lit)} "
                      f"| {len(full)} | {len(full) / hours:.2f} | {fmt(m_full)} | {w} |")
    print()
    return results


def ratio_distribution(by_mode):
    print("## 3. Gap in mean report intervals (gap x rate)\n")
    print("Only gaps with evidence (window count >= N_min). With T_min = 0 the rule fires exactly when "
          "gap x rate > k, so the max is what k must exceed; T_min then only matters where the rate is high.\n")
    print("| mode | dataset | N_min | gaps | p50 | p99 | p99.9 | max | max at (stream, gap s, window count) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for mode in ("full", "literal"):
        groups = defaultdict(list)
        for s, g, c in by_mode[mode]:
            for n_min in N_MINS:
                if c >= n_min:
                    row = (g * c / WINDOW, s, g, c)
                    groups[(s.dataset, n_min)].append(row)
                    groups[("all", n_min)].append(row)
        for (ds, n_min), rows in sorted(groups.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
            if mode == "literal" and ds != "all":
                continue  # per dataset only in the mode that matters; literal for comparison
            rs = [r for r, *_ in rows]
            top = max(rows, key=lambda x: x[0])
            print(f"| {mode} | {ds} | {n_min} | {len(rs)} | {fmt(percentile(rs, 50))} | {fmt(percentile(rs, 99))} "
                  f"| {fmt(percentile(rs, 99.9))} | {fmt(top[0])} | {top[1].source} {top[1].receiver}, "
                  f"{top[2]:.2f} s, {top[3]:.0f} |")
    print()


def longest_gaps(all_gaps, n=15):
    """All gaps, scored or not in full mode: T_min is what must cover a long silence at a high rate."""
    print("## Longest absolute gaps (every stream, every count)\n")
    print("| gap s | dataset | stream | window count | covered s | literal rate /s | full rate /s |")
    print("|---:|---|---|---:|---:|---:|---:|")
    for s, g, c, span in sorted(all_gaps, key=lambda x: -x[1])[:n]:
        print(f"| {g:.2f} | {s.dataset} | {s.source} {s.receiver} | {c} | {span} | {c / WINDOW:.3f} "
              f"| {c / span:.2f} |")
    print("\nThe UJI silences are runs of empty Android scans of a phone standing at one point (visits of 13 "
          "scans). Even at -4 dBm, 91 of 884 scans heard none of 22 beacons in a 15 m x 10 m room, 11 times "
          "three or more in a row: more likely the phone's scanning pausing than radio silence, so they are an "
          "upper bound for ordinary silence, not a sample of it. Elsewhere the longest silence is 2.7 s.\n")


def delays(k, t_min):
    return [max(t_min, k / r) for r in TYPICAL_RATES]


def recommend(results, all_gaps):
    """Clear = zero false stalls and margin >= MARGIN in both modes for every N_min of the grid (so that N_min
    can be chosen for reach, not safety). Recommended: the smallest k, then the smallest T_min, among them."""
    print("## 4. Recommendation\n")
    clear = [(k, t) for k in KS for t in T_MINS
             if all(r[0] == 0 and r[2] == 0 and min(r[1], r[3]) >= MARGIN
                    for r in (results[(k, t, n)] for n in N_MINS))]
    print(f"Clear (k, T_min) pairs: zero false stalls in both modes, every N_min, margin >= {MARGIN:g}; with "
          "the silence limit max(T_min, k / rate) at typical rates (detection takes up to 1 s more: the scan is "
          "looked at once a second).\n")
    print("| k | T_min s | worst margin | limit at " + " | ".join(f"{r:g}/s" for r in TYPICAL_RATES) + " |")
    print("|---:|---:|---:|" + "---:|" * len(TYPICAL_RATES))
    for k, t in clear:
        m = min(min(results[(k, t, n)][1], results[(k, t, n)][3]) for n in N_MINS)
        print(f"| {k} | {t} | {m:.2f} | " + " | ".join(f"{d:.1f} s" for d in delays(k, t)) + " |")
    print()
    if not clear:
        print("No (k, T_min) of the grid is clear.\n")
        return
    k, t_min = min(clear)
    print(f"**Recommended: k = {k}, T_min = {t_min} s** (the smallest clear k, then T_min). Limits: " +
          ", ".join(f"{d:.1f} s at {r:g}/s" for d, r in zip(delays(k, t_min), TYPICAL_RATES)) +
          ". The rule watches only when the window holds N_min reports (rate >= N_min / 60): at 0.2/s the "
          "window holds 12, so only N_min = 10 watches such a scanner; N_min = 20 needs >= 0.33/s, 50 needs "
          ">= 0.83/s.\n")
    worst = max(all_gaps, key=lambda x: x[1])
    other = max((x for x in all_gaps if x[0].dataset != "uji-ble-db"), key=lambda x: x[1])
    print(f"T_min against the longest silences: {worst[1]:.1f} s anywhere ({worst[0].dataset}, T_min / gap = "
          f"{t_min / worst[1]:.2f}; scored in neither mode's margin at a high rate because its visit had under "
          f"{MIN_SPAN} s of history), {other[1]:.1f} s outside UJI ({other[0].dataset}, {t_min / other[1]:.1f}x). "
          "Had the UJI empty-scan runs been ordinary silence seen at a high rate, T_min would need "
          f">= {2 * worst[1]:.0f} s for the same 2x margin.\n")


NOTES = {
    "boun-tetam-tracks": "per packet, ms (Raspberry Pi / USB dongle logs); one moving beacon",
    "wut-flat-robot": "QUANTISED: resampled to the robot-pose grid (0.333 s), one averaged value per anchor per "
                      "pose; a report = the anchor had the tag in that pose interval",
    "uji-ble-db": "QUANTISED: one value per beacon per ~1 s Android scan (time of that beacon in the scan, ns "
                  "counter); a report = a beacon seen in a scan, not an advertising report",
    "btsnoop": "per HCI LE Advertising Report, us (Android snoop log), split at scan enable/disable",
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.normpath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/work/shared/data")
    ap.add_argument("--bluedot", default=os.path.join(repo, ".build", "debug", "bluedot"))
    args = ap.parse_args()

    streams = (tag_mode_streams(args.data, "boun-tetam-tracks")
               + tag_mode_streams(args.data, "wut-flat-robot", WUT_RUN_BREAK)
               + uji_streams(args.data)
               + btsnoop_streams(unique_captures(args.data, repo), args.bluedot))
    all_gaps = [(s, g, c, span) for s in streams for g, c, span in gaps(s)]
    by_mode = {mode: scored(all_gaps, mode) for mode in ("literal", "full")}

    print("# Scan stall rule: false stalls on real recordings\n")
    print("Generated by `Tools/analysis/stall_gaps.py` (see its docstring). Rule: stalled when "
          "t - t_last > max(T_min, k / rate), rate = reports in the 60 whole seconds up to t_last / 60, "
          "only with >= N_min reports in that window. Every silence below happened while the scanner was fine "
          "(as far as the recording shows), so every one the rule would call a stall is a false stall. A silence "
          "is scored as firing when its length exceeds the limit (the once-a-second check could miss one that "
          "exceeds it by < 1 s: this over-counts, the safe side). The trailing silence of each stream (recording "
          "ended) is not scored.\n")
    streams_table(streams, NOTES)
    results = false_stall_table(streams, by_mode)
    ratio_distribution(by_mode)
    longest_gaps(all_gaps)
    recommend(results, all_gaps)


if __name__ == "__main__":
    main()
