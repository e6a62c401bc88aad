#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The congestion rules of the TCP congestion control smartt, checked through
# the smartt:smartt_cc tracepoint (which rule fired, cwnd before/after), not
# through timing.  Sender A -> receiver B over a 20 Mbit/s htb bottleneck
# with 1 ms of delay on the ACK path; both ends run smartt (the receiver's
# CE echo is per packet).  net.smartt.tcp_* in A: link 20 Mbit/s, network
# RTT 1 ms, line-rate start.
#
#  1. marking forced on (every packet CE, "Kmin 0"): CE-marked ACKs fire
#     only MD, MD_HELD or NOOP; every MD lowers the window; no increase rule
#     fires on a CE-marked ACK.
#  2. marking off, standing queue (1000-packet FIFO at 20 Mbit/s): unmarked
#     ACKs fire the increase rules (fair increase above the target RTT),
#     never MD, and never lower the window except by the bound.
#  3. loss (2% random loss at the bottleneck): losses reach the core,
#     QuickAdapt fires, at most once per target RTT (1.5 x base RTT, on the
#     clock the core read: the record's now_us, not the trace buffer's
#     timestamp, which lags by a load-dependent delay), and is followed by
#     an ignore phase (the next ACK is ignored unless it alone covers the
#     bytes that were in flight).
# `make check` shares the long tests between its two plain guests
# (SMARTT_SELFTESTS_FULL=1 runs this one on both); this one runs on
# kernels: 6.1
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/cc_lib.sh"

require_root
require_cmd ip tc python3
modprobe smartt || skip_all "no smartt.ko"
SECS=${CC_RULES_SECS:-4}

setup() { # setup LEAF-QDISC...: the bottleneck's queue
	cc_cleanup_pair
	cc_pair 20mbit 1ms || return 1
	tc -n "$CC_A" qdisc del dev va parent 1:1 handle 10: || return 1
	tc -n "$CC_A" qdisc add dev va parent 1:1 handle 10: "$@" || return 1
	ip netns exec "$CC_A" sysctl -qw net.smartt.tcp_link_mbps=20 \
		net.smartt.tcp_network_rtt_us=1000 net.smartt.tcp_start=1 || return 1
	cc_server "$CC_B" 198.18.0.2 5001 --cc smartt
}
cc_cleanup_pair() {
	cc_kill_all
	netns_cleanup
}

run_flow() { # run_flow TRACEFILE
	cc_trace_on || return 1
	cc_client "$CC_A" 198.18.0.2 5001 --cc smartt --secs "$SECS" >"$CC_TMP/flow" 2>&1
	cc_trace_off
	cc_trace_dump "$1"
	sed 's/^/# flow: /' "$CC_TMP/flow"
}

# analyse TRACEFILE CASE: python over the trace lines of the sender (port 5001)
analyse() {
	python3 - "$@" <<'PY'
import re, sys
path, case = sys.argv[1], sys.argv[2]
R = dict(IGNORED=0x1, QA=0x2, FAST_INC=0x4, FD=0x8, MD=0x10, FI=0x20, PI=0x40,
         NOOP=0x80, WTD_HOLD=0x100, ADJUST=0x200, LOSS_DEC=0x800, CLAMPED=0x1000,
         MD_HELD=0x2000)
pat = re.compile(r'\s(\d+\.\d+): smartt_cc: smartt (\w+) sport=\d+ dport=5001 '
                 r'rules=(\S+) cwnd=(\d+)->(\d+) rtt=(\d+) base_rtt=(\d+) '
                 r'bytes=(\d+) ce=(\d+) inflight=(\d+) now_us=(\d+)')
ev = []
for line in open(path):
    m = pat.search(line)
    if m:
        t, kind, rules, b, a, rtt, base, nb, ce, inf, now = m.groups()
        ev.append((float(t), kind, int(rules, 16), int(b), int(a), int(rtt),
                   int(base), int(nb), int(ce), int(inf), int(now)))
acks = [e for e in ev if e[1] == 'ack']
fails = []
def need(c, msg):
    if not c:
        fails.append(msg)
def count(bit, lst):
    return sum(1 for e in lst if e[2] & bit)
print("# %d events, %d acks" % (len(ev), len(acks)))
if case == 'mark':
    ce = [e for e in acks if e[8] > 0]
    print("# CE acks %d: MD %d MD_HELD %d NOOP %d IGNORED %d QA %d" % (
        len(ce), count(R['MD'], ce), count(R['MD_HELD'], ce),
        count(R['NOOP'], ce), count(R['IGNORED'], ce), count(R['QA'], ce)))
    need(len(ce) > 50, "at least 50 CE-marked ACKs (%d)" % len(ce))
    need(len(ce) >= 0.9 * len(acks), "nearly all ACKs CE-marked")
    inc = R['FI'] | R['PI'] | R['FAST_INC'] | R['ADJUST']
    need(not [e for e in ce if e[2] & inc], "no increase rule on a CE ACK")
    allowed = R['MD'] | R['MD_HELD'] | R['NOOP'] | R['IGNORED'] | R['QA'] | R['CLAMPED']
    need(not [e for e in ce if e[2] & ~allowed], "only MD/MD_HELD/NOOP on CE ACKs")
    need(count(R['MD'], ce) > 0, "MD fired")
    need(all(e[4] < e[3] for e in ce if e[2] & R['MD'] and e[3] > 1448),
         "every MD lowered the window")
    need(all(e[4] == e[3] for e in ce if e[2] == R['NOOP']), "NOOP keeps the window")
elif case == 'queue':
    nce = [e for e in acks if e[8] == 0]
    print("# unmarked acks %d: FI %d PI %d FAST_INC %d MD %d" % (
        len(nce), count(R['FI'], nce), count(R['PI'], nce),
        count(R['FAST_INC'], nce), count(R['MD'], nce)))
    need(len(nce) > 50, "at least 50 unmarked ACKs")
    need(count(R['FI'], nce) > 0, "fair increase fired")
    need(count(R['MD'] | R['NOOP'], nce) == 0, "no ECN rule without ECN")
    need(all(e[4] >= e[3] for e in nce if not e[2] & (R['QA'] | R['CLAMPED'])),
         "unmarked ACKs never lowered the window (except QA/bound)")
    hi = [e for e in nce if e[2] & R['FI'] and not e[2] & R['PI'] and e[5]]
    need(all(e[5] * 2 > e[6] * 3 for e in hi),
         "FI without PI only when rtt > 1.5 x base RTT")
elif case == 'loss':
    loss = [e for e in ev if e[1] in ('loss', 'rto')]
    qa = [e for e in ev if e[2] & R['QA']]
    print("# loss events %d, QuickAdapt %d, ignored %d" % (
        len(loss), len(qa), count(R['IGNORED'], ev)))
    need(len(loss) > 0, "losses reached the core")
    need(len(qa) > 0, "QuickAdapt fired")
    for x, y in zip(qa, qa[1:]):
        # the window opened at x: x's clock + 1.5 x x's base RTT (ns)
        gap_ns = (y[10] - x[10]) * 1000
        need(gap_ns >= 1.5 * x[6],
             "QA at now_us %d -> %d: %d ns, closer than the target RTT %d ns" % (
                 x[10], y[10], gap_ns, 1.5 * x[6]))
    for q in qa:
        i = ev.index(q)
        nxt = [e for e in ev[i + 1:] if e[1] == 'ack'][:1]
        # the core ignores ACKs while bytes_ignored (this ACK included)
        # stays below the bytes in flight when QuickAdapt fired
        if not nxt or nxt[0][7] >= q[9]:
            continue
        ok = nxt[0][2] & (R['IGNORED'] | R['QA'])
        if not ok:
            for e in ev[max(0, i - 2):i + 4]:
                print("#   %.6f %s rules=%#x cwnd=%d->%d inflight=%d" % (
                    e[0], e[1], e[2], e[3], e[4], e[9]))
        need(ok, "the ACK after QuickAdapt at %.6f is in the ignore phase" % q[0])
for f in fails[:5]:
    print("# FAIL: " + f)
sys.exit(1 if fails else 0)
PY
}

cc_trace_on || skip_all "no smartt:smartt_cc tracepoint (tracefs)"
cc_trace_off

# 1. marking forced on
setup pfifo limit 1000 || skip_all "setup failed"
cc_mark_all || skip_all "tc pedit/csum not available"
run_flow "$CC_TMP/t1"
check "marking forced on: CE ACKs fire only MD / MD_HELD / NOOP" analyse "$CC_TMP/t1" mark

# 2. marking off, standing queue
setup pfifo limit 1000 || skip_all "setup failed"
run_flow "$CC_TMP/t2"
check "marking off, standing queue: increase rules" analyse "$CC_TMP/t2" queue

# 3. loss
setup netem loss 2% limit 1000 || skip_all "setup failed"
run_flow "$CC_TMP/t3"
check "loss: QuickAdapt once per target RTT, then the ignore phase" analyse "$CC_TMP/t3" loss

ktap_exit
