#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages of `make deb` (build/deb/), installed into the
# guest's overlay file systems as a user installs them, then removed:
#  1. dpkg -i smartt-dkms smartt-tools: DKMS builds smartt.ko for this
#     kernel and installs it (updates/dkms/), modprobe loads it, with
#     VERSION's version;
#  2. the configuration: every file is a conffile and inactive as shipped
#     (the unit not enabled); `sysctl --system` applies the sysctl.d
#     file, and every example in it once uncommented (setting the default
#     congestion control loads the module); the modprobe.d and
#     modules-load.d examples work once uncommented;
#  3. smartt-bpf-cc.service's commands load bpf_dctcp with a knob and make
#     it the default, refuse a bad knob with nothing left loaded, and
#     unload it (bpf_dctcp alone: the verifier takes minutes over
#     bpf_smartt under TCG);
#  4. the commands on the PATH find their parts: smarttctl (VERSION, the
#     module's knobs and counters, the BPF loader), smartt-fabric (its BPF
#     controller, a fabric up and down), smartt-perf, smartt-replay, smartt-delay,
#     smartt-lab, the man pages;
#  5. DKMS's autoinstall (its kernel hook) for a kernel outside the tested
#     range (a 6.99 build tree made from this kernel's headers) with the
#     package's sources: Kbuild's message, nothing installed;
#  6. dpkg -r leaves no module and only the conffiles; dpkg -P leaves
#     nothing: no file new since the start in the guest's writable file
#     systems but dpkg's own database and logs (and DKMS's signing key);
#  7. with SMARTT_SELFTESTS_FULL=1, `make dkms` for the 6.99 kernel stops
#     with Kbuild's message and leaves nothing in DKMS, /usr/src or
#     /lib/modules.
#
# What makes it fit a TCG guest: /lib/modules/RELEASE is a copy holding
# the modules the guest needs (own_tree: depmod over all of Debian's takes
# 3 to 10 minutes, and DKMS runs it twice); DKMS's gcc goes through a
# ccache warmed on the host with the same compile (scripts/dkms-cache.sh,
# run by check.sh; DKMS still runs Kbuild, objtool, modpost, BTF and the
# link here, about 6 minutes); man-db's trigger is off.  It runs on 6.12,
# and on 6.1 too with SMARTT_SELFTESTS_FULL=1.  It needs the packages
# (`make deb`; check.sh makes them before the guests start): without them
# it fails with CI=true and skips otherwise.  Its own time limit:
# timeout=2400
# `make check` shares the long tests between its two plain guests
# (SMARTT_SELFTESTS_FULL=1 runs this one on both); this one runs on
# kernels: 6.12
source "$(dirname "$0")/lib.sh"

require_root
require_cmd dpkg dpkg-deb dpkg-query dkms modprobe modinfo sysctl

rel=$(uname -r)
series=$(echo "$rel" | sed -E 's/^([0-9]+\.[0-9]+)[.-].*/\1/')
if [ "$series" != 6.12 ] && [ "${SMARTT_SELFTESTS_FULL:-0}" != 1 ]; then
	skip_all "runs on 6.12 (DKMS compiles smartt.ko in the guest, minutes under TCG); SMARTT_SELFTESTS_FULL=1 runs it on $series too"
fi
ver=$(cat "$SMARTT_TOP/VERSION")
arch=$(dpkg --print-architecture)
debdir=$SMARTT_TOP/build/deb
dkms_deb=$debdir/smartt-dkms_${ver}_all.deb
tools_deb=$debdir/smartt-tools_${ver}_${arch}.deb
if [ ! -r "$dkms_deb" ] || [ ! -r "$tools_deb" ]; then
	if [ "${CI:-}" = true ]; then
		ktap_result FAIL "packages of make deb present" \
			"no ${dkms_deb#"$SMARTT_TOP"/} or ${tools_deb#"$SMARTT_TOP"/} (make deb)"
		ktap_exit
	fi
	skip_all "no ${dkms_deb#"$SMARTT_TOP"/} or ${tools_deb#"$SMARTT_TOP"/}: make deb builds them (scripts/check.sh selftests does before the guests)"
fi
for p in smartt-dkms smartt-tools; do
	case $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) in
	"" | *not-installed) ;;
	*) skip_all "$p is installed on the host (the guest sees the host's dpkg database)" ;;
	esac
done

# lintian's verdict on them, as make deb recorded it
if [ -r "$debdir/lintian.rc" ]; then
	[ "$(cat "$debdir/lintian.rc")" = 0 ] || sed 's/^/#   /' "$debdir/lintian.log"
	check "lintian: no tag beyond debian/*.lintian-overrides" test "$(cat "$debdir/lintian.rc")" = 0
else
	ktap_result SKIP "lintian: no tag beyond debian/*.lintian-overrides" "make deb recorded no lintian run"
fi

mods=/lib/modules/$rel
fake=6.99.0-smartt-unsupported
tmp=$(mktemp -d /tmp/smartt-package.XXXXXX)
cc0=$(sysctl -n net.ipv4.tcp_congestion_control)
allowed0=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
t_start=$(date +%s)

# ---- setup: the runner's module aside, a snapshot of what is written

# snapshot FILE: every file (not directory) of the guest's writable file
# systems: the overlays' upper layers (what the guest wrote) and the tmpfs
# mounts of /var and /run.
snapshot() {
	local mnt upper
	{
		awk '$3 == "overlay" { print $2, $4 }' /proc/mounts |
			while read -r mnt opts; do
				upper=$(echo "$opts" | tr ',' '\n' | sed -n 's/^upperdir=//p')
				[ -d "$upper" ] || continue
				(cd "$upper" && find . -xdev ! -type d) | sed "s|^\.|${mnt%/}|"
			done
		awk '$3 == "tmpfs" && $2 ~ "^/var/" { print $2 }' /proc/mounts |
			while read -r mnt; do find "$mnt" -xdev ! -type d; done
		find /run -xdev -path /run/tmp -prune -o ! -type d -print
	} 2>/dev/null | sort -u >"$1"
}

have_overlays=false
grep -q ' overlay .*upperdir=' /proc/mounts && have_overlays=true

# own_tree: /lib/modules/RELEASE becomes a copy of itself that holds only
# the modules loaded now, those this test loads (veth, the qdiscs) and
# their dependencies, bind-mounted over it: depmod reads every module of
# the tree, Debian's 4000 compressed ones take 3 to 10 minutes under TCG,
# and DKMS runs it on install and on removal.  dpkg, DKMS and depmod work
# on the copy as on the whole tree.  Without the runner's smartt.ko
# (unloaded first), which comes back with the rest when the copy is
# unmounted (also on exit).
own_tree() {
	local m p root=$tmp/root/lib/modules/$rel
	if [ -e /sys/module/smartt ]; then
		modprobe -r smartt || return 1
	fi
	mkdir -p "$root"
	{
		awk '{ print $1 }' /proc/modules
		echo veth
		find "$mods/kernel/net/sched" -name '*.ko*' -printf '%f\n' | sed 's/\.ko.*$//'
		modinfo -F depends smartt 2>/dev/null | tr ',' '\n'
	} | sort -u | while read -r m; do
		[ -n "$m" ] && modprobe -D "$m" 2>/dev/null
	done | awk '$1 == "insmod" { print $2 }' | sort -u >"$tmp/modules"
	while read -r p; do
		case $p in
		"$mods"/updates/smartt/*) ;;
		"$mods"/*) install -D -m 0644 "$p" "$root/${p#"$mods"/}" || return 1 ;;
		esac
	done <"$tmp/modules"
	cp -a "$mods"/modules.order "$mods"/modules.builtin "$mods"/modules.builtin.modinfo \
		"$mods"/build "$root/" || return 1
	[ -e "$mods/source" ] && cp -a "$mods/source" "$root/"
	depmod -b "$tmp/root" "$rel" || return 1
	echo "# $mods: $(wc -l <"$tmp/modules") modules"
	mount --bind "$root" "$mods" && touch "$tmp/own-tree"
}

# runner_tree: the runner's module tree back, with its smartt.ko
runner_tree() {
	if [ -e "$tmp/own-tree" ]; then
		if ! umount "$mods" 2>/dev/null; then
			# busy: say who, and detach it (they keep the copy)
			echo "$mods busy:"
			fuser -vm "$mods" 2>&1
			umount -l "$mods" || return 1
		fi
		rm "$tmp/own-tree"
	fi
	if [ -d "$mods/updates/smartt" ]; then
		[ "$(modinfo -n smartt 2>/dev/null)" = "$mods/updates/smartt/smartt.ko" ]
	fi
}

# fake_kernel RELEASE: a build tree of this kernel's headers that says it
# is Linux 6.99 (both halves of Debian's split headers, the common one
# with PATCHLEVEL 99), at /lib/modules/RELEASE/build.
fake_kernel() {
	local real common f d=$tmp/fake-$1
	real=$(readlink -f "$mods/build")
	common=$(sed -n 's/^include //p' "$real/Makefile")
	[ -r "$common" ] || { echo "no common Makefile in $real/Makefile"; return 1; }
	mkdir -p "$d/common" "$mods/../$1/build"
	for f in "$(dirname "$common")"/* "$(dirname "$common")"/.[!.]*; do
		[ -e "$f" ] && [ "$(basename "$f")" != Makefile ] && ln -s "$(readlink -f "$f")" "$d/common/"
	done
	sed 's/^PATCHLEVEL = .*/PATCHLEVEL = 99/' "$common" >"$d/common/Makefile"
	for f in "$real"/* "$real"/.config "$real"/.kernelvariables; do
		[ -e "$f" ] && [ "$(basename "$f")" != Makefile ] &&
			ln -s "$(readlink -f "$f")" "/lib/modules/$1/build/"
	done
	echo "include $d/common/Makefile" >"/lib/modules/$1/build/Makefile"
}

installed() { # PACKAGE: dpkg's status of PACKAGE
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null
}

# nothing_of_smartt: no smartt in DKMS, in /usr/src or in a module tree
nothing_of_smartt() {
	local left
	left="$(dkms status smartt 2>/dev/null)$(ls -d /usr/src/smartt-* /var/lib/dkms/smartt 2>/dev/null)"
	left="$left$(find /lib/modules/*/updates /lib/modules/*/extra -name 'smartt.ko*' 2>/dev/null)"
	[ -z "$left" ] || { echo "left: $left"; return 1; }
}

# stamped T0: each line of standard input as a comment, with the seconds
# since T0
stamped() {
	local l
	while IFS= read -r l; do
		printf '#   %4ds %s\n' "$(( $(date +%s) - $1 ))" "$l"
	done
}

on_exit() {
	local p
	[ -e "$tmp/man-db-auto-update" ] && touch /var/lib/man-db/auto-update
	smarttctl cc unload >/dev/null 2>&1
	for p in smartt-tools smartt-dkms; do
		[ -n "$(installed "$p")" ] && dpkg -P "$p" >/dev/null 2>&1
	done
	"$SMARTT_TOP/scripts/dkms.sh" remove >/dev/null 2>&1
	sysctl -qw net.ipv4.tcp_congestion_control="$cc0"
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed0"
	modprobe -r smartt 2>/dev/null
	rm -rf "/lib/modules/$fake"
	runner_tree
	netns_cleanup
	rm -rf "$tmp"
}
trap on_exit EXIT

# (before the module tree of the test's own: a bind mount of a directory
# of /tmp shows as one more overlay mount with /tmp's upper layer)
$have_overlays && snapshot "$tmp/before"
if out=$(own_tree 2>&1); then
	echo "$out"
	ktap_result OK "the runner's smartt.ko unloaded, a module tree of the test's own"
else
	printf '# | %s\n' "$out"
	ktap_result FAIL "the runner's smartt.ko unloaded, a module tree of the test's own"
	ktap_exit
fi
# man-db's dpkg trigger indexes every manual page on the system (over ten
# minutes under TCG): off while the test runs, as in Debian's build
# chroots and CI images (its flag file, deleted and put back, is the one
# change of the test's own that the last check leaves out)
if [ -e /var/lib/man-db/auto-update ]; then
	rm /var/lib/man-db/auto-update && touch "$tmp/man-db-auto-update"
fi

# DKMS's gcc through ccache, with the cache scripts/dkms-cache.sh warmed on
# the host with the same compile (check.sh does before the guests start):
# DKMS still runs Kbuild, modpost, BTF and the link here
dkms_env=()
if [ -d "$SMARTT_TOP/build/deb/ccache" ] && [ -x /usr/lib/ccache/gcc ]; then
	cp -a "$SMARTT_TOP/build/deb/ccache" "$tmp/ccache"
	# the statistics printed below are the guest's compile alone
	CCACHE_DIR=$tmp/ccache ccache -z >/dev/null
	mapfile -t dkms_env < <("$SMARTT_TOP/scripts/dkms-cache.sh" --env "$tmp/ccache")
	echo "# DKMS's gcc through ccache (build/deb/ccache, scripts/dkms-cache.sh)"
else
	echo "# no build/deb/ccache (scripts/dkms-cache.sh): gcc runs in full, about 10 min under TCG"
fi
denv() { env "${dkms_env[@]}" "$@"; }
cache_stats() {
	[ -d "$tmp/ccache" ] && CCACHE_DIR=$tmp/ccache ccache -s | grep -Ei '^ *(hits|misses):' | xargs
}

# ---- 1. dpkg -i

echo "# dpkg -i ${dkms_deb#"$SMARTT_TOP"/} ${tools_deb#"$SMARTT_TOP"/}"
t0=$(date +%s)
DEBIAN_FRONTEND=noninteractive denv dpkg -i "$dkms_deb" "$tools_deb" 2>&1 | tee "$tmp/dpkg-i" | stamped "$t0"
rc=${PIPESTATUS[0]}
echo "# dpkg -i took $(( $(date +%s) - t0 )) s (DKMS build and depmod); ccache: $(cache_stats)"
check "dpkg -i smartt-dkms smartt-tools" test "$rc" = 0
check "both packages installed" \
	test "$(installed smartt-dkms) $(installed smartt-tools)" = "install ok installed install ok installed"
check "dkms status: smartt $ver installed for $rel" \
	grep -q "^smartt/$ver, $rel, [^:]*: installed" <(dkms status smartt 2>&1)
dkms_module() { # (compressed like the kernel's own modules)
	local m
	m=$(modinfo -n smartt 2>&1)
	case $m in
	"$mods"/updates/dkms/smartt.ko | "$mods"/updates/dkms/smartt.ko.*) return 0 ;;
	*) echo "modinfo -n smartt: $m"; ls -l "$mods"/updates/dkms/ 2>&1; return 1 ;;
	esac
}
check "the module is DKMS's: $mods/updates/dkms/smartt.ko*" dkms_module
check "modinfo: version $ver" test "$(modinfo -F version smartt 2>&1)" = "$ver"
check "modprobe smartt" modprobe smartt
check "/sys/module/smartt/version is $ver" test "$(cat /sys/module/smartt/version 2>&1)" = "$ver"
check "modprobe -r smartt" modprobe -r smartt

# ---- 2. the configuration

confs="/etc/modules-load.d/smartt.conf /etc/modprobe.d/smartt.conf /etc/sysctl.d/60-smartt.conf /etc/default/smartt-bpf-cc"
conffiles=$(dpkg-query -W -f='${Conffiles}\n' smartt-dkms smartt-tools 2>/dev/null | awk '{ print $1 }')
are_conffiles() {
	local f
	for f in $confs; do
		echo "$conffiles" | grep -qx "$f" || { echo "$f is not a conffile"; return 1; }
	done
}
check "configuration files are conffiles" are_conffiles
# active lines: not empty, not a comment
active() { grep -Ev '^[[:space:]]*(#|$)' "$1"; }
check "modules-load.d/smartt.conf inactive as shipped" test -z "$(active /etc/modules-load.d/smartt.conf)"
check "modprobe.d/smartt.conf inactive as shipped" test -z "$(active /etc/modprobe.d/smartt.conf)"
check "sysctl.d/60-smartt.conf inactive as shipped" test -z "$(active /etc/sysctl.d/60-smartt.conf)"
unit=/lib/systemd/system/smartt-bpf-cc.service
check "smartt-bpf-cc.service installed" test -r "$unit"
check "smartt-bpf-cc.service not enabled" \
	test -z "$(find /etc/systemd/system -name smartt-bpf-cc.service 2>/dev/null)"
if command -v systemd-analyze >/dev/null; then
	check "systemd-analyze verify smartt-bpf-cc.service" systemd-analyze verify "$unit"
fi

# sysctl --system: the shipped file is read and sets nothing
sysctl --system >"$tmp/sysctl0" 2>&1
check "sysctl --system reads 60-smartt.conf" grep -q 'Applying /etc/sysctl.d/60-smartt.conf' "$tmp/sysctl0"
shipped_sets_nothing() {
	! grep -i smartt "$tmp/sysctl0" | grep -v Applying &&
		[ "$(sysctl -n net.ipv4.tcp_congestion_control)" = "$cc0" ]
}
check "sysctl --system: no error from 60-smartt.conf, default unchanged" shipped_sets_nothing

# ... and every example, uncommented, with the module not loaded yet: the
# default congestion control loads it, then the net.smartt.* lines apply.
cp /etc/sysctl.d/60-smartt.conf "$tmp/60-smartt.conf"
sed -E -i 's/^#(-?net\.[a-z0-9_.]+ = .*)$/\1/' /etc/sysctl.d/60-smartt.conf
active /etc/sysctl.d/60-smartt.conf | sed 's/^/#   /'
sysctl --system >"$tmp/sysctl1" 2>&1
examples_applied() {
	local key val got n=0
	while IFS='=' read -r key val; do
		key=$(echo "${key#-}" | tr -d ' ')
		val=$(echo "$val" | sed 's/^ *//; s/ *$//')
		got=$(sysctl -n "$key" 2>&1)
		if [ "$key" = net.ipv4.tcp_allowed_congestion_control ]; then
			# the kernel lists them in its own order
			val=$(echo "$val" | tr ' ' '\n' | sort | xargs)
			got=$(echo "$got" | tr ' ' '\n' | sort | xargs)
		fi
		[ "$got" = "$val" ] || { echo "$key = $got, the file says $val"; return 1; }
		n=$((n + 1))
	done < <(active /etc/sysctl.d/60-smartt.conf)
	[ "$n" -ge 5 ] || { echo "only $n settings in the file"; return 1; }
}
check "uncommented: sysctl --system loads smartt.ko (default congestion control)" \
	test -e /sys/module/smartt
check "uncommented: sysctl --system applies every setting" examples_applied
grep -i 'smartt' "$tmp/sysctl1" | grep -v Applying | sed 's/^/#   /'
cp "$tmp/60-smartt.conf" /etc/sysctl.d/60-smartt.conf
sysctl -qw net.ipv4.tcp_congestion_control="$cc0"
sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed0"
check "modprobe -r smartt after the sysctl examples" modprobe -r smartt

# modprobe.d: the examples, uncommented with other ports
cp /etc/modprobe.d/smartt.conf "$tmp/modprobe.conf"
sed -E -i 's/^#(options smartt udp_port=)[0-9]+$/\14795/' /etc/modprobe.d/smartt.conf
sed -E -i 's/^#(options smartt crp_udp_port=)[0-9]+$/\14796/' /etc/modprobe.d/smartt.conf
modprobe smartt
check "modprobe.d examples, uncommented: udp_port=4795, crp_udp_port=4796" \
	test "$(cat /sys/module/smartt/parameters/udp_port 2>&1)" = 4795 -a \
	"$(cat /sys/module/smartt/parameters/crp_udp_port 2>&1)" = 4796
modprobe -r smartt
cp "$tmp/modprobe.conf" /etc/modprobe.d/smartt.conf

# modules-load.d: the example, uncommented, read by systemd-modules-load
cp /etc/modules-load.d/smartt.conf "$tmp/modules-load.conf"
sed -E -i 's/^#(smartt)$/\1/' /etc/modules-load.d/smartt.conf
if [ -x /lib/systemd/systemd-modules-load ]; then
	/lib/systemd/systemd-modules-load >/dev/null 2>&1
	check "modules-load.d example, uncommented: systemd-modules-load loads smartt" \
		test -e /sys/module/smartt
	modprobe -r smartt
else
	ktap_result SKIP "modules-load.d example, uncommented: systemd-modules-load loads smartt" \
		"no /lib/systemd/systemd-modules-load"
fi
cp "$tmp/modules-load.conf" /etc/modules-load.d/smartt.conf

# ---- 3. smartt-bpf-cc.service's commands (no systemd in the guest: run
# its ExecStart and ExecStop as systemd would)

start_cmd=$(sed -n 's/^ExecStart=//p' "$unit")
stop_cmd=$(sed -n 's/^ExecStop=//p' "$unit")
cp /etc/default/smartt-bpf-cc "$tmp/default"
bpf_cc_conf() { # KNOBS
	cat >/etc/default/smartt-bpf-cc <<-EOF
	SMARTT_BPF_CC="bpf_dctcp"
	SMARTT_BPF_CC_KNOBS="$1"
	SMARTT_BPF_CC_DEFAULT="bpf_dctcp"
	EOF
}
if smarttctl cc status 2>/dev/null | grep -Eq '^bpf_[a-z]+ +loaded$'; then
	ktap_result SKIP "smartt-bpf-cc.service" "BPF congestion controls already loaded in this guest"
else
	bpf_cc_conf "dctcp_shift_g=5"
	t0=$(date +%s)
	$start_cmd >"$tmp/bpf-start" 2>&1
	rc=$?
	sed 's/^/#   /' "$tmp/bpf-start"
	echo "# ExecStart took $(( $(date +%s) - t0 )) s"
	if [ "$rc" != 0 ] && grep -q -e 'BTF' -e 'struct_ops' -e 'kfunc' "$tmp/bpf-start"; then
		ktap_result SKIP "smartt-bpf-cc.service: ExecStart loads bpf_dctcp" "this kernel cannot load it (above)"
	else
		check "smartt-bpf-cc.service: ExecStart loads bpf_dctcp" test "$rc" = 0
		smarttctl cc status >"$tmp/bpf-status" 2>&1
		registered() {
			grep -qw bpf_dctcp /proc/sys/net/ipv4/tcp_available_congestion_control &&
				[ -e /sys/fs/bpf/smartt/bpf_dctcp ]
		}
		check "... registered and pinned" registered
		check "... with its knob (dctcp_shift_g = 5)" grep -Eq '^ +dctcp_shift_g = 5$' "$tmp/bpf-status"
		check "... as the default congestion control" \
			test "$(sysctl -n net.ipv4.tcp_congestion_control)" = bpf_dctcp
		$stop_cmd >"$tmp/bpf-stop" 2>&1
		rc=$?
		sed 's/^/#   /' "$tmp/bpf-stop"
		check "smartt-bpf-cc.service: ExecStop" test "$rc" = 0
		unloaded() {
			! grep -qw bpf_dctcp /proc/sys/net/ipv4/tcp_available_congestion_control &&
				[ ! -e /sys/fs/bpf/smartt ] && [ ! -e /run/smartt-bpf-cc.default ]
		}
		check "... unloaded, no pin left" unloaded
		check "... the default congestion control back to $cc0" \
			test "$(sysctl -n net.ipv4.tcp_congestion_control)" = "$cc0"
		# a knob out of range: the start fails and leaves nothing loaded
		bpf_cc_conf "dctcp_shift_g=11"
		$start_cmd >"$tmp/bpf-bad" 2>&1
		rc=$?
		sed 's/^/#   /' "$tmp/bpf-bad"
		check "smartt-bpf-cc.service: a refused knob fails the start" test "$rc" = 1
		check "... and nothing stays loaded" unloaded
		check "... the default unchanged" test "$(sysctl -n net.ipv4.tcp_congestion_control)" = "$cc0"
	fi
fi
cp "$tmp/default" /etc/default/smartt-bpf-cc

# ---- 4. the commands

package_smarttctl() {
	local c
	c=$(command -v smarttctl) || { echo "no smarttctl on $PATH"; return 1; }
	[ "$(readlink -f "$c")" = /usr/lib/smartt/userspace/smarttctl ] ||
		{ echo "$c -> $(readlink -f "$c") (PATH $PATH)"; return 1; }
}
check "smarttctl on the PATH is the package's" package_smarttctl
check "smarttctl --version: $ver" grep -qx "smarttctl $ver" <(smarttctl --version 2>&1)
modprobe smartt
check "smarttctl knobs: the module's net.smartt.* knobs" grep -q tcp_link_mbps <(smarttctl knobs 2>&1)
check "smarttctl stats: the module's counters" smarttctl stats
modprobe -r smartt
check "smarttctl cc status: the package's BPF loader" smarttctl cc status
check "smartt-fabric --version: $ver" grep -qx "smartt-fabric $ver" <(smartt-fabric --version 2>&1)
fabric_up_down() {
	SMARTT_FABRIC_NAME=pk$$ smartt-fabric up --hosts 2 &&
		SMARTT_FABRIC_NAME=pk$$ smartt-fabric status &&
		SMARTT_FABRIC_NAME=pk$$ smartt-fabric down
}
check "smartt-fabric up, status, down (its BPF controller and port program)" fabric_up_down
SMARTT_FABRIC_NAME=pk$$ smartt-fabric down >/dev/null 2>&1
check "smartt-perf --version: $ver" grep -q "$ver" <(smartt-perf --version 2>&1)
check "smartt-replay --version: $ver" grep -q "$ver" <(smartt-replay --version 2>&1)
check "smartt-lab list: the experiments" grep -q incast <(smartt-lab list 2>&1)
check "smartt-delay on the PATH: its usage" grep -q -- --config <(smartt-delay --help 2>&1)
man_pages() {
	local m
	for m in smarttctl.8 smartt-fabric.8 smartt-delay.8 smartt-perf.1 smartt-replay.1 smartt-lab.1 \
		 smartt.7; do
		[ -r "/usr/share/man/man${m##*.}/$m.gz" ] || { echo "no $m"; return 1; }
	done
}
check "man pages" man_pages

# ---- 5. DKMS with the package's sources on an unsupported kernel

check "a 6.99 kernel build tree from $rel's headers" fake_kernel "$fake"
# what DKMS's kernel hook runs when a kernel is installed
t0=$(date +%s)
denv dkms autoinstall -k "$fake" 2>&1 | tee "$tmp/dkms-fake" | stamped "$t0"
rc=${PIPESTATUS[0]}
echo "# dkms autoinstall -k $fake took $(( $(date +%s) - t0 )) s"
check "dkms autoinstall on 6.99: fails" test "$rc" != 0
check "dkms autoinstall on 6.99: Kbuild's message in make.log" \
	grep -q "smartt is tested on Linux 6.1 to 6.12, not 6.99" /var/lib/dkms/smartt/"$ver"/build/make.log
none_for_fake() {
	[ -z "$(find "/lib/modules/$fake" -name 'smartt.ko*')" ] &&
		! dkms status smartt -k "$fake" 2>/dev/null | grep -E 'built|installed'
}
check "dkms autoinstall on 6.99: nothing built or installed" none_for_fake
check "... and $rel's module still installed" \
	grep -q "^smartt/$ver, $rel, [^:]*: installed" <(dkms status smartt 2>&1)

# ---- 6. dpkg -r, dpkg -P

t0=$(date +%s)
dpkg -r smartt-tools smartt-dkms 2>&1 | tee "$tmp/dpkg-r" | stamped "$t0"
rc=${PIPESTATUS[0]}
echo "# dpkg -r took $(( $(date +%s) - t0 )) s"
check "dpkg -r smartt-tools smartt-dkms" test "$rc" = 0
no_module() {
	local m
	if m=$(modinfo -n smartt 2>/dev/null); then
		echo "modinfo finds $m"
		return 1
	fi
}
check "no smartt.ko left, modinfo smartt fails" no_module
check "no smartt in DKMS, /usr/src or /lib/modules" nothing_of_smartt
check "the commands are gone" test -z "$(ls /usr/bin/smartt* /usr/lib/smartt 2>/dev/null)"
check "removed: the conffiles stay" \
	test "$(installed smartt-dkms) $(installed smartt-tools)" = "deinstall ok config-files deinstall ok config-files"
check "removed: /etc/sysctl.d/60-smartt.conf stays" test -e /etc/sysctl.d/60-smartt.conf
dpkg -P smartt-tools smartt-dkms >"$tmp/dpkg-p" 2>&1
rc=$?
[ "$rc" = 0 ] || sed 's/^/#   /' "$tmp/dpkg-p" | tail -n 30
check "dpkg -P smartt-tools smartt-dkms" test "$rc" = 0
purged() {
	local f
	[ -z "$(installed smartt-dkms)$(installed smartt-tools)" ] || { echo "still known to dpkg"; return 1; }
	for f in $confs; do
		[ ! -e "$f" ] || { echo "$f left"; return 1; }
	done
}
check "purged: not in dpkg's database, no conffile left" purged

# 7. `make dkms` on the unsupported kernel, with nothing of the packages left
# (SMARTT_SELFTESTS_FULL=1: another Kbuild run over the kernel's makefiles,
# minutes under TCG; the package's sources took the same path above)
if [ "${SMARTT_SELFTESTS_FULL:-0}" = 1 ]; then
	t0=$(date +%s)
	denv "$SMARTT_TOP/scripts/dkms.sh" install "$fake" 2>&1 | tee "$tmp/make-dkms" | stamped "$t0"
	rc=${PIPESTATUS[0]}
	check "make dkms on 6.99: fails" test "$rc" = 1
	check "make dkms on 6.99: Kbuild's message" \
		grep -q "smartt is tested on Linux 6.1 to 6.12, not 6.99" "$tmp/make-dkms"
	check "make dkms on 6.99: nothing in DKMS, /usr/src or /lib/modules" nothing_of_smartt
	keep=$(sed -n "s/^dkms: DKMS's make.log: //p" "$tmp/make-dkms")
	check "make dkms on 6.99: DKMS's make.log kept for the user" test -s "$keep"
	rm -f "$keep"
fi

# nothing left: every path of the packages that was not there before, and
# every file written since the start but dpkg's database and the logs
rm -rf "/lib/modules/$fake"
paths_gone() {
	local p left=
	for p in $({ dpkg-deb -c "$dkms_deb"; dpkg-deb -c "$tools_deb"; } |
		awk '{ print $6 }' | sed 's|^\.||; s|/$||'); do
		case $p in
		/usr/src/* | /usr/lib/smartt* | /usr/bin/smartt* | /etc/*/smartt* | /etc/*/60-smartt* | \
		/lib/systemd/system/smartt* | /usr/share/doc/smartt* | /usr/share/lintian/overrides/smartt* | \
		/usr/share/man/*/smartt*)
			[ -e "$p" ] || [ -L "$p" ] && left="$left $p" ;;
		esac
	done
	for p in /var/lib/dkms/smartt "$mods"/updates/dkms/smartt.ko* /run/smartt-bpf-cc.default; do
		[ -e "$p" ] && left="$left $p"
	done
	[ -z "$left" ] || { echo "left:$left"; return 1; }
}
check "purged: none of the packages' paths left" paths_gone
check "the runner's module tree and smartt.ko back in place" runner_tree
if $have_overlays; then
	snapshot "$tmp/after"
	comm -13 "$tmp/before" "$tmp/after" | grep -v "^$tmp/" |
		grep -Ev '^/var/lib/dkms/mok\.(key|pub)$|^/run/systemd/systemd-units-load$|^/var/lib/man-db/auto-update$' |
		grep -Ev '^/var/lib/dpkg/(status|status-old|available|available-old|diversions|diversions-old|statoverride|statoverride-old|triggers/.*)$|^/var/log/|^/var/cache/(debconf|man)/|^/usr/lib/modules/[^/]+/modules\.|^/lib/modules/[^/]+/modules\.' \
		>"$tmp/new-files"
	sed 's/^/#   left: /' "$tmp/new-files" | head -n 30
	check "purged: no file new since the start in the writable file systems" test ! -s "$tmp/new-files"
else
	ktap_result SKIP "purged: no file new since the start in the writable file systems" \
		"no overlay file systems with an upper layer (not a virtme-ng guest)"
fi

echo "# smartt_package.sh: $(( $(date +%s) - t_start )) s"
ktap_exit
