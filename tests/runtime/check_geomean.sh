#!/bin/sh
# check_geomean.sh CMD...: runs `cutec-tune bench ... --json` (CMD) and checks
# that its geomean_ratio and geomean_ratio_vs_algo0 are the geometric means
# of the shapes' ratio and ratio_vs_algo0 fields (awk recomputes them).
out=$("$@") || { echo "check_geomean: command failed: $*"; exit 1; }
printf '%s\n' "$out"
printf '%s\n' "$out" | awk '
  function field(line, key,   r) {
    if (match(line, "\"" key "\": [0-9.]+")) {
      r = substr(line, RSTART, RLENGTH); sub(/.*: /, "", r); return r + 0
    }
    return -1
  }
  /"shape":/ { r = field($0, "ratio"); r0 = field($0, "ratio_vs_algo0")
               if (r > 0) { s += log(r); n++ } if (r0 > 0) { s0 += log(r0); n0++ } }
  /"geomean_ratio":/ { g = field($0, "geomean_ratio"); g0 = field($0, "geomean_ratio_vs_algo0") }
  END {
    if (n < 1 || n0 < 1 || g <= 0 || g0 <= 0) { print "check_geomean: FAIL: no ratios or no geomean"; exit 1 }
    e = exp(s / n); e0 = exp(s0 / n0)
    if (e - g > 1e-3 || g - e > 1e-3 || e0 - g0 > 1e-3 || g0 - e0 > 1e-3) {
      printf "check_geomean: FAIL: geomeans %.4f %.4f, recomputed %.4f %.4f\n", g, g0, e, e0; exit 1
    }
    printf "check_geomean: PASS: %d shapes, geomean %.4f, vs #0 %.4f\n", n, g, g0
  }'
