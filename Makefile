# SPDX-License-Identifier: GPL-2.0
#
# smartt: top-level build.  `make help` lists the targets.
#
# The module itself is built by Kbuild (see Kbuild); this Makefile drives it
# for every installed supported kernel, and runs the tools and tests.

SHELL := /bin/bash
TOP := $(abspath .)

# KDIR=<kernel build tree> builds for that tree only; KERNEL=6.1|6.12 picks
# one installed Debian kernel for the guest-based targets.
KDIR ?=
KERNEL ?=

# Where `make install` puts what is not the module: DESTDIR (staging root)
# and PREFIX as usual.  The Wireshark dissector goes into the global Lua
# plugin directory of Debian's Wireshark, /usr/lib/<multiarch>/wireshark/
# plugins (what `tshark -G folders` calls "Global Lua Plugins");
# WIRESHARK_LUA_DIR overrides it.
DESTDIR ?=
PREFIX ?= /usr
MULTIARCH := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null)
WIRESHARK_LUA_DIR ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))/wireshark/plugins

.DEFAULT_GOAL := modules

help:
	@echo "smartt targets:"
	@echo "  make                 build smartt.ko for every installed supported kernel (or KDIR=...)"
	@echo "  make deps            install everything (Debian packages, virtme-ng); idempotent, root"
	@echo "  make check           all tests: harness, unit, builds, checkpatch/sparse, KUnit, guests"
	@echo "  make demo            build, boot a guest, emulate two hosts, compare congestion controls"
	@echo "  make check-debug     transport/multipath/TCP selftests in a KASAN+lockdep+kmemleak+UBSAN"
	@echo "                       6.12 kernel built from linux-source-6.12 (cached; ~50 min cold)"
	@echo "  make unit            userspace unit tests of kernel/algo (ASan+UBSan)"
	@echo "  make kunit           KUnit suites in a UML kernel built from linux-source-6.12 (cached)"
	@echo "  make selftests       kselftests in QEMU guests (KERNEL=6.1|6.12 for one)"
	@echo "  make checkpatch      checkpatch --strict and sparse on the module sources"
	@echo "  make install         the Wireshark dissector (DESTDIR, PREFIX), then modules_install +"
	@echo "                       depmod for the running kernel (or KDIR); make install-dissector: only it"
	@echo "  make dkms            add, build and install smartt.ko through DKMS for the running kernel"
	@echo "                       (KERNEL=6.1|6.12 for an installed one); make dkms-remove undoes it"
	@echo "  make deb             Debian packages smartt-dkms and smartt-tools -> build/deb/ (lintian-checked)"
	@echo "  make bench-algo      instructions per ACK of every algorithm rule"
	@echo "  make bench-tcp       smartt/strack vs dctcp/cubic/bbr: incast and permutation (KERNEL=)"
	@echo "  make bench-transport smartt transport vs TCP, same CC and path: goodput, FCT p50/p99 (KERNEL=)"
	@echo "  make tools           what a host-only user needs: the fabric's BPF controller (build/bpf/),"
	@echo "                       smartt-perf, smartt-replay, smartt-delay (build/userspace/); smarttctl and"
	@echo "                       smartt-fabric run in place (userspace/)"
	@echo "  make bench-multipath reps/oblivious/ecmp/strack-bitmap/reps-single on smartt-fabric (KERNEL=)"
	@echo "  make bench-bpf-cc    bpf_smartt/bpf_strack/bpf_dctcp vs cubic/bbr natively on the host: goodput, CPU/Gbit"
	@echo "  make fuzz            libFuzzer on smartt-replay's parser and the cores (FUZZ_SECONDS=30)"
	@echo "  make fuzz-transport  10^6 structure-aware packets at a live socket in a guest (FUZZ_PACKETS=, KERNEL=)"
	@echo "  make clean"

modules:
ifneq ($(KDIR),)
	@scripts/build-module.sh $(KDIR)
else
	@kv=$$(scripts/kernels.sh list); \
	[ -n "$$kv" ] || { echo "no supported kernel headers installed (6.1, 6.12): run 'make deps' or pass KDIR=" >&2; exit 1; }; \
	echo "building for:" $$(echo "$$kv" | awk '{print $$2}'); \
	echo "$$kv" | while read -r s rel; do scripts/build-module.sh $$rel || exit 1; done
endif

deps:
	@scripts/deps.sh

# `make check` installs what is missing first, so a fresh clone needs only
# this command.  SMARTT_SKIP_DEPS=1 skips that step.
check:
	@[ "$(SMARTT_SKIP_DEPS)" = 1 ] || scripts/deps.sh >/dev/null
	@KERNEL=$(KERNEL) scripts/check.sh

# The transport's, multipath and TCP selftests in a 6.12 kernel with KASAN,
# lockdep, kmemleak and UBSAN, built once from linux-source-6.12 (~50 min
# cold, cached outside the checkout).  Not part of `make check`.
check-debug:
	@[ "$(SMARTT_SKIP_DEPS)" = 1 ] || scripts/deps.sh >/dev/null
	@scripts/check.sh debug

unit:
	@scripts/check.sh unit

kunit:
	@scripts/check.sh kunit

selftests:
	@KERNEL=$(KERNEL) scripts/check.sh selftests

checkpatch:
	@scripts/check.sh style build

demo:
	@[ "$(SMARTT_SKIP_DEPS)" = 1 ] || scripts/deps.sh >/dev/null
	@KERNEL=$(KERNEL) scripts/demo.sh

# The Lua dissector of the transport's UET and CRP packets
# (Documentation/decode.rst): Wireshark and tshark load it at start.
install-dissector:
	install -D -m 0644 userspace/wireshark/smartt-uet.lua \
		$(DESTDIR)$(WIRESHARK_LUA_DIR)/smartt-uet.lua

install: install-dissector
ifneq ($(KDIR),)
	@out=$$(scripts/build-module.sh $(KDIR) | tail -n 1) && \
	$(MAKE) -C $(KDIR) M=$$(dirname $$out) modules_install && depmod -a
else
	@rel=$$(uname -r); out=$$(scripts/build-module.sh $$rel | tail -n 1) && \
	$(MAKE) -C /lib/modules/$$rel/build M=$$(dirname $$out) modules_install && depmod -a $$rel
endif

# smartt.ko through DKMS, rebuilt for every kernel installed later
# (Documentation/install.rst).
dkms:
	@if [ -n "$(KERNEL)" ]; then rel=$$(scripts/kernels.sh release $(KERNEL)) || exit 1; \
	else rel=$$(uname -r); fi; scripts/dkms.sh install $$rel

dkms-remove:
	@scripts/dkms.sh remove

# Debian packages from a copy of the tree, in build/deb/.
deb:
	@scripts/deb.sh

bench-algo:
	@$(MAKE) -s -C selftests/unit bench

# TCP congestion controls side by side in a guest (KERNEL=6.1|6.12).
bench-tcp:
	@rel=$$(scripts/kernels.sh release $(or $(KERNEL),6.12)) && selftests/bench/cc_bench_tcp.sh $$rel

# The smartt transport against TCP in a guest (KERNEL=6.1|6.12).
bench-transport:
	@rel=$$(scripts/kernels.sh release $(or $(KERNEL),6.12)) && selftests/bench/transport_bench.sh $$rel

# Everything a host-only user needs (README, "Without QEMU"): the fabric's
# BPF programs and controller, smartt-perf, smartt-replay and smartt-delay.
tools:
	@echo "tools: BPF programs and the fabric's controller -> build/bpf/ (make -C bpf)"
	@$(MAKE) -s -C bpf || { echo "tools: the BPF build failed ('make deps' installs clang, bpftool, libbpf-dev)" >&2; exit 1; }
	@echo "tools: smartt-perf, smartt-replay, smartt-delay -> build/userspace/"
	@$(MAKE) -s -C userspace
	@echo "tools: done (userspace/smartt-fabric and userspace/smarttctl run in place)"

# The transport's path selectors side by side in a guest (KERNEL=6.1|6.12).
bench-multipath:
	@rel=$$(scripts/kernels.sh release $(or $(KERNEL),6.12)) && selftests/bench/multipath_bench.sh $$rel

# The BPF congestion controls against the host's own, natively (root).
bench-bpf-cc:
	@$(MAKE) -s -C bpf && selftests/bench/bpf_cc_bench.sh

# libFuzzer over smartt-replay's parser and the cores, FUZZ_SECONDS long.
fuzz:
	@$(MAKE) -s -C selftests/unit fuzz FUZZ_SECONDS=$(or $(FUZZ_SECONDS),30)

# The transport's receive path fuzzed in a guest while transfers run
# (FUZZ_PACKETS=10^6 by default; KERNEL=6.1|6.12, default 6.12).
fuzz-transport:
	@SMARTT_FUZZ_PACKETS=$(or $(FUZZ_PACKETS),1000000) SMARTT_SELFTESTS=smartt_transport_fuzz.sh \
		KERNEL=$(or $(KERNEL),6.12) scripts/check.sh selftests

clean:
	rm -rf build

.PHONY: help modules deps check check-debug unit kunit selftests checkpatch demo install install-dissector dkms dkms-remove deb bench-algo bench-tcp bench-transport bench-multipath bench-bpf-cc tools fuzz fuzz-transport clean
