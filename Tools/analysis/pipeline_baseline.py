#!/usr/bin/env python3
"""The standard numpy/scipy pipeline the accuracy issues compare BlueDot with, in-sample and held out.

The pipeline (as the positioning issue describes it): a log-distance model fitted per anchor by least squares on
the survey; 1 s windows of mean RSSI per anchor; a fix per window by robust (soft-L1) weighted least squares inside
the venue's bounds from three or more anchors, with its covariance from the Jacobian; a constant-velocity Kalman
filter over the fixes (moving sets); one fix per scan without a filter (static sets). Its 68% radius is the Rayleigh
radius of the filter's (or the fix's) position covariance, 1.5096 sigma for a circle.

Protocols:
  in-sample   each set calibrated on the surveys sets.json lists (what the issue's figures used);
  held-out    leave one fold out with BlueDot's folds (`HeldOutCalibration`): BOUN tracks calibrated on the
              other three tracks' surveys, WUT runs on the other runs (split at gaps of over 10 minutes), UJI
              scans on the other 33 surveyed points.
Every set's fixes are written as location JSONL and scored by `bluedot evaluate` (the same scorer as BlueDot's).

Analysis only, not part of the tests. Needs numpy and scipy: `.venv/bin/pip install numpy scipy`, then
`.venv/bin/python Tools/analysis/pipeline_baseline.py [--data DIR] [--bluedot PATH] [--protocol held-out]`.
"""
import argparse
import collections
import json
import math
import os
import subprocess
import tempfile

import numpy as np
from scipy.optimize import least_squares

RAYLEIGH_68 = math.sqrt(-2 * math.log(1 - 0.68))  # 1.5096: the 68% radius of a circular Gaussian, in sigmas
RUN_GAP = 600.0


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def fit_models(samples, anchors):
    """Per-anchor least-squares fit of rssi = p0 - 10 n log10(d) (d >= 1 m), with the fit's residual sigma;
    anchors with fewer than 10 samples get the pooled fit."""
    by_anchor = collections.defaultdict(list)
    for s in samples:
        a = anchors.get(s["anchor"])
        if a is None:
            continue
        t = s["truth"]
        d = math.dist((t["x"], t["y"], t.get("z", 0.0)), (a["x"], a["y"], a.get("z", 0.0)))
        by_anchor[s["anchor"]].append((math.log10(max(d, 1.0)), s["rssi"]))

    def fit(points):
        x = np.array([p[0] for p in points])
        y = np.array([p[1] for p in points])
        slope, p0 = np.polyfit(x, y, 1)
        sigma = float(np.std(y - (p0 + slope * x))) or 1.0
        return float(p0), float(-slope / 10), sigma

    pooled = fit([p for points in by_anchor.values() for p in points])
    models = {a: fit(points) if len(points) >= 10 else pooled for a, points in by_anchor.items()}
    heights = [s["truth"].get("z", 0.0) for s in samples]
    return models, pooled, float(np.median(heights)) if heights else 0.0


def locate(means, anchors, models, pooled, height, bounds, start):
    """Robust weighted least squares in the bounds: position and its 2 x 2 covariance, or None (< 3 anchors)."""
    ids = [a for a in means if a in anchors]
    if len(ids) < 3:
        return None
    ax = np.array([[anchors[a]["x"], anchors[a]["y"], anchors[a].get("z", 0.0)] for a in ids])
    p0 = np.array([models.get(a, pooled)[0] for a in ids])
    n = np.array([models.get(a, pooled)[1] for a in ids])
    sigma = np.array([models.get(a, pooled)[2] for a in ids]) / np.sqrt([means[a][1] for a in ids])
    rssi = np.array([means[a][0] for a in ids])

    def residuals(p):
        d = np.sqrt((ax[:, 0] - p[0]) ** 2 + (ax[:, 1] - p[1]) ** 2 + (ax[:, 2] - height) ** 2)
        return (rssi - (p0 - 10 * n * np.log10(np.maximum(d, 1.0)))) / sigma

    (lo_x, lo_y), (hi_x, hi_y) = bounds
    x0 = np.clip(start, [lo_x + 1e-6, lo_y + 1e-6], [hi_x - 1e-6, hi_y - 1e-6])
    r = least_squares(residuals, x0, loss="soft_l1", bounds=([lo_x, lo_y], [hi_x, hi_y]))
    J = r.jac
    try:
        cov = np.linalg.inv(J.T @ J)
    except np.linalg.LinAlgError:
        return None
    return r.x, cov


def windows(observations, width=1.0):
    """Per target, consecutive windows of `width` s from its first observation: (end time, {anchor: (mean, n)})."""
    by_target = collections.defaultdict(list)
    for o in observations:
        by_target[o["target"]].append(o)
    for target, obs in by_target.items():
        obs.sort(key=lambda o: o["t"])
        start = obs[0]["t"]
        bucket = collections.defaultdict(list)
        k = 0
        for o in obs:
            while o["t"] >= start + (k + 1) * width:
                if bucket:
                    yield target, start + (k + 1) * width, {a: (float(np.mean(v)), len(v)) for a, v in bucket.items()}
                bucket = collections.defaultdict(list)
                k += 1
            bucket[o["anchor"]].append(o["rssi"])
        if bucket:
            yield target, start + (k + 1) * width, {a: (float(np.mean(v)), len(v)) for a, v in bucket.items()}


def centroid(means, anchors):
    ids = [a for a in means if a in anchors]
    w = np.array([10 ** (means[a][0] / 20) for a in ids])
    xy = np.array([[anchors[a]["x"], anchors[a]["y"]] for a in ids])
    return (w[:, None] * xy).sum(0) / w.sum()


def run_moving(observations, anchors, models, pooled, height, bounds, q=0.5):
    """1 s windows -> fixes -> constant-velocity Kalman; one output line per window with a fix."""
    out = []
    state = {}
    for target, t, means in windows(observations):
        if not any(a in anchors for a in means):
            continue
        fix = locate(means, anchors, models, pooled, height, bounds, centroid(means, anchors))
        if fix is None:
            continue
        z, R = fix
        if target not in state:
            x = np.array([z[0], z[1], 0.0, 0.0])
            P = np.diag([R[0, 0], R[1, 1], 1.0, 1.0])
            state[target] = (x, P, t)
        else:
            x, P, t0 = state[target]
            dt = t - t0
            F = np.eye(4)
            F[0, 2] = F[1, 3] = dt
            Q = q * np.array([[dt ** 3 / 3, 0, dt ** 2 / 2, 0], [0, dt ** 3 / 3, 0, dt ** 2 / 2],
                              [dt ** 2 / 2, 0, dt, 0], [0, dt ** 2 / 2, 0, dt]])
            x = F @ x
            P = F @ P @ F.T + Q
            H = np.zeros((2, 4))
            H[0, 0] = H[1, 1] = 1
            S = H @ P @ H.T + R
            K = P @ H.T @ np.linalg.inv(S)
            x = x + K @ (z - H @ x)
            P = (np.eye(4) - K @ H) @ P
            state[target] = (x, P, t)
        x, P, _ = state[target]
        radius = RAYLEIGH_68 * math.sqrt(max((P[0, 0] + P[1, 1]) / 2, 1e-12))
        out.append({"t": t, "target": target, "x": float(x[0]), "y": float(x[1]), "horizontalAccuracy": radius})
    return out


def run_static(observations, anchors, models, pooled, height, bounds):
    """One fix per scan (target), at its last packet, from the scan's mean RSSI per beacon."""
    out = []
    by_target = collections.defaultdict(list)
    for o in observations:
        by_target[o["target"]].append(o)
    for target, obs in by_target.items():
        per = collections.defaultdict(list)
        for o in obs:
            per[o["anchor"]].append(o["rssi"])
        means = {a: (float(np.mean(v)), len(v)) for a, v in per.items()}
        if not any(a in anchors for a in means):
            continue
        fix = locate(means, anchors, models, pooled, height, bounds, centroid(means, anchors))
        if fix is None:
            continue
        z, R = fix
        radius = RAYLEIGH_68 * math.sqrt(max((R[0, 0] + R[1, 1]) / 2, 1e-12))
        out.append({"t": max(o["t"] for o in obs), "target": target, "x": float(z[0]), "y": float(z[1]),
                    "horizontalAccuracy": radius})
    return out


def folds(files, static):
    """BlueDot's folds (HeldOutCalibration): several files -> per file; one file -> runs, else (static) points."""
    if len(files) >= 2:
        return [(os.path.basename(path), lines) for path, lines in files]
    path, lines = files[0]
    if static:
        points = collections.OrderedDict()
        point_of = {}
        for s in lines:
            key = point_of.setdefault(s["target"], (round(s["truth"]["x"] * 100), round(s["truth"]["y"] * 100)))
            points.setdefault(key, []).append(s)
        return [(f"{k[0] / 100},{k[1] / 100}", v) for k, v in points.items()]
    lines = sorted(lines, key=lambda s: s["t"])
    runs = [[]]
    for s in lines:
        if runs[-1] and s["t"] - runs[-1][-1]["t"] > RUN_GAP:
            runs.append([])
        runs[-1].append(s)
    return [(f"run {i + 1}", r) for i, r in enumerate(runs)]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", ".."))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=os.path.join(root, "..", "shared", "data"))
    parser.add_argument("--bluedot", default=os.path.join(root, ".build", "release", "bluedot"))
    parser.add_argument("--protocol", choices=["in-sample", "held-out"], default="held-out")
    parser.add_argument("--out", default=None, help="folder for the location files (default: a temporary one)")
    args = parser.parse_args()
    out_dir = args.out or tempfile.mkdtemp(prefix="bluedot-pipeline-")
    scenario = json.load(open(os.path.join(args.data, "sets.json")))
    print(f"{'set':27s} {'median':>7s} {'p90':>7s} {'cov68':>6s} {'radius':>7s} {'missing':>10s}")
    for s in scenario["sets"]:
        if s.get("split", "visible") != "visible":
            continue
        venue = json.load(open(os.path.join(args.data, s["venue"])))
        anchors = {a["id"]: a for a in venue["anchors"]}
        bounds = venue["bounds"]
        static = s.get("static", False)
        files = [(p, read_jsonl(os.path.join(args.data, p))) for p in s["calibration"]]
        if args.protocol == "in-sample":
            plan = [([line for _, lines in files for line in lines], read_jsonl(os.path.join(args.data, s["observations"])))]
        else:
            fs = folds(files, static)
            own = [i for i, (name, _) in enumerate(fs) if len(files) >= 2 and name == s["name"] + ".survey.jsonl"]
            plan = [([line for j, (_, lines) in enumerate(fs) if j != i for line in lines], fs[i][1])
                    for i in (own or range(len(fs)))]
        fixes = []
        for training, replayed in plan:
            models, pooled, height = fit_models(training, anchors)
            run = run_static if static else run_moving
            fixes += run(replayed, anchors, models, pooled, height, bounds)
        fixes.sort(key=lambda f: f["t"])
        path = os.path.join(out_dir, f"{s['name']}.{args.protocol}.locations.jsonl")
        with open(path, "w") as f:
            for fix in fixes:
                f.write(json.dumps(fix) + "\n")
        command = [args.bluedot, "evaluate", path, "--truth", os.path.join(args.data, s["truth"]), "--json"]
        if static:
            command.append("--static")
        r = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        radius = float(np.mean([f["horizontalAccuracy"] for f in fixes])) if fixes else float("nan")
        print(f"{s['name']:27s} {r['median']:7.2f} {r['p90']:7.2f} {r['coverage68']:6.2f} {radius:7.2f} "
              f"{str(r['missing']) + '/' + str(r['total']):>10s}")
    print(f"location files: {out_dir}")


if __name__ == "__main__":
    main()
