#!/usr/bin/env python3
"""Reads a Prometheus text exposition (a URL or a file) with prometheus_client's own parser and checks what a
scraper relies on. Prints the families as JSON ({"name": {"type": ..., "samples": n}}) on success; on failure,
prints each problem to stderr and exits 1.

    python Tools/metrics-check/check.py http://127.0.0.1:8080/metrics [--token T]

Checks: the text parses; every family has help text and a known type; no series (name and labels) appears twice;
counters' samples end in _total (or _created); a histogram's buckets rise with `le`, end at +Inf, and +Inf equals
_count; no value is NaN except where the family is a gauge.
"""
import json
import math
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def read(source, token):
    if source.startswith("http://") or source.startswith("https://"):
        request = urllib.request.Request(source)
        if token:
            request.add_header("Authorization", "Bearer " + token)
        with urllib.request.urlopen(request, timeout=10) as response:
            content_type = response.headers.get("Content-Type", "")
            if not content_type.startswith("text/plain"):
                raise SystemExit(f"{source}: Content-Type is {content_type!r}, not text/plain")
            return response.read().decode("utf-8")
    with open(source, encoding="utf-8") as f:
        return f.read()


def check(text):
    problems, families, seen = [], {}, set()
    try:
        parsed = list(text_string_to_metric_families(text))
    except Exception as error:  # the parser's own complaint, with the offending line
        return [f"prometheus_client cannot parse the exposition: {error}"], {}
    for family in parsed:
        if family.type not in ("counter", "gauge", "histogram", "summary", "info", "stateset", "unknown"):
            problems.append(f"{family.name}: unknown type {family.type}")
        if family.type == "unknown":
            problems.append(f"{family.name}: no TYPE line")
        if not family.documentation:
            problems.append(f"{family.name}: no HELP text")
        families[family.name] = {"type": family.type, "samples": len(family.samples)}
        buckets = {}
        counts = {}
        for sample in family.samples:
            key = (sample.name, tuple(sorted(sample.labels.items())))
            if key in seen:
                problems.append(f"{sample.name}{sample.labels}: appears twice")
            seen.add(key)
            if math.isnan(sample.value) and family.type != "gauge":
                problems.append(f"{sample.name}{sample.labels}: NaN")
            if family.type == "counter" and not sample.name.endswith(("_total", "_created")):
                problems.append(f"{sample.name}: a counter's sample does not end in _total")
            if family.type == "histogram":
                labels = tuple(sorted((k, v) for k, v in sample.labels.items() if k != "le"))
                if sample.name.endswith("_bucket"):
                    buckets.setdefault(labels, []).append((float(sample.labels["le"]), sample.value))
                elif sample.name.endswith("_count"):
                    counts[labels] = sample.value
        for labels, series in buckets.items():
            series.sort()
            if series[-1][0] != math.inf:
                problems.append(f"{family.name}{dict(labels)}: no +Inf bucket")
            if any(b[1] < a[1] for a, b in zip(series, series[1:])):
                problems.append(f"{family.name}{dict(labels)}: buckets do not rise")
            if labels in counts and series[-1][1] != counts[labels]:
                problems.append(f"{family.name}{dict(labels)}: +Inf bucket {series[-1][1]} != _count {counts[labels]}")
    if not families:
        problems.append("no metrics at all")
    return problems, families


def main():
    args = sys.argv[1:]
    token = None
    if "--token" in args:
        i = args.index("--token")
        token = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        raise SystemExit(__doc__)
    problems, families = check(read(args[0], token))
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        sys.exit(1)
    print(json.dumps(families, sort_keys=True))


if __name__ == "__main__":
    main()
