#!/usr/bin/env python3
"""Would a radius scale that varies with place make the held-out radius honest track by track?

Reads the held-out scores `bluedot-calibrate accuracy --scores DIR` writes (one CSV per held-out run: fold, fix
position, truth, anchors, error, radius) and, for each fold, scores its fixes with (a) the conformal scale of the
other folds' error/radius scores, as BlueDot does, and (b) a localized conformal scale: the weighted 68% quantile
of the other folds' scores, weighted by a Gaussian kernel of width h on the distance between fix positions, blended
with the unweighted distribution by a pseudo-mass w0 (Guan, "Localized conformal prediction", Biometrika 2023).
Prints each fold's coverage for each (h, w0).

Analysis only: `.build/release/bluedot-calibrate accuracy --scores /tmp/scores`, then
`.venv/bin/python Tools/analysis/local_radius.py /tmp/scores/straight_01.scores.csv` (needs numpy).
"""
import sys

import numpy as np


def conformal(scores, p=0.68):
    s = np.sort(scores)
    k = int(np.ceil((len(s) + 1) * p))
    return s[min(k, len(s)) - 1]


def main(path):
    d = np.genfromtxt(path, delimiter=",", names=True)
    fold = d["fold"].astype(int)
    score = d["error"] / d["radius"]
    folds = range(fold.max() + 1)
    print("global      " + " ".join(f"{np.mean(score[fold == i] <= conformal(score[fold != i])):.3f}" for i in folds))
    for h in [1.0, 2.0, 3.0, 5.0]:
        for w0 in [0.0, 0.3, 1.0]:
            coverage = []
            for i in folds:
                others = fold != i
                order = np.argsort(score[others])
                s, x, y = score[others][order], d["x"][others][order], d["y"][others][order]
                hits = []
                for j in np.where(fold == i)[0]:
                    w = np.exp(-((x - d["x"][j]) ** 2 + (y - d["y"][j]) ** 2) / (2 * h * h))
                    mass = w.sum()
                    cdf = (np.cumsum(w) + w0 * mass * np.arange(1, len(s) + 1) / len(s)) / (mass * (1 + w0) + 1e-12)
                    hits.append(score[j] <= s[min(np.searchsorted(cdf, 0.68), len(s) - 1)])
                coverage.append(np.mean(hits))
            print(f"h {h:.0f} w0 {w0:.1f}  " + " ".join(f"{c:.3f}" for c in coverage))


if __name__ == "__main__":
    main(sys.argv[1])
