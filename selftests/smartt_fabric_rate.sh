#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smartt-fabric: an emulated port delivers its configured line rate (within
# 3%) at every rate in SF_RATES, and its counters agree with what the
# receiver's interface saw.
#
# h0 -> l0 -> h1; h0's NIC runs at 2x the rate so that l0:h1 is the
# bottleneck; iperf3 offers 1.5x the rate of UDP for SF_SECONDS; the rate is
# measured on h1's interface after the queue has filled.
#
# A measurement below the tolerance is repeated, up to SF_RATE_TRIES times
# in all: on a loaded machine (make check runs the host tests beside its
# guests) the sender or the port's softirq can be starved for a moment,
# which only ever lowers the rate.  A port that shapes to the wrong rate
# fails every try; a rate above the tolerance fails at once.
#
# Knobs: SF_RATES (default "10mbit 100mbit 500mbit"), SF_SECONDS (default 4),
# SF_TOL_PCT (default 3), SF_RATE_LEN (UDP payload bytes; default 1400, 4000
# above 100 Mbit/s), SF_RATE_TRIES (default 3, 1..10).
# `make check` shares the long tests between its two plain guests
# (SMARTT_SELFTESTS_FULL=1 runs this one on both); this one runs on
# kernels: 6.1
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

fabric_require
require_cmd iperf3

RATES=${SF_RATES:-10mbit 100mbit 500mbit}
SECS=${SF_SECONDS:-4}
TOL=${SF_TOL_PCT:-3}
TRIES=${SF_RATE_TRIES:-3}
[[ $TRIES =~ ^([1-9]|10)$ ]] || skip_all "SF_RATE_TRIES: 1..10, got '$TRIES'"

to_bps() { python3 -c "
import re,sys; m=re.fullmatch(r'([0-9.]+)([kmgt]?)(bit)?', sys.argv[1].lower())
print(int(float(m.group(1))*{'':1,'k':1e3,'m':1e6,'g':1e9,'t':1e12}[m.group(2)]))" "$1"; }

for rate in $RATES; do
	bps=$(to_bps "$rate")
	# Large datagrams above 100 Mbit/s keep iperf3's packet rate low enough.
	LEN=${SF_RATE_LEN:-1400}
	[ -z "${SF_RATE_LEN:-}" ] && [ "$bps" -gt 100000000 ] && LEN=4000
	fabric_up --hosts 2 --rate "$rate" --buffer 256k --delay 0
	sf set h0:eth0 rate=$((bps * 2)) || { ktap_result FAIL "$rate: set NIC rate"; continue; }
	dst=$(host_field h1 ipv4)
	pcts=
	for try in $(seq "$TRIES"); do
		# a pause before a retry, to let a burst of host work pass
		[ "$try" = 1 ] || sleep 2
		sf exec h1 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
		sleep 0.5
		ifb0=$(rx_bytes h1 eth0)
		sf reset
		sf exec h0 iperf3 -u -c "$dst" -b $((bps * 3 / 2)) -l "$LEN" -t "$SECS" \
			>"$__sf_tmp/iperf.$rate" 2>&1 &
		ipf=$!
		got=$(measure_rate h1 eth0 0.5 $((SECS - 2)))
		wait $ipf
		wait
		wait_drained l0:h1 || echo "# l0:h1 did not drain"
		pct=$(python3 -c "print(round(100.0 * $got / $bps, 2))")
		pcts="$pcts${pcts:+ }$pct%"
		echo "# $rate, try $try: measured $got bit/s = $pct% of configured ($(fabric_backend) backend)"
		within "$pct" 0 $((100 - TOL)) || break
	done
	check "rate $rate within ${TOL}% (measured $pcts)" within "$pct" $((100 - TOL)) $((100 + TOL))
	# Counters: everything l0:h1 queued arrived (tx == rx at the far end),
	# the overload was really dropped at the buffer, and the far end's
	# count matches the receiver interface's counter.
	sf status --json l0:h1 >"$__sf_tmp/st.json"
	txp=$(json_get "$__sf_tmp/st.json" 'd["ports"][0]["tx_pkts"]')
	rxp=$(json_get "$__sf_tmp/st.json" 'd["ports"][0]["rx_pkts"]')
	drops=$(json_get "$__sf_tmp/st.json" 'd["ports"][0]["drop_buffer"]')
	rxb=$(json_get "$__sf_tmp/st.json" 'd["ports"][0]["rx_bytes"]')
	ifb=$(( $(rx_bytes h1 eth0) - ifb0 ))
	check "$rate: port tx_pkts ($txp) == far-end rx_pkts ($rxp)" test "$txp" = "$rxp"
	check "$rate: overload dropped at the buffer ($drops)" test "$drops" -gt 0
	# The interface counter (since the last try's reset) also includes
	# the iperf3 control connection; it can only be larger, by less than
	# 1%.
	check "$rate: far-end bytes ($rxb) agree with h1 eth0 rx_bytes ($ifb)" \
		python3 -c "import sys; a,b=$rxb,$ifb; sys.exit(0 if a <= b <= a*1.01 + 200000 else 1)"
	sf down >/dev/null
done

ktap_exit
