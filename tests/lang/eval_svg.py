#!/usr/bin/env python3
"""eval_svg.py: `cutec eval --svg` of a tiled MMA and a tiled copy is
well-formed SVG whose cells say what PTX and the copy's definition say.

    eval_svg.py CUTEC

The expected owners are computed here from their own definitions, not
from cutec: the m16n8k16 fragments of PTX's ISA (lane 4g + c holds C
(g, 2c), (g, 2c+1), (g+8, 2c), (g+8, 2c+1); warp w sits at (w % WM,
w / WM)), and make_layout_tv's thread-value split of a tiled copy.
Each SVG must parse (xml.etree), have one rect per cell (plus the
background) and the label T<thread> V<value> in every owned cell."""
import subprocess
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
CELL = 30


def svg(cutec, expr):
    r = subprocess.run([cutec, "eval", "--svg", "-", expr], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: cutec eval --svg '{expr}' exited {r.returncode}: {r.stderr}")
    return ET.fromstring(r.stdout)


# CuTe's print_svg colours, by thread % 8
COLORS = ["175,175,255", "175,255,175", "255,255,175", "255,175,175",
          "210,210,255", "210,255,210", "255,255,210", "255,210,210"]


def cells(root):
    """{(x, y): [fill, texts...]} for every cell rect (the background excluded)"""
    rects = [r for r in root.iter(NS + "rect") if r.get("fill") != "white"]
    out = {(int(r.get("x")), int(r.get("y"))): [r.get("fill")] for r in rects}
    if len(out) != len(rects):
        sys.exit("FAIL: two rects at one position")
    for t in root.iter(NS + "text"):
        x, y = int(t.get("x")), int(t.get("y"))
        key = (x - x % CELL, y - y % CELL)
        if key in out:
            out[key].append(t.text)
    return out


def check_panel(cs, x0, y0, rows, cols, owner, what):
    for r in range(rows):
        for c in range(cols):
            key = ((x0 + c) * CELL, (y0 + r) * CELL)
            if key not in cs:
                sys.exit(f"FAIL: {what}: no cell at row {r}, column {c}")
            t, v = owner(r, c)
            want = [f"rgb({COLORS[t % 8]})", f"T{t}", f"V{v}"]
            if cs[key] != want:
                sys.exit(f"FAIL: {what}: cell ({r},{c}) is {cs[key]}, expected {want}")


def mma(cutec):
    WM, WN = 2, 2
    M, N, K = 16 * WM, 8 * WN, 16
    root = svg(cutec, f"make_tiled_mma(mma_atom(16, 8, 16, bf16), ({WM}, {WN}))")
    cs = cells(root)
    if len(cs) != M * N + M * K + K * N:
        sys.exit(f"FAIL: tiled MMA: {len(cs)} cells, expected {M * N + M * K + K * N}")

    def warp_of(wm, wn):
        return wm + WM * wn

    def c_owner(m, n):  # C fragment: c0..c3
        wm, wn, m, n = m // 16, n // 8, m % 16, n % 8
        g, c = m % 8, n // 2
        return 32 * warp_of(wm, wn) + 4 * g + c, n % 2 + 2 * (m // 8)

    def a_owner(m, k):  # A fragment: a0..a7; warps along N share A (the first owns)
        wm, m = m // 16, m % 16
        g, c = m % 8, (k % 8) // 2
        return 32 * warp_of(wm, 0) + 4 * g + c, k % 2 + 2 * (m // 8) + 4 * (k // 8)

    def b_owner(k, n):  # B fragment: b0..b3, drawn K x N
        wn, n = n // 8, n % 8
        return 32 * warp_of(0, wn) + 4 * n + (k % 8) // 2, k % 2 + 2 * (k // 8)

    check_panel(cs, K + 2, K + 2, M, N, c_owner, "C")
    check_panel(cs, 1, K + 2, M, K, a_owner, "A")
    check_panel(cs, K + 2, 1, K, N, b_owner, "B")


def tiled_copy(cutec):
    # threads (2,4):(4,1): thread coordinate (i, j) is thread 4i + j; each
    # holds a 2 x 2 block; the tile is 4 x 8 and thread (i, j)'s block sits
    # at rows 2i.., columns 2j.. (make_layout_tv: raked, value colex)
    root = svg(cutec, "make_tiled_copy(copy_atom_universal(f32, 2), (2,4):(4,1), (2,2))")
    cs = cells(root)
    if len(cs) != 2 * 4 * 8:
        sys.exit(f"FAIL: tiled copy: {len(cs)} cells, expected 64")

    def owner(r, c):
        return 4 * (r // 2) + c // 2, r % 2 + 2 * (c % 2)

    check_panel(cs, 1, 1, 4, 8, owner, "S")
    check_panel(cs, 8 + 3, 1, 4, 8, owner, "D")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: eval_svg.py CUTEC")
    mma(sys.argv[1])
    tiled_copy(sys.argv[1])
    print("PASS eval_svg")


main()
