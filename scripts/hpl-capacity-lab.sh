#!/usr/bin/env bash
# The capacity-planning lab: how much of HPL's performance does a 512-node
# two-level fat tree keep as its top level shrinks? HPL (unmodified, from
# Debian's hpcc source, run by scripts/hpcc.sh --models) on 16 x 32 ranks of
# fat-tree:2;16,32;1,T;1,1 with 1 Gflops nodes and 24 us links, for T top
# switches, the ranks placed in order (sequential) or at random, with a low
# and a normal link bandwidth.
#
#   scripts/hpl-capacity-lab.sh [-n N] [-nb NB] [--tops "1 2 4 8 16"]
#                               [--low BW] [--normal BW] [-o DIR]
#
# Writes DIR/hpl-capacity.csv (bandwidth,link,mapping,tops,gflops,seconds)
# and DIR/hpl-capacity.svg (Gflops against top switches, one line per
# mapping and bandwidth). Defaults: N=20000, NB=128, T in 1 2 4 8 16,
# 1Gbps and 10Gbps, DIR=hpl-capacity. Each point is one simulation, in
# which only the modelled kernels and functions take time (HPL's own code
# between them is not measured: smpi/simulate-computation:no), so that the
# figures do not depend on what else the machine runs.
set -euo pipefail

die() { echo "hpl-capacity-lab: error: $*" >&2; exit 2; }

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
N=20000 NB=128 TOPS="1 2 4 8 16" LOW=1Gbps NORMAL=10Gbps OUT=hpl-capacity
while [[ $# -gt 0 ]]; do
    case "$1" in
        -n) N="$2"; shift 2 ;;
        -nb) NB="$2"; shift 2 ;;
        --tops) TOPS="$2"; shift 2 ;;
        --low) LOW="$2"; shift 2 ;;
        --normal) NORMAL="$2"; shift 2 ;;
        -o) OUT="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
mkdir -p "$OUT"
CSV="$OUT/hpl-capacity.csv"
echo "bandwidth,link,mapping,tops,gflops,seconds" >"$CSV"

for band in low normal; do
    if [[ "$band" == low ]]; then BW="$LOW"; else BW="$NORMAL"; fi
    for mapping in sequential random; do
        if [[ "$mapping" == sequential ]]; then MAP=block; else MAP=random:42; fi
        for tops in $TOPS; do
            platform="fat-tree:2;16,32;1,$tops;1,1:bw=$BW:lat=24us:speed=1Gf"
            out="$(bash "$ROOT/scripts/hpcc.sh" -n "$N" -nb "$NB" -p 16 -q 32 --models -- \
                -platform "$platform" "--cfg=smpi/map:$MAP" --cfg=smpi/simulate-computation:no 2>&1)" \
                || die "the run for $platform ($mapping) failed:"$'\n'"$out"
            line="$(grep '^HPL: WR' <<<"$out")" || die "no HPL result for $platform:"$'\n'"$out"
            read -r _ _ _ _ _ _ seconds gflops <<<"$line"
            echo "$band,$BW,$mapping,$tops,$gflops,$seconds" >>"$CSV"
            echo "hpl-capacity-lab: $BW $mapping $tops top switches: $gflops Gflops ($seconds s)" >&2
        done
    done
done

# The plot: top switches on a log2 axis, Gflops up; solid lines sequential,
# dashed random; blue low bandwidth, red normal.
awk -F, -v title="HPL N=$N on a 512-node fat tree (2;16,32;1,T;1,1), 1 Gflops nodes" '
NR == 1 { next }
{
    key = $1 "," $3; n[key]++; x[key, n[key]] = $4; y[key, n[key]] = $5 + 0
    if ($5 + 0 > ymax) ymax = $5 + 0
    if ($4 + 0 > xmax) xmax = $4 + 0
    label[$1] = $2
}
END {
    W = 720; H = 440; L = 70; R = 200; T = 50; B = 60
    pw = W - L - R; ph = H - T - B
    lx = log(xmax) / log(2); if (lx < 1) lx = 1
    ymax = ymax * 1.1; if (ymax <= 0) ymax = 1
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H
    printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
    printf "<text x=\"%d\" y=\"25\" font-size=\"14\">%s</text>\n", L, title
    printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", L, T + ph, L + pw, T + ph
    printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", L, T, L, T + ph
    for (t = 1; t <= xmax; t *= 2) {
        px = L + pw * (log(t) / log(2)) / lx
        printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>\n", px, T + ph, px, T + ph + 5
        printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", px, T + ph + 20, t
    }
    printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">top switches</text>\n", L + pw / 2, H - 15
    for (i = 0; i <= 5; i++) {
        v = ymax * i / 5; py = T + ph - ph * i / 5
        printf "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, py, L + pw, py
        printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n", L - 6, py + 4, v
    }
    printf "<text x=\"18\" y=\"%d\" transform=\"rotate(-90 18 %d)\" text-anchor=\"middle\">Gflops</text>\n", T + ph / 2, T + ph / 2
    row = 0
    for (key in n) keys[++nk] = key
    for (i = 1; i <= nk; i++) for (j = i + 1; j <= nk; j++) if (keys[j] < keys[i]) { t = keys[i]; keys[i] = keys[j]; keys[j] = t }
    for (i = 1; i <= nk; i++) {
        key = keys[i]; split(key, part, ",")
        color = part[1] == "low" ? "#1f77b4" : "#d62728"
        dash = part[2] == "random" ? " stroke-dasharray=\"6 4\"" : ""
        pts = ""
        for (k = 1; k <= n[key]; k++) {
            px = L + pw * (log(x[key, k]) / log(2)) / lx; py = T + ph - ph * y[key, k] / ymax
            pts = pts sprintf("%.1f,%.1f ", px, py)
            printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", px, py, color
        }
        printf "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", pts, color, dash
        ly = T + 20 + 20 * row++
        printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", L + pw + 15, ly, L + pw + 45, ly, color, dash
        printf "<text x=\"%d\" y=\"%d\">%s, %s</text>\n", L + pw + 50, ly + 4, label[part[1]], part[2]
    }
    printf "</svg>\n"
}' "$CSV" >"$OUT/hpl-capacity.svg"
echo "hpl-capacity-lab: wrote $CSV and $OUT/hpl-capacity.svg" >&2
