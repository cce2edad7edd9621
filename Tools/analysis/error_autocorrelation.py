#!/usr/bin/env python3
"""How long does a moving target's error stay correlated? (The block length of `BlockBootstrap`.)

Reads the held-out scores `bluedot-calibrate accuracy --scores DIR` writes (one CSV per held-out run: fold, fix
position, truth, anchors, error, radius, truth time) and prints, per fold, the autocorrelation of the error and of
"covered" (error <= radius) at lags of 1 to 30 s of truth time: each point is paired with the first point of its
fold at least that lag later (within 0.5 s of it).

Analysis only: `.build/release/bluedot-calibrate accuracy --scores /tmp/scores`, then
`.venv/bin/python Tools/analysis/error_autocorrelation.py /tmp/scores/straight_01.scores.csv
/tmp/scores/calibration.scores.csv` (needs numpy).
"""
import sys

import numpy as np

LAGS = (1, 2, 5, 10, 15, 20, 30)


def correlation(a, b):
    if len(a) < 10 or np.std(a) == 0 or np.std(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def main(paths):
    for path in paths:
        d = np.genfromtxt(path, delimiter=",", names=True)
        if "t" not in d.dtype.names:
            sys.exit(f"{path}: no column t (written by a bluedot-calibrate older than the truth time column)")
        for fold in sorted(set(d["fold"].astype(int))):
            rows = d[d["fold"] == fold]
            rows = rows[np.argsort(rows["t"], kind="stable")]
            t, error = rows["t"], rows["error"]
            covered = (rows["error"] <= rows["radius"]).astype(float)
            cells = []
            for lag in LAGS:
                j = np.searchsorted(t, t + lag)
                ok = (j < len(t)) & (np.take(t, np.minimum(j, len(t) - 1)) - t - lag <= 0.5)
                i, j = np.nonzero(ok)[0], j[ok]
                e, c = correlation(error[i], error[j]), correlation(covered[i], covered[j])
                cells.append(f"{lag:>2} s {e:+.2f}/{c:+.2f}")
            name = path.rsplit("/", 1)[-1].removesuffix(".scores.csv")
            print(f"{name} fold {fold} ({len(t)} points)  error/covered: " + "  ".join(cells))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
