#!/usr/bin/env python3
"""The module graph drawn from Package.swift itself (`swift package dump-package`), for the README.

Each module of ours (not the tests, tools or C shims) on one line, in layers: a module stands in the first layer
above every module it imports, so arrows only point down the page. `--check FILE` compares the drawing with the
one between the markers in FILE and fails when they differ (Tools/dev test runs it); `--write FILE` replaces it.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BEGIN = "<!-- module-graph: made by Tools/module-graph/draw.py from Package.swift; do not edit by hand -->"
END = "<!-- /module-graph -->"


def package():
    out = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def graph(manifest):
    """Our library and executable modules and the modules of ours each depends on; the C shims apart."""
    targets = {t["name"]: t for t in manifest["targets"]}
    shims = {n for n, t in targets.items() if t["type"] == "system" or t.get("path", "").startswith("Sources/C/")}
    ours = {n for n, t in targets.items() if t["type"] in ("regular", "executable") and n not in shims
            and not t.get("path", "").startswith("Tools/")}
    edges, c_libraries = {}, {}
    for name in ours:
        deps = []
        for dep in targets[name]["dependencies"]:
            kind, value = next(iter(dep.items()))
            deps.append(value[0])
        edges[name] = sorted(d for d in deps if d in ours)
        c_libraries[name] = sorted(d for d in deps if d in shims)
    return edges, c_libraries


def layers(edges):
    level = {}

    def depth(name):
        if name not in level:
            level[name] = 1 + max((depth(d) for d in edges[name]), default=-1)
        return level[name]

    for name in edges:
        depth(name)
    out = {}
    for name, k in level.items():
        out.setdefault(k, []).append(name)
    return [sorted(out[k]) for k in sorted(out, reverse=True)]


def drawing(manifest):
    edges, c_libraries = graph(manifest)
    rows = layers(edges)
    width = max(len(n) for n in edges)
    lines = ["```", "module" + " " * (width - 6) + "  imports (ours; C libraries in brackets)"]
    for k, row in enumerate(rows):
        lines.append(f"-- layer {len(rows) - 1 - k} " + "-" * 60)
        for name in row:
            deps = ", ".join(edges[name]) or "nothing of ours"
            c = f"  [{', '.join(c_libraries[name])}]" if c_libraries[name] else ""
            lines += wrap(f"{name.ljust(width)}  -> ", deps + c)
    lines.append("```")
    return "\n".join(lines)


def wrap(head, text, limit=118):
    """`head` then `text`, broken after commas so that no line is longer than `limit`."""
    out, line = [], head
    for word in text.split(" "):
        if len(line) + len(word) + 1 > limit and line.strip():
            out.append(line.rstrip())
            line = " " * len(head)
        line += word + " "
    out.append(line.rstrip())
    return out


def replace(text, block):
    start, end = text.index(BEGIN), text.index(END)
    return text[: start + len(BEGIN)] + "\n" + block + "\n" + text[end:]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", metavar="FILE")
    parser.add_argument("--write", metavar="FILE")
    args = parser.parse_args()
    block = drawing(package())
    if args.check:
        text = Path(args.check).read_text()
        if BEGIN not in text or END not in text:
            sys.exit(f"{args.check}: no module-graph markers")
        if replace(text, block) != text:
            sys.exit(f"{args.check}: the module graph differs from Package.swift's; run Tools/module-graph/draw.py "
                     f"--write {args.check}")
        print(f"{args.check}: the module graph matches Package.swift")
    elif args.write:
        path = Path(args.write)
        path.write_text(replace(path.read_text(), block))
    else:
        print(block)


if __name__ == "__main__":
    main()
