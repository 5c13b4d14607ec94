#!/usr/bin/env python3
"""Draws the two figures of the routing lab (scripts/routing-lab.sh) from
smpirun's network statistics, as SVG written by hand (no plotting library
needed):

  links.svg     the mean utilisation of every link between routers,
                links ranked from the busiest, one line per routing;
  slowdown.svg  the share of messages per slowdown bin (time taken over
                time alone on an idle network), one bar per routing.

Usage: routing-lab-plot.py OUTDIR ROUTING=STATS.csv...
"""
import csv
import sys

COLORS = {"minimal": "#d62728", "valiant": "#1f77b4", "ugal": "#2ca02c"}
W, H, L, R, T, B = 640, 360, 60, 130, 30, 50


def svg(path, title, xlabel, ylabel, body, legend):
    items = "".join(
        f'<rect x="{W - R + 15}" y="{T + 20 * i}" width="12" height="12" fill="{c}"/>'
        f'<text x="{W - R + 32}" y="{T + 20 * i + 11}" font-size="12">{n}</text>'
        for i, (n, c) in enumerate(legend)
    )
    with open(path, "w") as f:
        f.write(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
            f'font-family="sans-serif"><rect width="{W}" height="{H}" fill="white"/>'
            f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="14">{title}</text>'
            f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/>'
            f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>'
            f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle" font-size="12">{xlabel}</text>'
            f'<text x="14" y="{(T + H - B) / 2}" text-anchor="middle" font-size="12" '
            f'transform="rotate(-90 14 {(T + H - B) / 2})">{ylabel}</text>'
            f"{body}{items}</svg>\n"
        )


def y_axis(top, ticks=5, fmt="{:.0%}"):
    out = ""
    for i in range(ticks + 1):
        v = top * i / ticks
        y = H - B - (H - B - T) * i / ticks
        out += (f'<line x1="{L - 4}" y1="{y}" x2="{L}" y2="{y}" stroke="black"/>'
                f'<text x="{L - 6}" y="{y + 4}" text-anchor="end" font-size="10">{fmt.format(v)}</text>')
    return out


def main(outdir, pairs):
    runs = [(p.split("=", 1)[0], p.split("=", 1)[1]) for p in pairs]
    # Figure 1: links between routers, ranked by mean utilisation.
    loads = {}
    for name, path in runs:
        with open(path) as f:
            rows = [r for r in csv.DictReader(f) if not r["link"].startswith(("local_", "__"))]
        loads[name] = sorted((float(r["mean_utilisation"]) for r in rows), reverse=True)
    top = max(max(v) for v in loads.values()) or 1.0
    n = max(len(v) for v in loads.values())
    body = y_axis(top)
    for name, v in loads.items():
        pts = " ".join(
            f"{L + (W - R - L) * i / max(n - 1, 1):.1f},{H - B - (H - B - T) * u / top:.1f}"
            for i, u in enumerate(v)
        )
        body += f'<polyline points="{pts}" fill="none" stroke="{COLORS.get(name, "gray")}" stroke-width="2"/>'
    svg(f"{outdir}/links.svg", "Load of the links between routers",
        f"{n} links (green and blue), busiest first", "mean utilisation", body,
        [(k, COLORS.get(k, "gray")) for k in loads])
    # Figure 2: message slowdowns, all sizes together.
    bins, shares = [], {}
    for name, path in runs:
        counts = {}
        with open(path.replace(".csv", ".slowdown.csv")) as f:
            for r in csv.DictReader(f):
                key = (float(r["slowdown_from"]), r["slowdown_below"])
                counts[key] = counts.get(key, 0) + int(r["messages"])
        total = sum(counts.values())
        shares[name] = {k: c / total for k, c in counts.items()}
        bins = sorted(set(bins) | set(counts))
    body = y_axis(1.0)
    slot = (W - R - L) / max(len(bins), 1)
    bar = slot * 0.8 / len(runs)
    for b, key in enumerate(bins):
        x0 = L + slot * b + slot * 0.1
        label = f"{key[0]:g}-{key[1]}" if key[1] != "inf" else f">={key[0]:g}"
        body += (f'<text x="{x0 + slot * 0.4}" y="{H - B + 14}" text-anchor="middle" '
                 f'font-size="9">{label}</text>')
        for i, (name, _) in enumerate(runs):
            s = shares[name].get(key, 0.0)
            h = (H - B - T) * s
            body += (f'<rect x="{x0 + i * bar:.1f}" y="{H - B - h:.1f}" width="{bar:.1f}" '
                     f'height="{h:.1f}" fill="{COLORS.get(name, "gray")}"/>')
    svg(f"{outdir}/slowdown.svg", "Message slowdown (time taken / time alone)",
        "slowdown", "share of messages", body, [(k, COLORS.get(k, "gray")) for k, _ in runs])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
