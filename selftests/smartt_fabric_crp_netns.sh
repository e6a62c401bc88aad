#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smartt-fabric CRP across a fabric: two leaves, one spine, CRP on.  h0
# (leaf 0) sends a crafted CRP_REQ to h1 (leaf 1); it crosses leaf 0's
# uplinks (group up(l0)), the spine's port into leaf 1 (into(l1)) and
# leaf 1's port to h1 (host(h1)), and reaches h1 decided.  A small
# reflector on h1 (the transport does not answer CRP yet) sends the grant
# back three times: each crosses into(l1) and up(l0) where they enter the
# spine and leaf 0; the first two fit the cells and are settled, the third
# does not (the sum of the granted cell and the next one is short) and
# reaches h0 as CRP_RETRY with CONVERTED.  Over IPv4, then IPv6 (later
# slots, so that the two runs do not share cells).  CRP's control packets
# travel on their own UDP port (4794) with DSCP control (46).  The sockets
# receive only packets with a valid UDP checksum.
#
# Sizes: 100 Mbit/s, 1 s slots: every group's cell holds 12.5 MB; the
# request reserves 10 MB from slot +5 (IPv4) or +20 (IPv6) on.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric_lib.sh"

fabric_require

# The knobs: usage errors (exit 2) naming the option, never clamped.
usage_err() { # DESC REGEX ARGS...
	local desc=$1 rx=$2 out rc
	shift 2
	out=$("$SF" --name crpu up "$@" 2>&1)
	rc=$?
	check "$desc" bash -c '[ "$1" = 2 ] && grep -qE -- "$2" <<<"$3"' _ "$rc" "$rx" "$out"
}
usage_err "--crp-cells 65: usage error" "crp-cells 65" --crp on --crp-cells 65
usage_err "--crp-slot 0: usage error" "crp-slot 0" --crp on --crp-slot 0
usage_err "--crp-ttw 2s: usage error (at most 1 s)" "crp-ttw 2s" --crp on --crp-ttw 2s
usage_err "--crp-eager 5: usage error" "crp-eager 5" --crp on --crp-eager 5
usage_err "--crp-slot without --crp on: usage error" "CRP is off" --crp-slot 1ms
usage_err "a cell of more than 1 GiB: usage error naming the group" "group host\(h0\) would hold 12500000000 bytes.*shorter" \
	--leaves 2 --spines 1 --rate 100gbit --crp on --crp-slot 1s

SLOT_NS=1000000000
fabric_up --hosts 2 --leaves 2 --spines 1 --rate 100mbit --crp on --crp-slot 1s

# crp_run FAMILY SRC DST FIRST_SLOT: prints h1's and h0's JSON lines
crp_run() {
	local fam=$1 src=$2 dst=$3 first=$4 out=$__sf_tmp/crp.$1
	ip netns exec "sf-$SF_NAME-h1" python3 - "$fam" "$dst" >"$out.h1" 2>&1 <<'EOF' &
import json, socket, struct, sys
fam = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
if fam == socket.AF_INET6:
    s.setsockopt(socket.IPPROTO_IPV6, 67, 46 << 2)     # IPV6_TCLASS: DSCP control
else:
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 46 << 2)
s.bind((sys.argv[2], 4794))
s.settimeout(20)
print("ready", flush=True)
b, peer = s.recvfrom(4096)
h = list(struct.unpack_from("!HBBHBBIIQHHIQQQQ", b, 0))
x = list(struct.unpack_from("!HHIQQIIIHHQQQIIQ", b, 64))
print(json.dumps({"type": h[2], "crp_flags": x[8], "slot_base": x[10], "vec": x[11],
                  "grant_slot": x[12], "grant_offset": x[13], "grant_ns": x[15]}), flush=True)
# reflect: a grant, three times (sport/dport swapped)
h[2] = 8
x[0], x[1] = x[1], x[0]
g = struct.pack("!HBBHBBIIQHHIQQQQ", *h) + struct.pack("!HHIQQIIIHHQQQIIQ", *x)
for _ in range(3):
    s.sendto(g, (peer[0], 4794))
EOF
	for _ in $(seq 100); do grep -q ready "$out.h1" 2>/dev/null && break; sleep 0.1; done
	ip netns exec "sf-$SF_NAME-h0" python3 - "$fam" "$src" "$dst" "$first" "$SLOT_NS" \
		>"$out.h0" 2>&1 <<'EOF'
import json, socket, struct, sys, time
fam = socket.AF_INET6 if sys.argv[1] == "6" else socket.AF_INET
first, slot_ns = int(sys.argv[4]), int(sys.argv[5])
s = socket.socket(fam, socket.SOCK_DGRAM)
if fam == socket.AF_INET6:
    s.setsockopt(socket.IPPROTO_IPV6, 67, 46 << 2)     # IPV6_TCLASS: DSCP control
else:
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 46 << 2)
s.bind((sys.argv[2], 4794))
s.settimeout(10)
base = time.monotonic_ns() // slot_ns       # CLOCK_MONOTONIC, as the ports
vec = ((1 << 64) - 1) & ~((1 << first) - 1)   # no slot before base + first
h = struct.pack("!HBBHBBIIQHHIQQQQ", 0x5374, 2, 7, 0, 0, 18, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0)
x = struct.pack("!HHIQQIIIHHQQQIIQ", 1, 2, 0x5eed, 42, 0, 9500000, 10000000, 0, 0, 0,
                base, vec, 0, 0, 0, 0)
s.sendto(h + x, (sys.argv[3], 4794))
for _ in range(3):
    try:
        b = s.recv(4096)
    except socket.timeout:
        break
    t = struct.unpack_from("!HBBHBBIIQHHIQQQQ", b, 0)
    e = struct.unpack_from("!HHIQQIIIHHQQQIIQ", b, 64)
    print(json.dumps({"type": t[2], "crp_flags": e[8], "retry_after_ns": e[14],
                      "base": base}), flush=True)
EOF
	wait
}

check_run() { # FAMILY FIRST_SLOT
	local fam=$1 first=$2 out=$__sf_tmp/crp.$1
	sed 's/^/# h1: /' "$out.h1"
	sed 's/^/# h0: /' "$out.h0"
	python3 - "$out.h1" "$out.h0" "$first" >"$out.sum" <<'EOF'
import json, sys
req = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
back = [json.loads(l) for l in open(sys.argv[2]) if l.startswith("{")]
first = int(sys.argv[3])
r = req[0] if req else {}
base = back[0]["base"] if back else -1
print(json.dumps({
    "decided": r.get("type") == 7 and r.get("crp_flags") == 1,
    # the vector was rebased to the port's slot: no bit before base + first
    "slot": r.get("grant_slot", -1) >= base + first and
            r.get("grant_slot", 0) - r.get("slot_base", 0) < 32 and
            r.get("vec", 0) >> (r.get("grant_slot", 0) - r.get("slot_base", 0)) & 1 == 1,
    "offset": r.get("grant_offset") == 2500000,
    "types": [b["type"] for b in back],
    "flags": [b["crp_flags"] for b in back],
    "retry_after": back[2]["retry_after_ns"] if len(back) > 2 else None}))
EOF
	echo "# $fam: $(cat "$out.sum")"
	check "IPv$fam: the request reached h1 decided (DEST_DONE, a slot)" \
		test "$(json_get "$out.sum" 'd["decided"]')" = True
	check "IPv$fam: the slot is common and not before base + $first" \
		test "$(json_get "$out.sum" 'd["slot"]')" = True
	check "IPv$fam: the destination took 10 MB from the slot's end (offset 2.5 MB)" \
		test "$(json_get "$out.sum" 'd["offset"]')" = True
	check "IPv$fam: back at h0: grant, grant, retry (CONVERTED)" \
		test "$(json_get "$out.sum" 'd["types"] == [8, 8, 9] and d["flags"][2] == 9')" = True
	check "IPv$fam: the converted grant proposes R (30/269 of the slot)" \
		test "$(json_get "$out.sum" 'd["retry_after"]')" = $((SLOT_NS * 30 / 269))
	check "IPv$fam: l0:s0 (up(l0)) ANDed the request, settled two grants" \
		test "$(port_stat l0:s0 crp_req)/$(port_stat l0:s0 crp_grant_ok)/$(port_stat l0:s0 crp_grant_conv)" = 1/2/0
	check "IPv$fam: s0:l1 (into(l1)) ANDed it, settled two grants, converted one" \
		test "$(port_stat s0:l1 crp_req)/$(port_stat s0:l1 crp_grant_ok)/$(port_stat s0:l1 crp_grant_conv)" = 1/2/1
	check "IPv$fam: l1:h1 (host(h1)) decided it" \
		test "$(port_stat l1:h1 crp_dest_grant)/$(port_stat l1:h1 crp_req)" = 1/0
	check "IPv$fam: nothing dropped as malformed, no rewrite failed" \
		test "$(port_stat s0:l1 drop_crp_bad)$(port_stat s0:l1 crp_err)$(port_stat l0:s0 crp_err)$(port_stat l1:h1 crp_err)" = 0000
}

sf reset
crp_run 4 "$(host_field h0 ipv4)" "$(host_field h1 ipv4)" 5
check_run 4 5
sf reset
crp_run 6 "$(host_field h0 ipv6)" "$(host_field h1 ipv6)" 20
check_run 6 20
sf crp | sed 's/^/# /' | cut -c1-160
ktap_exit
