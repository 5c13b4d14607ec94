#!/usr/bin/env python3
"""Draws the figure of the exascale labs (scripts/exascale-labs.sh) from
their CSV, as SVG written by hand (no plotting library needed): two
panels, the simulated time of the 2-D transposition (rows then columns)
and of one halo exchange + allreduce step, against the number of ranks
(log scale), one line per routing. A transposition stopped at the wall-time
limit is drawn as a hollow marker at the simulated time it had reached (a
lower bound of its time).

Usage: exascale-labs-plot.py RESULTS.csv OUT.svg
"""
import csv
import math
import sys

COLORS = {"minimal": "#d62728", "valiant": "#1f77b4", "ugal": "#2ca02c"}
PW, H, L, R, T, B, GAP = 330, 360, 60, 20, 40, 50, 40
W = 2 * PW + GAP + 110


def nice(v):
    """A round value at or above v, for the top of an axis."""
    if v <= 0:
        return 1.0
    p = 10 ** math.floor(math.log10(v))
    return next(m * p for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if m * p >= v)


def panel(x0, title, series, ylabel, bounds=None):
    """One panel at x0: series maps routing -> [(ranks, ms)], bounds the
    same for runs that were stopped (lower bounds, hollow markers)."""
    bounds = bounds or {}
    every = list(series.values()) + list(bounds.values())
    xs = sorted({p for v in every for p, _ in v})
    top = nice(max(t for v in every for _, t in v))
    lx = [math.log2(x) for x in xs]
    span = (max(lx) - min(lx)) or 1.0

    def px(x):
        return x0 + L + (PW - L - R) * (math.log2(x) - min(lx)) / span

    def py(t):
        return H - B - (H - B - T) * t / top

    out = (f'<text x="{x0 + (PW + L - R) / 2}" y="{T - 14}" text-anchor="middle" '
           f'font-size="13">{title}</text>'
           f'<line x1="{x0 + L}" y1="{H - B}" x2="{x0 + PW - R}" y2="{H - B}" stroke="black"/>'
           f'<line x1="{x0 + L}" y1="{T}" x2="{x0 + L}" y2="{H - B}" stroke="black"/>'
           f'<text x="{x0 + (PW + L - R) / 2}" y="{H - 12}" text-anchor="middle" '
           f'font-size="12">ranks</text>'
           f'<text x="{x0 + 14}" y="{(T + H - B) / 2}" text-anchor="middle" font-size="12" '
           f'transform="rotate(-90 {x0 + 14} {(T + H - B) / 2})">{ylabel}</text>')
    for i in range(6):
        v = top * i / 5
        y = py(v)
        out += (f'<line x1="{x0 + L - 4}" y1="{y}" x2="{x0 + L}" y2="{y}" stroke="black"/>'
                f'<text x="{x0 + L - 6}" y="{y + 4}" text-anchor="end" font-size="10">'
                f'{v:.3g}</text>')
    for x in xs:
        out += (f'<line x1="{px(x)}" y1="{H - B}" x2="{px(x)}" y2="{H - B + 4}" stroke="black"/>'
                f'<text x="{px(x)}" y="{H - B + 16}" text-anchor="middle" font-size="10">'
                f'{x:,}</text>')
    for name, pts in series.items():
        pts = sorted(pts)
        color = COLORS.get(name, "gray")
        line = " ".join(f"{px(x):.1f},{py(t):.1f}" for x, t in pts)
        out += f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"/>'
        out += "".join(f'<circle cx="{px(x):.1f}" cy="{py(t):.1f}" r="3" fill="{color}"/>'
                       for x, t in pts)
    for name, pts in bounds.items():
        color = COLORS.get(name, "gray")
        out += "".join(f'<circle cx="{px(x):.1f}" cy="{py(t):.1f}" r="4" fill="white" '
                       f'stroke="{color}" stroke-width="2"/>' for x, t in pts)
    return out


def main(path, out):
    transpose, halo, stopped = {}, {}, {}
    with open(path) as f:
        for r in csv.DictReader(f):
            ranks, routing = int(r["ranks"]), r["routing"]
            if r["status"].startswith("stopped at simulated "):
                if r["lab"] == "transpose_2d":
                    reached = float(r["status"].split()[3])
                    stopped.setdefault(routing, []).append((ranks, 1e3 * reached))
            elif r["status"] != "ok":
                continue
            elif r["lab"] == "transpose_2d":
                transpose.setdefault(routing, []).append((ranks, 1e3 * float(r["time2_s"])))
            elif r["lab"] == "halo_allreduce":
                total = float(r["time1_s"]) + float(r["time2_s"])
                halo.setdefault(routing, []).append((ranks, 1e3 * total))
    body = ""
    if transpose or stopped:
        body += panel(0, "2-D transposition (rows, then columns)", transpose, "simulated ms",
                      stopped)
    if halo:
        body += panel(PW + GAP, "Halo exchange + allreduce, per step", halo, "simulated ms")
    names = list(dict.fromkeys(list(transpose) + list(stopped) + list(halo)))
    body += "".join(
        f'<rect x="{2 * PW + GAP + 10}" y="{T + 20 * i}" width="12" height="12" '
        f'fill="{COLORS.get(n, "gray")}"/>'
        f'<text x="{2 * PW + GAP + 27}" y="{T + 20 * i + 11}" font-size="12">{n}</text>'
        for i, n in enumerate(names))
    if stopped:
        y = T + 20 * len(names) + 10
        body += (f'<circle cx="{2 * PW + GAP + 16}" cy="{y + 6}" r="4" fill="white" stroke="gray" '
                 f'stroke-width="2"/><text x="{2 * PW + GAP + 27}" y="{y + 10}" font-size="10">'
                 f'stopped: time</text><text x="{2 * PW + GAP + 27}" y="{y + 22}" '
                 f'font-size="10">reached</text>')
    with open(out, "w") as f:
        f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
                f'font-family="sans-serif"><rect width="{W}" height="{H}" fill="white"/>'
                f"{body}</svg>\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
