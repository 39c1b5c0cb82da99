#!/usr/bin/env python3
"""Draws the arena's speed-up over one thread as an SVG line chart.

Reads the tables `scripts/scaling.sh` prints (rows `| entities | t1 | t2 | ... |` under a header
naming the thread counts) from the files given, and writes an SVG to stdout: one line per scene
size, the ideal speed-up, and, with --serial S, Amdahl's bound 1 / (S + (1 - S) / t) for a serial
fraction S measured by `arena --trace` on one thread.

    python3 scripts/scaling-chart.py scaling-1e5.txt scaling-1e6.txt --serial 0.241 > docs/scaling.svg
"""
import argparse
import re
import sys


def tables(paths):
    """Yields (entities, {threads: ms}) for every table row in the files."""
    for path in paths:
        threads = None
        for line in open(path, encoding="utf-8"):
            if line.startswith("| entities |"):
                threads = [int(t) for t in re.findall(r"(\d+) thr", line)]
            elif threads and re.match(r"\| \d+ \|", line):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                times = {t: float(ms) for t, ms in zip(threads, cells[1:]) if ms}
                yield int(cells[0]), times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--serial", type=float, help="serial fraction for Amdahl's bound")
    parser.add_argument("--title", default="arena speed-up over one thread")
    args = parser.parse_args()
    rows = list(tables(args.files))
    if not rows:
        sys.exit("scaling-chart: no scaling.sh table in the files given")
    max_t = max(t for _, times in rows for t in times)
    width, height, left, bottom, top, right = 720, 420, 60, 50, 40, 250
    plot_w, plot_h = width - left - right, height - top - bottom
    max_y = max_t

    def x(t):
        return left + plot_w * (t - 1) / (max_t - 1)

    def y(s):
        return top + plot_h * (1 - s / max_y)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="14">{args.title}</text>']
    ticks = sorted({t for _, times in rows for t in times})
    for t in ticks:
        out.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{top + plot_h}" stroke="#eee"/>')
        out.append(f'<text x="{x(t):.1f}" y="{top + plot_h + 18}" text-anchor="middle">{t}</text>')
    for s in range(0, int(max_y) + 1, 2):
        out.append(f'<line x1="{left}" y1="{y(s):.1f}" x2="{left + plot_w}" y2="{y(s):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{left - 8}" y="{y(s) + 4:.1f}" text-anchor="end">{s}x</text>')
    out.append(f'<text x="{left + plot_w / 2}" y="{height - 10}" text-anchor="middle">threads</text>')
    legend = []

    def line(points, colour, label, dash=""):
        path = " ".join(f"{x(t):.1f},{y(s):.1f}" for t, s in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2" {dash}/>')
        for t, s in points:
            out.append(f'<circle cx="{x(t):.1f}" cy="{y(s):.1f}" r="3" fill="{colour}"/>')
        legend.append((colour, label, dash))

    line([(t, t) for t in ticks], "#999", "ideal", 'stroke-dasharray="4 4"')
    if args.serial is not None:
        s = args.serial
        line([(t, 1 / (s + (1 - s) / t)) for t in ticks], "#c60", f"Amdahl, s = {s:.3f}", 'stroke-dasharray="2 3"')
    colours = ["#1f6fd1", "#d1381f", "#2a9d4a", "#8a3fd1"]
    for (entities, times), colour in zip(rows, colours):
        one = times[min(times)]
        label = f"{entities:,} entities ({one:.1f} ms on 1)"
        line([(t, one / ms) for t, ms in sorted(times.items())], colour, label)
    for i, (colour, label, dash) in enumerate(legend):
        ly = top + 10 + 20 * i
        out.append(f'<line x1="{left + plot_w + 12}" y1="{ly}" x2="{left + plot_w + 32}" y2="{ly}" '
                   f'stroke="{colour}" stroke-width="2" {dash}/>')
        out.append(f'<text x="{left + plot_w + 38}" y="{ly + 4}" font-size="11">{label}</text>')
    out.append("</svg>")
    print("\n".join(out))


if __name__ == "__main__":
    main()
