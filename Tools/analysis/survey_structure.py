#!/usr/bin/env python3
"""What the visible surveys say about the error left after the log-distance model (docs/positioning.md).

Prints, from ../shared/data (or the folder given):
  - UJI, per transmit power: the residual sigma around per-beacon fits, how the per-(point, beacon) mean residuals
    of the two passes over the 34 points correlate, how the direction of a per-scan cosine term turns between the
    passes, and k-nearest-neighbour fingerprinting calibrated on the first pass and scored on the second;
  - BOUN, WUT and UJI -4 dBm: the Gaussian-process hyperparameters (length, prior sigma, bin noise) that maximize
    the marginal likelihood of the 1 m bin means of the residuals, against the engine's defaults (4 m, 2 dB, 4 dB).

Analysis only, not part of the tests. Needs numpy: `.venv/bin/pip install numpy`, then
`.venv/bin/python Tools/analysis/survey_structure.py [DATA_DIR]`.
"""
import collections
import itertools
import json
import math
import sys

import numpy as np

DATA = sys.argv[1] if len(sys.argv) > 1 else "../shared/data"
NEAR_FIELD = 1.0  # metres, as PathLossCalibrator.minimumDistanceMeters


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def anchors_of(venue_path):
    with open(venue_path) as f:
        venue = json.load(f)
    return {a["id"]: (a["x"], a["y"], a.get("z", 0.0)) for a in venue["anchors"]}


def residuals(rows, anchors):
    """Residuals around a least-squares log-distance line per anchor, at the surveyed positions."""
    out = np.zeros(len(rows))
    by_anchor = collections.defaultdict(list)
    for i, r in enumerate(rows):
        by_anchor[r["anchor"]].append(i)
    for anchor, index in by_anchor.items():
        ax, ay, az = anchors[anchor]
        loss = []
        for i in index:
            t = rows[i]["truth"]
            d = math.dist((t["x"], t["y"], t.get("z", 0.0)), (ax, ay, az))
            loss.append(10 * math.log10(max(d, NEAR_FIELD)))
        design = np.c_[np.ones(len(index)), -np.array(loss)]
        rssi = np.array([rows[i]["rssi"] for i in index], float)
        fit = np.linalg.lstsq(design, rssi, rcond=None)[0]
        out[index] = rssi - design @ fit
    return out


def uji(power):
    anchors = anchors_of(f"{DATA}/uji-ble-db/uji-geo.venue.json")
    rows = read_jsonl(f"{DATA}/uji-ble-db/geo-tx{power}.survey.jsonl")
    res = residuals(rows, anchors)
    scans = collections.defaultdict(list)
    for i, r in enumerate(rows):
        scans[r["target"]].append(i)
    point = {t: (rows[ix[0]]["truth"]["x"], rows[ix[0]]["truth"]["y"]) for t, ix in scans.items()}
    number = {t: int(t.split("-")[1]) for t in scans}
    cut = 0.5 * (min(number.values()) + max(number.values()))  # the first pass, then the walk back
    second = {t: number[t] >= cut for t in scans}

    # Per (point, beacon) mean residual in each pass.
    means = [collections.defaultdict(list), collections.defaultdict(list)]
    for t, ix in scans.items():
        for i in ix:
            means[second[t]][(point[t], rows[i]["anchor"])].append(res[i])
    keys = [k for k in means[0] if len(means[0][k]) >= 4 and len(means[1].get(k, [])) >= 4]
    m0 = np.array([np.mean(means[0][k]) for k in keys])
    m1 = np.array([np.mean(means[1][k]) for k in keys])

    # Direction of a cosine term per scan (regression on 1, cos, sin of the bearings), averaged per point and pass.
    angles = collections.defaultdict(list)
    for t, ix in scans.items():
        if len(ix) < 6:
            continue
        px, py = point[t]
        bearing = np.array([math.atan2(anchors[rows[i]["anchor"]][1] - py, anchors[rows[i]["anchor"]][0] - px)
                            for i in ix])
        design = np.c_[np.ones(len(ix)), np.cos(bearing), np.sin(bearing)]
        c = np.linalg.lstsq(design, res[ix], rcond=None)[0]
        angles[(point[t], second[t])].append(math.atan2(c[2], c[1]))
    turns = []
    for p in set(point.values()):
        a0, a1 = angles.get((p, False), []), angles.get((p, True), [])
        if len(a0) >= 5 and len(a1) >= 5:
            d = np.angle(np.mean(np.exp(1j * np.array(a1)))) - np.angle(np.mean(np.exp(1j * np.array(a0))))
            turns.append(abs(math.degrees(np.angle(np.exp(1j * d)))))
    consistency = np.mean([abs(np.mean(np.exp(1j * np.array(v)))) for v in angles.values() if len(v) >= 5])

    # k nearest neighbours in signal space: pass 1 as the radio map, pass 2 scored.
    ids = sorted(anchors)
    order = sorted(scans, key=lambda t: number[t])
    vectors = np.full((len(order), len(ids)), -105.0)
    for row, t in enumerate(order):
        for i in scans[t]:
            vectors[row, ids.index(rows[i]["anchor"])] = rows[i]["rssi"]
    places = np.array([point[t] for t in order])
    test = np.array([second[t] for t in order])
    distance = ((vectors[test][:, None, :] - vectors[~test][None, :, :]) ** 2).sum(-1)
    nearest = np.argsort(distance, axis=1)[:, :5]
    error = np.hypot(*(places[~test][nearest].mean(axis=1) - places[test]).T)

    print(f"UJI tx-{power}: residual sigma {res.std():.2f} dB; per (point, beacon) bias sd {m0.std():.2f} / "
          f"{m1.std():.2f} dB in the two passes, correlation {np.corrcoef(m0, m1)[0, 1]:+.2f} over {len(keys)} pairs")
    print(f"  cosine-term direction: consistency within a point and pass {consistency:.2f} (mean resultant "
          f"length); turn between passes median {np.median(turns):.0f} deg, {np.mean(np.array(turns) > 90):.0%} "
          f"of {len(turns)} points over 90 deg")
    print(f"  5-NN fingerprinting, pass 1 -> pass 2 ({test.sum()} scans): median {np.median(error):.2f} m, "
          f"p90 {np.percentile(error, 90):.2f} m")


def log_marginal(bins, length, tau, bin_sigma, jitter=3.0):
    xy, mean, n = bins[:, :2], bins[:, 2], bins[:, 3]
    d2 = ((xy[:, None, :] - xy[None, :, :]) ** 2).sum(-1)
    k = tau ** 2 * np.exp(-d2 / (2 * length ** 2)) + np.diag(jitter ** 2 / n + bin_sigma ** 2)
    chol = np.linalg.cholesky(k)
    alpha = np.linalg.solve(chol, mean)
    return -0.5 * alpha @ alpha - np.log(np.diag(chol)).sum() - 0.5 * len(mean) * math.log(2 * math.pi)


def field_hyperparameters(name, venue, surveys):
    anchors = anchors_of(f"{DATA}/{venue}")
    rows = [r for s in surveys for r in read_jsonl(f"{DATA}/{s}")]
    res = residuals(rows, anchors)
    per_anchor = collections.defaultdict(lambda: collections.defaultdict(list))
    for r, e in zip(rows, res):
        t = r["truth"]
        per_anchor[r["anchor"]][(math.floor(t["x"]), math.floor(t["y"]))].append((t["x"], t["y"], e))
    layers = []
    for cells in per_anchor.values():
        values = np.array([e for cell in cells.values() for _, _, e in cell])
        centre = np.median(values)
        limit = 3 * max(1.4826 * np.median(np.abs(values - centre)), 1)
        layers.append(np.array([[np.mean([c[0] for c in cell]), np.mean([c[1] for c in cell]),
                                 np.mean(np.clip([c[2] for c in cell], centre - limit, centre + limit)), len(cell)]
                                for cell in cells.values()]))
    grid = itertools.product([1, 2, 4, 8], [1, 2, 3, 4, 6], [1, 2, 3, 4, 5, 6])
    scores = sorted(((sum(log_marginal(b, *h) for b in layers), h) for h in grid), reverse=True)
    default = sum(log_marginal(b, 4, 2, 4) for b in layers)
    best, (length, tau, bin_sigma) = scores[0]
    print(f"{name}: marginal likelihood is highest at length {length} m, tau {tau} dB, bin sigma {bin_sigma} dB "
          f"(log L {best:.0f}; the defaults 4 m, 2 dB, 4 dB: {default:.0f})")


if __name__ == "__main__":
    for power in ["04", "12", "20"]:
        uji(power)
    boun = [f"boun-tetam-tracks/{t}.survey.jsonl"
            for t in ["straight_01", "straight_02", "straight_03", "rectangular_with_rotation"]]
    field_hyperparameters("BOUN", "boun-tetam-tracks/boun-tetam.venue.json", boun)
    field_hyperparameters("WUT", "wut-flat-robot/wut-flat.venue.json", ["wut-flat-robot/calibration.survey.jsonl"])
    field_hyperparameters("UJI tx-04", "uji-ble-db/uji-geo.venue.json", ["uji-ble-db/geo-tx04.survey.jsonl"])
