#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smartt-replay --algo crp: the trace format (table, request, advance),
# the rows, the CRP paper's worked examples (Fig. 4's channel, Fig. 5's
# destination) and edge cases, every error a trace line or an option can
# make (the message names the line; exit 1 for the trace, 2 for options;
# the rows of the lines before the bad one are printed).  Prints TAP.
#
#   replay_crp.sh [SMARTT_REPLAY]     (default build/userspace/smartt-replay)
set -uo pipefail

# shellcheck source=replay_tap.sh
source "$(dirname "$0")/replay_tap.sh"

# rows DESCRIPTION "OPTIONS" TRACE-LINES... : stdin is the expected output
rows() {
	local what=$1 opts=$2
	shift 2
	cat >"$tmp/want"
	printf '%s\n' "$@" >"$tmp/trace"
	# shellcheck disable=SC2086
	"$replay" --algo crp $opts "$tmp/trace" >"$tmp/out" 2>"$tmp/err"
	local status=$?
	if [ $status = 0 ] && [ ! -s "$tmp/err" ] && cmp -s "$tmp/want" "$tmp/out"; then
		ok "$what"
	else
		diff "$tmp/want" "$tmp/out" | head -8 | sed 's/^/# /'
		echo "# exit $status: $(cat "$tmp/err")"
		not_ok "$what"
	fi
}

# bad DESCRIPTION LINE MESSAGE : LINE after two good ones is refused with
# MESSAGE (line 3), exit 1, the rows of lines 1 and 2 printed
bad() {
	local what=$1 line=$2 msg=$3
	printf '%s\n' 'table id=a' 'table id=b cells=1,2' "$line" >"$tmp/trace"
	"$replay" --algo crp --set cmax=512 --set cells=5 "$tmp/trace" >"$tmp/out" 2>"$tmp/err"
	local status=$?
	if [ $status = 1 ] && [ "$(cat "$tmp/err")" = "smartt-replay: line 3: $msg" ] &&
		[ "$(wc -l <"$tmp/out")" = 4 ]; then
		ok "error: $what"
	else
		echo "# exit $status, $(wc -l <"$tmp/out") lines: $(cat "$tmp/err")"
		not_ok "error: $what: want 'line 3: $msg', exit 1"
	fi
}

# badopt DESCRIPTION MESSAGE ARGS... : exit 2, MESSAGE, no rows
badopt() {
	local what=$1 msg=$2
	shift 2
	"$replay" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	local status=$?
	if [ $status = 2 ] && [ "$(cat "$tmp/err")" = "smartt-replay: $msg" ] &&
		[ ! -s "$tmp/out" ]; then
		ok "option error: $what"
	else
		echo "# exit $status: $(cat "$tmp/err")"
		not_ok "option error: $what: want '$msg', exit 2"
	fi
}

echo "TAP version 13"
if [ ! -x "$replay" ]; then
	echo "1..1"
	echo "not ok 1 $replay: not built (make tools)"
	exit 1
fi

fig="--set cmax=512 --set cells=5"

rows "Fig. 4 channel and Fig. 5 destination: slot B, timestamp 984" "$fig" \
	'table id=ch cells=512,10,100,0,10' 'table id=dst cells=30,40,100,512,100' \
	'' '# the request of Fig. 4 and 5' 'request size=80 path=ch dest=dst' <<'OUT'
i,event,name,slot,timestamp,cells
0,table,ch,,,512;10;100;0;10
1,table,ch,,,512;10;100;0;10
1,table,dst,,,30;40;100;512;100
2,request,grant,1,984,FTTFF
2,table,ch,,,512;0;30;0;10
2,table,dst,,,30;0;60;512;100
OUT

rows "a reservation within one cell takes its last bytes; retry and retry_full" "$fig" \
	'table id=ch cells=0,0,0,0,512' 'table id=dst cells=512,512,512,512,0' \
	'request size=100 path=ch dest=dst' 'table id=full cells=0,0,50,0,49' \
	'request size=51 path=ch dest=full' 'request size=50 path= dest=full' <<'OUT'
i,event,name,slot,timestamp,cells
0,table,ch,,,0;0;0;0;512
1,table,ch,,,0;0;0;0;512
1,table,dst,,,512;512;512;512;0
2,request,retry,,,FFFFF
2,table,ch,,,0;0;0;0;512
2,table,dst,,,512;512;512;512;0
3,table,ch,,,0;0;0;0;512
3,table,dst,,,512;512;512;512;0
3,table,full,,,0;0;50;0;49
4,request,retry_full,,,FFFFF
4,table,ch,,,0;0;0;0;512
4,table,dst,,,512;512;512;512;0
4,table,full,,,0;0;50;0;49
5,request,grant,2,1486,FFTFF
5,table,ch,,,0;0;0;0;512
5,table,dst,,,512;512;512;512;0
5,table,full,,,0;0;0;0;49
OUT

rows "straddling two cells, never three; the last cell alone" "$fig" \
	'table id=d cells=0,100,512,300,500' 'request size=600 path= dest=d' \
	'request size=501 path= dest=d' <<'OUT'
i,event,name,slot,timestamp,cells
0,table,d,,,0;100;512;300;500
1,request,grant,1,924,FTTTF
1,table,d,,,0;0;12;300;500
2,request,grant,3,1748,FFFTF
2,table,d,,,0;0;12;0;299
OUT

rows "advance: cells leave at the front, full ones come in, past the end too" "$fig" \
	'table id=a cells=1,2,3' 'advance slots=2' 'table id=b cells=7' 'advance slots=0' \
	'advance slots=7' '  # a comment' 'request size=1024 path=a dest=b' <<'OUT'
i,event,name,slot,timestamp,cells
0,table,a,,,1;2;3;512;512
1,table,a,,,3;512;512;512;512
2,table,a,,,3;512;512;512;512
2,table,b,,,7;512;512;512;512
3,table,a,,,3;512;512;512;512
3,table,b,,,7;512;512;512;512
4,table,a,,,512;512;512;512;512
4,table,b,,,512;512;512;512;512
5,request,grant,0,0,TTTTF
5,table,a,,,0;0;512;512;512
5,table,b,,,0;0;512;512;512
OUT

rows "eager: a retry keeps the flow's reservation, its next request renews it, a grant confirms" \
	"$fig --set eager=1" \
	'table id=up cells=512,10,100,0,10' 'table id=h1 cells=0,0,0,0,0' 'table id=h2' \
	'request size=80 path=up dest=h1' 'request size=500 path=up dest=h2' \
	'request size=80 path=up dest=h1' 'request size=80 path=up dest=h2' 'advance slots=1' <<'OUT'
i,event,name,slot,timestamp,cells
0,table,up,,,512;10;100;0;10
1,table,up,,,512;10;100;0;10
1,table,h1,,,0;0;0;0;0
2,table,up,,,512;10;100;0;10
2,table,h1,,,0;0;0;0;0
2,table,h2,,,512;512;512;512;512
3,request,retry_full,,,FFFFF
3,table,up,,,432;10;100;0;10
3,table,h1,,,0;0;0;0;0
3,table,h2,,,512;512;512;512;512
4,request,retry,,,FFFFF
4,table,up,,,432;10;100;0;10
4,table,h1,,,0;0;0;0;0
4,table,h2,,,512;512;512;512;512
5,request,retry_full,,,FFFFF
5,table,up,,,432;10;100;0;10
5,table,h1,,,0;0;0;0;0
5,table,h2,,,512;512;512;512;512
6,request,grant,0,432,TTTFF
6,table,up,,,352;10;100;0;10
6,table,h1,,,0;0;0;0;0
6,table,h2,,,432;512;512;512;512
7,table,up,,,10;100;0;10;512
7,table,h1,,,0;0;0;0;512
7,table,h2,,,512;512;512;512;512
OUT

rows "eager=2 settles to what the grant alone takes" "$fig --set eager=2" \
	'table id=ch cells=512,10,100,0,10' 'table id=dst cells=30,40,100,512,100' \
	'request size=80 path=ch dest=dst' <<'OUT'
i,event,name,slot,timestamp,cells
0,table,ch,,,512;10;100;0;10
1,table,ch,,,512;10;100;0;10
1,table,dst,,,30;40;100;512;100
2,request,grant,1,984,FTTFF
2,table,ch,,,512;0;30;0;10
2,table,dst,,,30;0;60;512;100
OUT

v32=TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTF
c32=$(printf '2152;%.0s' {1..30})2152
rows "the defaults: 32 cells of 2152 bytes; a path through three channels" "" \
	'table id=d' 'table id=c1' 'table id=c2' 'table id=c3' \
	'request size=4096 path=c1,c2,c3 dest=d' <<OUT
i,event,name,slot,timestamp,cells
0,table,d,,,2152;$c32
1,table,d,,,2152;$c32
1,table,c1,,,2152;$c32
2,table,d,,,2152;$c32
2,table,c1,,,2152;$c32
2,table,c2,,,2152;$c32
3,table,d,,,2152;$c32
3,table,c1,,,2152;$c32
3,table,c2,,,2152;$c32
3,table,c3,,,2152;$c32
4,request,grant,0,0,$v32
4,table,d,,,0;208;${c32#2152;}
4,table,c1,,,0;208;${c32#2152;}
4,table,c2,,,0;208;${c32#2152;}
4,table,c3,,,0;208;${c32#2152;}
OUT

rows "64 cells, cmax 1 GiB" "--set cells=64 --set cmax=1073741824" \
	'table id=d cells=1' 'request size=2147483648 path= dest=d' <<OUT
i,event,name,slot,timestamp,cells
0,table,d,,,1;$(printf '1073741824;%.0s' {1..62})1073741824
1,request,grant,1,1073741824,F$(printf 'T%.0s' {1..62})F
1,table,d,,,1;0;0;$(printf '1073741824;%.0s' {1..60})1073741824
OUT

bad "an unknown event" 'reserve size=1' "unknown event 'reserve' (crp: table, request, advance)"
bad "an unknown field" 'table id=c foo=1' "'foo' is not a field of table"
bad "a field of another event" 'advance slots=1 size=2' "'size' is not a field of advance"
bad "a word that is not key=value" 'table id=c cells' "'cells' is not key=value"
bad "a field given twice" 'table id=c id=d' "id given twice"
bad "table without id" 'table cells=1' "table needs id="
bad "request without size" 'request path=a dest=b' "request needs size="
bad "request without path" 'request size=80 dest=b' "request needs path="
bad "request without dest" 'request size=80 path=a' "request needs dest="
bad "advance without slots" 'advance' "advance needs slots="
bad "a duplicate id" 'table id=a' "table a is defined twice"
bad "an id with other characters" 'table id=a/b' \
	"id=a/b: want 1 to 31 letters, digits, '_', '.' or '-'"
bad "an empty id" 'table id=' "id=: want 1 to 31 letters, digits, '_', '.' or '-'"
bad "a 32-character id" "table id=$(printf 'x%.0s' {1..32})" \
	"id=$(printf 'x%.0s' {1..32}): want 1 to 31 letters, digits, '_', '.' or '-'"
bad "too many cells" 'table id=c cells=1,2,3,4,5,6' "more than 5 cells (--set cells=)"
bad "a cell over cmax" 'table id=c cells=0,513' "cell 1 holds 513, more than cmax 512"
bad "a cell that is not a number" 'table id=c cells=1,x' "cells: 'x' is not an unsigned integer"
bad "a negative cell" 'table id=c cells=1,-2' "cells: '-2' is negative (want an unsigned integer)"
bad "an empty cell" 'table id=c cells=1,,2' "cells=1,,2: an empty cell"
bad "a cell beyond 64 bits" 'table id=c cells=18446744073709551616' \
	"cells: '18446744073709551616' is too large for 64 bits"
bad "size 0" 'request size=0 path=a dest=b' "size=0: nothing to reserve"
bad "a size two cells can never hold" 'request size=1025 path=a dest=b' \
	"size=1025: more than two cells hold (2 x cmax = 1024)"
bad "a negative size" 'request size=-80 path=a dest=b' "size=-80 is negative (want an unsigned integer)"
bad "a size that is not a number" 'request size=8O path=a dest=b' "size=8O is not an unsigned integer"
bad "an unknown destination" 'request size=80 path=a dest=c' "dest=c: no such table"
bad "an unknown table in the path" 'request size=80 path=a,c dest=b' "path: no such table 'c'"
bad "a path naming the destination" 'request size=80 path=a,b dest=b' \
	"path names the destination b"
bad "a path naming a table twice" 'request size=80 path=a,a dest=b' "path names a twice"
bad "an empty name in the path" 'request size=80 path=a, dest=b' "path=a,: an empty table name"
bad "negative slots" 'advance slots=-1' "slots=-1 is negative (want an unsigned integer)"
bad "slots that are not a number" 'advance slots=1.5' "slots=1.5 is not an unsigned integer"

# lines: the trace on stdin; LINE: the message expected for its last line
bad_trace() {
	local what=$1 msg=$2
	"$replay" --algo crp --set cells=1 - <"$tmp/trace" >"$tmp/out" 2>"$tmp/err"
	local status=$?
	if [ $status = 1 ] && [ "$(cat "$tmp/err")" = "smartt-replay: $msg" ]; then
		ok "error: $what"
	else
		echo "# exit $status: $(cat "$tmp/err")"
		not_ok "error: $what: want '$msg', exit 1"
	fi
}
printf 'table id=t%s\n' {0..64} >"$tmp/trace"
bad_trace "a 65th table" "line 65: more than 64 tables"
printf '%s\n' 'advance slots=18446744073709551615' 'table id=late' 'advance slots=1' >"$tmp/trace"
bad_trace "time beyond 2^64 slots" "line 3: slots=1: time beyond 2^64 slots"

badopt "cmax 0" "--set cmax=0: want bytes in [1, 1073741824]" --algo crp --set cmax=0
badopt "cmax beyond 1 GiB" "--set cmax=1073741825: want bytes in [1, 1073741824]" \
	--algo crp --set cmax=1073741825
badopt "cells 0" "--set cells=0: want cells in [1, 64]" --algo crp --set cells=0
badopt "65 cells" "--set cells=65: want cells in [1, 64]" --algo crp --set cells=65
badopt "eager beyond R_res max" "--set eager=5: want request sizes in [0, 4]" \
	--algo crp --set eager=5
badopt "a negative knob" "--set cmax=-1: want bytes in [1, 1073741824]" --algo crp --set cmax=-1
badopt "a knob of another core" "--set mtu: not a knob of crp (cmax, cells, eager)" \
	--algo crp --set mtu=1500
badopt "a knob the replayer does not use" "--set ttw_ns: not a knob of crp (cmax, cells, eager)" \
	--algo crp --set ttw_ns=1
badopt "--lb" "--lb reps: crp has no path selector" --algo crp --lb reps
badopt "--bpf" "--bpf: --algo crp runs in C only" --algo crp --bpf
badopt "--plot" "--plot: --algo crp has nothing to plot" --algo crp --plot x.png

if "$replay" --help --algo crp >"$tmp/out" 2>&1 && grep -q '^  request size=' "$tmp/out" &&
	grep -q '^  eager  *0 request sizes' "$tmp/out"; then
	ok "--help --algo crp: the trace lines and the knobs"
else
	not_ok "--help --algo crp: the trace lines and the knobs"
fi

echo "1..$n"
exit $rc
