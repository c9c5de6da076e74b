#!/bin/sh
# check_cli.sh EXIT OUT_RE ERR_RE CMD...: runs CMD and checks its exit status
# (EXIT) and that its stdout and its stderr each have a line matching an
# extended regular expression (OUT_RE, ERR_RE; '-' checks nothing, EMPTY
# wants no output at all).  With CHECK_CLI_JSON=1, stdout must also be one
# JSON object (checked where python3 is found).  Prints what it saw; exits 0
# when every check holds.  (CTest's PASS_REGULAR_EXPRESSION would ignore
# the exit status, which is half of what these tests are about.)
want=$1 out_re=$2 err_re=$3
shift 3
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
"$@" >"$dir/out" 2>"$dir/err"
got=$?
echo "check_cli: ran: $*"
echo "--- exit status $got; stdout:"
cat "$dir/out"
echo "--- stderr:"
cat "$dir/err"
echo "---"
fail=0
if [ "$got" != "$want" ]; then
  echo "check_cli: FAIL: exit status $got, expected $want"
  fail=1
fi
check() { # NAME FILE RE
  if [ "$3" = EMPTY ]; then
    [ -s "$2" ] && { echo "check_cli: FAIL: $1 is not empty"; fail=1; }
  elif [ "$3" != - ] && ! grep -Eq -- "$3" "$2"; then
    echo "check_cli: FAIL: no line of $1 matches: $3"
    fail=1
  fi
}
check stdout "$dir/out" "$out_re"
check stderr "$dir/err" "$err_re"
if [ "${CHECK_CLI_JSON:-0}" = 1 ] && command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json, sys; assert isinstance(json.load(sys.stdin), dict)' <"$dir/out" ||
    { echo "check_cli: FAIL: stdout is not one JSON object"; fail=1; }
fi
[ "$fail" = 0 ] && echo "check_cli: PASS"
exit "$fail"
