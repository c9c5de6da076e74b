#!/bin/sh
# run_case.sh: runs one data-driven front-end test case (POSIX sh).
#
#   run_case.sh [--ptxas] CUTEC CASEDIR NAME WORKROOT
#
# NAME.expected holds a header of directive lines beginning with "# ",
# then the exact expected stderr (pinned whole).  Directives:
#   # exit: N            expected exit status (required)
#   # args: WORDS        command-line words after `cutec` (default: NAME.cute -o -);
#                        word-split, no globbing; a literal word @WORK@ is the work dir
#   # stdout: FILE       stdout must equal FILE (in CASEDIR) byte for byte
#   # stdout-eq: TEXT    stdout must be exactly TEXT and a newline
#   # stdout-has: TEXT   stdout must contain TEXT (fixed string; repeatable)
#   # stdout-lacks: TEXT stdout must not contain TEXT (repeatable)
#   # stderr-max: BYTES  stderr must not exceed BYTES (for generated inputs)
#   # stdin: FILE        standard input is FILE (in CASEDIR); default /dev/null
#   # gen: KIND ARGS     generate NAME.cute in a scratch dir before running:
#                          bytes OCTAL-ESCAPES   (printf-style, e.g. \001\200)
#                          parens N              `let X = ` N '(' 1 N ')' `;`
#                          soup BYTES            BYTES of repeated statements in a kernel
#                          chain N               `let X = 1` N times ` + 1` `;` (no brackets)
#                          zeros BYTES           BYTES zero bytes (a sparse file: dd seek)
#                          awk PROGRAM           what the one-line awk PROGRAM prints
#                                                (e.g. BEGIN { for (...) printf ... })
#   # stdin: FILE         standard input from FILE (in CASEDIR, or absolute)
#   # scratch            run in a fresh scratch dir (copies of CASEDIR's files)
#   # produces: FILE     after the run, FILE must exist (non-empty) in the run dir
#   # ptxas: ARCH        (with --ptxas) assemble stdout with `ptxas -arch=ARCH`
#   # timeout: SECONDS   read by CMakeLists.txt (CTest TIMEOUT), ignored here
# Without a scratch dir the compiler runs in CASEDIR with a relative file
# name, so diagnostics print stable paths.  Exit status: 0 pass, 1 fail,
# 77 skipped (--ptxas when no ptxas exists).
set -u
set -f
ptxas_mode=0
if [ "${1:-}" = "--ptxas" ]; then ptxas_mode=1; shift; fi
[ $# -eq 4 ] || { echo "usage: run_case.sh [--ptxas] CUTEC CASEDIR NAME WORKROOT" >&2; exit 1; }
CUTEC=$1 CASEDIR=$2 NAME=$3 WORKROOT=$4
abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
CUTEC=$(abs "$CUTEC") CASEDIR=$(abs "$CASEDIR") WORKROOT=$(abs "$WORKROOT")
EXP="$CASEDIR/$NAME.expected"
[ -f "$EXP" ] || { echo "FAIL: missing $EXP" >&2; exit 1; }

show_diff() {
    if command -v diff > /dev/null 2>&1; then diff -u "$1" "$2" >&2
    else echo "--- expected:" >&2; cat "$1" >&2; echo "--- actual:" >&2; cat "$2" >&2; fi
}
fail() { echo "FAIL [$NAME]: $*" >&2; exit 1; }

# header and body of the .expected file
hdr() { awk 'h && /^# / { print; next } { exit } BEGIN { h = 1 }' "$EXP"; }
directive() { hdr | sed -n "s/^# $1: \{0,1\}//p"; }
has_flag() { hdr | grep -qx "# $1"; }

exit_want=$(directive exit | head -n 1)
[ -n "$exit_want" ] || fail "no '# exit:' line in $EXP"

WORK="$WORKROOT/$NAME"
[ $ptxas_mode -eq 1 ] && WORK="$WORK.ptxas"
rm -rf "$WORK"
mkdir -p "$WORK" || fail "cannot create $WORK"
awk 'h && /^# / { next } { h = 0; print } BEGIN { h = 1 }' "$EXP" > "$WORK/expected.stderr"

RUNDIR=$CASEDIR
gen=$(directive gen | head -n 1)
if [ -n "$gen" ] || has_flag scratch; then
    RUNDIR="$WORK/run"
    mkdir -p "$RUNDIR"
    # copy the case directory's sources (modules for imports)
    set +f
    for f in "$CASEDIR"/*; do
        case $f in *.expected|*.stdout) ;; *) cp -R "$f" "$RUNDIR"/ ;; esac
    done
    set -f
fi
if [ -n "$gen" ]; then
    kind=${gen%% *}
    arg=${gen#* }
    out="$RUNDIR/$NAME.cute"
    case $kind in
    bytes)  printf "$arg" > "$out" ;;
    parens) { printf 'let X = '
              printf "%${arg}s" '' | tr ' ' '('
              printf '1'
              printf "%${arg}s" '' | tr ' ' ')'
              printf ';\n'; } > "$out" ;;
    chain)  { printf 'let X = 1'
              yes ' + 1' | head -n "$arg" | tr -d '\n'
              printf ';\n'; } > "$out" ;;
    soup)   { printf 'kernel k() {\n'
              yes 'let a = (1 + 2) * b[3] - c; x += y; if z { }' | head -c "$arg"
              printf '}\n'; } > "$out" ;;
    zeros)  dd if=/dev/null of="$out" bs=1 seek="$arg" 2> /dev/null ;;
    awk)    awk "$arg" > "$out" ;;
    *) fail "unknown gen kind '$kind'" ;;
    esac
fi

args=$(directive args | head -n 1)
[ -n "$args" ] || args="$NAME.cute -o -"
# substitute @WORK@
set --
for w in $args; do
    [ "$w" = "@WORK@" ] && w=$WORK
    set -- "$@" "$w"
done

stdin=$(directive stdin | head -n 1)
case $stdin in
"") stdin=/dev/null ;;
/*) ;;
*) stdin=$CASEDIR/$stdin ;;
esac
(cd "$RUNDIR" && exec "$CUTEC" "$@") < "$stdin" > "$WORK/stdout" 2> "$WORK/stderr"
rc=$?
[ $rc -gt 128 ] && fail "cutec died of signal $((rc - 128)); stderr: $(head -c 2000 "$WORK/stderr")"

status=0
if [ "$rc" != "$exit_want" ]; then
    echo "FAIL [$NAME]: exit status $rc, expected $exit_want" >&2
    status=1
fi
if ! cmp -s "$WORK/stderr" "$WORK/expected.stderr"; then
    echo "FAIL [$NAME]: stderr differs (expected vs actual):" >&2
    show_diff "$WORK/expected.stderr" "$WORK/stderr"
    status=1
fi
max=$(directive stderr-max | head -n 1)
if [ -n "$max" ]; then
    n=$(wc -c < "$WORK/stderr")
    [ "$n" -le "$max" ] || { echo "FAIL [$NAME]: stderr is $n bytes (limit $max)" >&2; status=1; }
fi
so=$(directive stdout | head -n 1)
if [ -n "$so" ] && ! cmp -s "$WORK/stdout" "$CASEDIR/$so"; then
    echo "FAIL [$NAME]: stdout differs from $so:" >&2
    show_diff "$CASEDIR/$so" "$WORK/stdout"
    status=1
fi
if hdr | grep -q '^# stdout-eq:'; then
    directive stdout-eq | head -n 1 > "$WORK/stdout.eq"
    cmp -s "$WORK/stdout" "$WORK/stdout.eq" || {
        echo "FAIL [$NAME]: stdout differs:" >&2; show_diff "$WORK/stdout.eq" "$WORK/stdout"; status=1; }
fi
directive stdout-has > "$WORK/has"
while IFS= read -r s; do
    grep -qF -e "$s" "$WORK/stdout" || { echo "FAIL [$NAME]: stdout lacks '$s'" >&2; status=1; }
done < "$WORK/has"
directive stdout-lacks > "$WORK/lacks"
while IFS= read -r s; do
    if grep -qF -e "$s" "$WORK/stdout"; then echo "FAIL [$NAME]: stdout contains '$s'" >&2; status=1; fi
done < "$WORK/lacks"
directive produces > "$WORK/produces"
while IFS= read -r p; do
    [ -s "$RUNDIR/$p" ] || { echo "FAIL [$NAME]: '$p' was not written" >&2; status=1; }
done < "$WORK/produces"

if [ $ptxas_mode -eq 1 ] && [ $status -eq 0 ]; then
    arch=$(directive ptxas | head -n 1)
    [ -n "$arch" ] || fail "--ptxas given but no '# ptxas:' line"
    PTXAS=""
    if [ -x /usr/local/cuda/bin/ptxas ]; then PTXAS=/usr/local/cuda/bin/ptxas
    elif command -v ptxas > /dev/null 2>&1; then PTXAS=$(command -v ptxas)
    fi
    if [ -z "$PTXAS" ]; then
        echo "SKIP [$NAME]: ptxas not found (/usr/local/cuda/bin or PATH)"
        exit 77
    fi
    "$PTXAS" -arch="$arch" -o "$WORK/out.cubin" "$WORK/stdout" > "$WORK/ptxas.log" 2>&1 || {
        echo "FAIL [$NAME]: ptxas -arch=$arch rejected the PTX:" >&2
        cat "$WORK/ptxas.log" >&2
        status=1; }
fi
[ $status -eq 0 ] && echo "PASS [$NAME]"
exit $status
