#!/usr/bin/env python3
"""How far an uncalibrated anchor's path-loss model is from the truth: the numbers behind the engine's prior.

For each survey group of the shared data (BOUN's four tracks together, WUT's survey, each UJI power level), fits
the log-distance model rssi = P(d_ref) - n * 10 log10(d / d_ref) by Huber IRLS, once for the site (every anchor
pooled) and once per anchor, with the same clamp as the engine (d >= 1 m). P is read at a reference distance
d_ref = 4 m (about the middle of the surveyed distances), where a fit's level and slope are least correlated.
It prints, for each group, the site fit's distance from the formats' uncalibrated default (-59 dBm at 1 m,
exponent 2), and the spread of the anchors' fits around their site's fit; then the pooled figures that
`UncalibratedPrior` in Sources/Positioning/Calibration holds (docs/positioning.md, "No survey").

Usage: .venv/bin/python Tools/analysis/calibration_prior.py [DATA_DIR]   (numpy)
"""
import json
import math
import os
import sys

import numpy as np

D_REF = 4.0
DEFAULT_P1 = -59.0
DEFAULT_N = 2.0
GROUPS = {
    "BOUN (4 tracks)": ("boun-tetam-tracks/boun-tetam.venue.json",
                        ["boun-tetam-tracks/%s.survey.jsonl" % t for t in
                         ("straight_01", "straight_02", "straight_03", "rectangular_with_rotation")]),
    "WUT flat": ("wut-flat-robot/wut-flat.venue.json", ["wut-flat-robot/calibration.survey.jsonl"]),
    "UJI tx04": ("uji-ble-db/uji-geo.venue.json", ["uji-ble-db/geo-tx04.survey.jsonl"]),
    "UJI tx12": ("uji-ble-db/uji-geo.venue.json", ["uji-ble-db/geo-tx12.survey.jsonl"]),
    "UJI tx20": ("uji-ble-db/uji-geo.venue.json", ["uji-ble-db/geo-tx20.survey.jsonl"]),
}


def huber_line(L, y, c=1.5):
    """Huber IRLS fit of y = a - n * L; returns (a, n, robust sigma, standard errors of a and n)."""
    w = np.ones_like(y)
    X = np.column_stack([np.ones_like(L), -L])
    theta = np.array([np.median(y), 2.0])
    sigma = 6.0
    for _ in range(50):
        W = w[:, None]
        theta_new = np.linalg.lstsq(X * np.sqrt(W), y * np.sqrt(w), rcond=None)[0]
        r = y - X @ theta_new
        sigma = max(1.4826 * np.median(np.abs(r)), 1.0)
        u = np.abs(r) / sigma
        w = np.where(u <= c, 1.0, c / np.maximum(u, 1e-12))
        if np.max(np.abs(theta_new - theta)) < 1e-7:
            theta = theta_new
            break
        theta = theta_new
    cov = sigma ** 2 * np.linalg.inv((X * w[:, None]).T @ X)
    return theta[0], theta[1], sigma, math.sqrt(cov[0, 0]), math.sqrt(cov[1, 1])


def load(data, venue_path, surveys):
    venue = json.load(open(os.path.join(data, venue_path)))
    anchors = {a["id"]: (a["x"], a["y"], a.get("z", 0.0)) for a in venue["anchors"]}
    rows = {}
    for s in surveys:
        for line in open(os.path.join(data, s)):
            o = json.loads(line)
            if "truth" not in o or o["anchor"] not in anchors:
                continue
            ax, ay, az = anchors[o["anchor"]]
            t = o["truth"]
            d = max(math.dist((ax, ay, az), (t["x"], t["y"], t.get("z", 0.0))), 1.0)
            rows.setdefault(o["anchor"], []).append((10 * math.log10(d / D_REF), o["rssi"]))
    return rows


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/data")
    default_at_ref = DEFAULT_P1 - DEFAULT_N * 10 * math.log10(D_REF)
    site_dp, site_dn, anchor_dp, anchor_dn, anchor_dp_default, anchor_dn_default = [], [], [], [], [], []
    anchor_sigma, group_sigma = [], []
    print("group              site P(4 m) n     site - default: dP(4 m) dn | anchors: sd dP  sd dn  (n anchors)")
    for name, (venue, surveys) in GROUPS.items():
        rows = load(data, venue, surveys)
        L = np.array([r[0] for v in rows.values() for r in v])
        y = np.array([r[1] for v in rows.values() for r in v])
        a, n, _, _, _ = huber_line(L, y)
        site_dp.append(a - default_at_ref)
        site_dn.append(n - DEFAULT_N)
        dps, dns, sigmas = [], [], []
        for anchor, v in sorted(rows.items()):
            la = np.array([r[0] for r in v])
            ya = np.array([r[1] for r in v])
            # Only anchors heard over a spread of distances say anything about their own slope.
            if len(v) < 50 or np.ptp(la) < 4:
                continue
            aa, na, sa, se_a, se_n = huber_line(la, ya)
            sigmas.append(sa)
            dps.append(aa - a)
            dns.append(na - n)
            anchor_dp_default.append(aa - default_at_ref)
            anchor_dn_default.append(na - DEFAULT_N)
        anchor_dp += dps
        anchor_dn += dns
        anchor_sigma += sigmas
        group_sigma.append(float(np.median(sigmas)))
        print("%-18s %7.1f  %4.2f   %+6.1f dB  %+5.2f         | %5.1f dB %5.2f  (%d) | residual sigma %.1f dB"
              % (name, a, n, a - default_at_ref, n - DEFAULT_N, np.std(dps, ddof=1), np.std(dns, ddof=1), len(dps),
                 group_sigma[-1]))
    rms = lambda v: math.sqrt(sum(x * x for x in v) / len(v))
    print()
    print("site level, rms over %d groups: dP(4 m) %.1f dB, dn %.2f" % (len(site_dp), rms(site_dp), rms(site_dn)))
    print("anchor level around its site, sd over %d anchors: dP(4 m) %.1f dB, dn %.2f, corr %.2f"
          % (len(anchor_dp), np.std(anchor_dp, ddof=1), np.std(anchor_dn, ddof=1),
             np.corrcoef(anchor_dp, anchor_dn)[0, 1]))
    print("anchor against the default, rms: dP(4 m) %.1f dB, dn %.2f"
          % (rms(anchor_dp_default), rms(anchor_dn_default)))
    print("an anchor's residual sigma around its own fit (robust): median over %d anchors %.1f dB; per group %s"
          % (len(anchor_sigma), np.median(anchor_sigma), ", ".join("%.1f" % g for g in group_sigma)))


if __name__ == "__main__":
    main()
