#!/bin/sh
# cli_io.sh: CLI tests that need more than run_case.sh's one command and
# pinned stderr: FIFOs, symlinks, devices, signals, files written beside
# the output, environment variables (POSIX sh).
#
#   cli_io.sh CUTEC TESTDIR WORKROOT CASE
#
# TESTDIR is tests/lang (inputs: cli_io/tune.cute, cases/cli/small.cute,
# cases/import/).  Exit status: 0 pass, 1 fail, 77 skipped.  No case needs
# root; as root, device nodes are made with mknod in the work directory,
# so that a regression that replaces the output cannot replace /dev/null.
set -u
[ $# -eq 4 ] || { echo "usage: cli_io.sh CUTEC TESTDIR WORKROOT CASE" >&2; exit 1; }
abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
CUTEC=$(abs "$1") TESTDIR=$(abs "$2") WORKROOT=$(abs "$3") CASE=$4
WORK="$WORKROOT/$CASE"
rm -rf "$WORK"
mkdir -p "$WORK" || exit 1
cd "$WORK" || exit 1
cp "$TESTDIR/cli_io/tune.cute" "$TESTDIR/cases/cli/small.cute" .

status=0
fail() { echo "FAIL [$CASE]: $*" >&2; status=1; }
is_pack() { [ "$(head -c 8 "$1" 2> /dev/null)" = CUTECPAK ]; }
# cutec pack of tune.cute (20 points, PTX only) to $1; stdout to out.txt, stderr to err.txt
pack() { "$CUTEC" pack tune.cute --no-cubin -j 2 -o "$@" > out.txt 2> err.txt; }
# a character device of the given numbers: our own node as root, the system's otherwise
device() { # NAME MAJOR MINOR SYSTEMPATH
    if [ "$(id -u)" = 0 ]; then
        mknod "$1" c "$2" "$3" 2> /dev/null && { echo "$PWD/$1"; return; }
        echo ""; return # root without mknod (a container): no safe device to test
    fi
    echo "$4"
}

case $CASE in
pack_fifo)
    # a FIFO is written through (the reader gets the pack) and stays a FIFO
    mkfifo out.pack || exit 77
    cat out.pack > got.pack &
    reader=$!
    pack out.pack || fail "cutec pack -o FIFO exited $?: $(cat err.txt)"
    # the reader ends at the writer's close; a replaced FIFO leaves it blocked
    [ -p out.pack ] || { fail "the FIFO was replaced by a regular file"; kill $reader; }
    wait $reader
    is_pack got.pack || fail "the reader of the FIFO got no pack"
    ;;
pack_symlink)
    # a symlink to a regular file: the target is replaced, the link stays;
    # a symlink to a FIFO: written through
    echo old > target.pack
    ln -s target.pack link.pack
    pack link.pack || fail "cutec pack -o SYMLINK exited $?: $(cat err.txt)"
    [ -L link.pack ] || fail "the symlink was replaced"
    is_pack target.pack || fail "the symlink's target does not hold the pack"
    mkfifo fifo && ln -s fifo tofifo
    cat fifo > got.pack &
    reader=$!
    pack tofifo || fail "cutec pack -o SYMLINK-TO-FIFO exited $?: $(cat err.txt)"
    [ -L tofifo ] || { fail "the symlink to the FIFO was replaced"; kill $reader; }
    wait $reader
    is_pack got.pack || fail "the FIFO behind the symlink got no pack"
    ;;
pack_stdout)
    # -o - is standard output, not a file named '-'
    "$CUTEC" pack tune.cute --no-cubin -o - > got.pack 2> err.txt || fail "cutec pack -o - exited $?: $(cat err.txt)"
    [ -e ./- ] && fail "a file named '-' was created"
    is_pack got.pack || fail "standard output holds no pack"
    ;;
pack_devnull)
    # a device is written through, never replaced by a regular file
    dev=$(device null 1 3 /dev/null)
    [ -n "$dev" ] || { echo "SKIP [$CASE]: root without mknod"; exit 77; }
    pack "$dev" || fail "cutec pack -o $dev exited $?: $(cat err.txt)"
    [ -c "$dev" ] || fail "$dev is no longer a character device"
    ls "$(dirname "$dev")" | grep -q 'tmp\.' && fail "a temporary file was left beside $dev"
    ;;
pack_devfull)
    # a write error names the file and says why
    dev=$(device full 1 7 /dev/full)
    [ -n "$dev" ] || { echo "SKIP [$CASE]: root without mknod"; exit 77; }
    pack "$dev"
    rc=$?
    [ $rc -eq 1 ] || fail "exit status $rc, expected 1"
    grep -q "^cutec pack: error: cannot write '$dev': No space left on device$" err.txt ||
        fail "no 'cannot write ...: No space left on device' in: $(cat err.txt)"
    [ -c "$dev" ] || fail "$dev is no longer a character device"
    ;;
pack_sigint|pack_sigterm)
    # a signal while the workers run: the work directory (under $TMPDIR) is
    # removed, no worker survives, no pack or temporary file is left, and
    # cutec dies of the signal.  A shell starts background jobs with SIGINT
    # ignored (which cutec respects), so SIGINT's default action is restored
    # with env --default-signal.
    sig=TERM wrap=""
    if [ "$CASE" = pack_sigint ]; then
        sig=INT
        env --default-signal=INT true 2> /dev/null || { echo "SKIP [$CASE]: no env --default-signal"; exit 77; }
        wrap="env --default-signal=INT"
    fi
    mkdir tmp out
    marker="sigmark$$"
    cp "$TESTDIR/../../stdlib/sm90/gemm.cute" "out/$marker.cute" # 229 slow points
    TMPDIR="$WORK/tmp" $wrap "$CUTEC" pack "out/$marker.cute" --stdlib="$TESTDIR/../../stdlib" --no-cubin -j 2 \
        -o out/g.pack > out.txt 2> err.txt &
    pid=$!
    # wait for a compiled point in the work directory
    wdir=""
    i=0
    while [ $i -lt 600 ] && [ -z "$wdir" ]; do
        for d in "$WORK"/tmp/cutec-pack-*; do
            [ -d "$d" ] && ls "$d" | grep -q '\.ptx$' && wdir=$d
        done
        [ -n "$wdir" ] || sleep 0.1
        i=$((i + 1))
    done
    [ -n "$wdir" ] || fail "no work directory with a compiled point appeared under \$TMPDIR in 60 s"
    kill -$sig $pid
    wait $pid
    rc=$?
    want=143
    [ $sig = INT ] && want=130
    [ $rc -eq $want ] || fail "exit status $rc, expected $want (killed by SIG$sig)"
    sleep 1 # orphaned workers, if any, would still be running
    for p in /proc/[0-9]*; do
        c=$( (tr '\0' ' ' < "$p/cmdline") 2> /dev/null) # the process may be gone
        case $c in *"$marker"*)
            fail "a worker survived: ${p#/proc/}: $c"
            kill -KILL "${p#/proc/}" 2> /dev/null ;;
        esac
    done
    [ -z "$(ls tmp)" ] || fail "files left under \$TMPDIR: $(ls tmp)"
    [ "$(ls out)" = "$marker.cute" ] || fail "files left beside the output: $(ls out)"
    grep -q "interrupted (SIG$sig)" err.txt || fail "no 'interrupted' message in: $(cat err.txt)"
    ;;
pack_progress)
    # stderr is a file: a line per 10% and a summary line
    pack t.pack || fail "cutec pack exited $?: $(cat err.txt)"
    for p in 10 20 30 40 50 60 70 80 90 100; do
        grep -q "^cutec pack: $p% ([0-9]*/20 points)$" err.txt || fail "no $p% line in: $(cat err.txt)"
    done
    grep -q "^cutec pack: 20 points compiled in [0-9.]* s -> t.pack$" err.txt || fail "no summary line in: $(cat err.txt)"
    ;;
pack_json)
    # --json: one summary object on stdout
    pack t.pack --json || fail "cutec pack --json exited $?: $(cat err.txt)"
    grep -q '^{"input": "tune.cute", "output": "t.pack", "arch": "sm_90a", "points": 20, "failed": 0, "warned": 0, "seconds": [0-9.]*}$' \
        out.txt || fail "unexpected summary: $(cat out.txt)"
    [ "$(wc -l < out.txt)" -eq 1 ] || fail "stdout is not one line: $(cat out.txt)"
    ;;
compile_outputs)
    # cutec -o: a regular file is replaced by rename (a hard link to the old
    # one keeps the old text), a new one gets 0666 & ~umask, a FIFO and a
    # device are written through
    umask 022
    echo old > out.ptx
    ln out.ptx keep.ptx
    "$CUTEC" small.cute -o out.ptx 2> err.txt || fail "cutec -o FILE exited $?: $(cat err.txt)"
    grep -q '\.entry k' out.ptx || fail "out.ptx holds no PTX"
    [ "$(cat keep.ptx)" = old ] || fail "the old file was written in place, not replaced"
    "$CUTEC" small.cute -o new.ptx 2> err.txt || fail "cutec -o NEW exited $?: $(cat err.txt)"
    [ "$(ls -l new.ptx | cut -c1-10)" = "-rw-r--r--" ] || fail "new.ptx has mode $(ls -l new.ptx | cut -c1-10)"
    mkfifo fifo
    cat fifo > got.ptx &
    reader=$!
    "$CUTEC" small.cute -o fifo 2> err.txt || fail "cutec -o FIFO exited $?: $(cat err.txt)"
    [ -p fifo ] || { fail "the FIFO was replaced"; kill $reader; }
    wait $reader
    grep -q '\.entry k' got.ptx || fail "the FIFO's reader got no PTX"
    dev=$(device null 1 3 /dev/null)
    if [ -n "$dev" ]; then
        "$CUTEC" small.cute -o "$dev" 2> err.txt || fail "cutec -o $dev exited $?: $(cat err.txt)"
        [ -c "$dev" ] || fail "$dev is no longer a character device"
    fi
    ls | grep -q 'tmp\.' && fail "temporary files left: $(ls)"
    ;;
stdout_error)
    # a failed write to standard output says so, with the reason
    [ -w /dev/full ] || exit 77
    "$CUTEC" small.cute -o - > /dev/full 2> err.txt
    rc=$?
    [ $rc -eq 1 ] || fail "exit status $rc, expected 1"
    grep -q "^cutec: error: cannot write standard output: No space left on device$" err.txt ||
        fail "unexpected stderr: $(cat err.txt)"
    ;;
depfile)
    # -MD writes OUT.d beside the output; -MF names it; both list the input
    # and every imported module as the compiler found them
    cp -R "$TESTDIR/cases/import/lib" "$TESTDIR/cases/import/helpers.cute" "$TESTDIR/cases/import/import_ok.cute" .
    "$CUTEC" import_ok.cute -MD -o k.ptx 2> err.txt || fail "cutec -MD exited $?: $(cat err.txt)"
    printf 'k.ptx: \\\n  import_ok.cute \\\n  lib/util.cute \\\n  helpers.cute\n' > want.d
    cmp -s k.d want.d || fail "k.d differs: $(cat k.d)"
    "$CUTEC" - -MF deps.mk -o - < import_ok.cute > k2.ptx 2> err.txt || fail "cutec -MF exited $?: $(cat err.txt)"
    printf -- '-: \\\n  lib/util.cute \\\n  helpers.cute\n' > want2.d
    cmp -s deps.mk want2.d || fail "deps.mk differs: $(cat deps.mk)"
    ;;
stdlib_env)
    # CUTEC_STDLIB overrides the built-in standard library, --stdlib overrides both
    mkdir -p mystd/std other/std
    printf 'fn only_in_mystd(i) { return i < 4; }\n' > mystd/std/bounds.cute
    printf 'import std.bounds;\nkernel k(x: tensor<f32, gmem, (4):(1)>) threads(4) {\n  let i = threadIdx.x;\n  if only_in_mystd(i) { x(i) = 1.5e0; }\n}\n' > k.cute
    CUTEC_STDLIB="$WORK/mystd" "$CUTEC" k.cute -o k.ptx 2> err.txt || fail "CUTEC_STDLIB was not used: $(cat err.txt)"
    CUTEC_STDLIB="$WORK/mystd" "$CUTEC" k.cute --stdlib=other -o k.ptx 2> err.txt
    grep -q "cannot find module 'std.bounds'" err.txt || fail "--stdlib did not override CUTEC_STDLIB: $(cat err.txt)"
    ;;
*)
    echo "cli_io.sh: unknown case '$CASE'" >&2
    exit 1
    ;;
esac
[ $status -eq 0 ] && echo "PASS [$CASE]"
exit $status
