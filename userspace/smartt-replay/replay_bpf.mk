# SPDX-License-Identifier: GPL-2.0
#
# smartt-replay --bpf for the makefiles that link replay_bpf.c
# (userspace/Makefile, selftests/unit/Makefile): the skeleton of
# bpf/smartt_replay.bpf.c, built by bpf/Makefile, and libbpf.  It takes
# clang, bpftool, libbpf and the kernel's BTF (for vmlinux.h) to build;
# without one of them replay_bpf.c is built as a stub whose --bpf names
# what was missing, and the unit tests skip their BPF runs saying so.
#
# Expects TOP; defines REPLAY_BPF_CFLAGS, REPLAY_BPF_LIBS and
# REPLAY_BPF_DEPS (the skeleton, made by bpf/Makefile on every build).

REPLAY_BPF_SKEL	:= $(TOP)/build/bpf/smartt_replay.skel.h
REPLAY_BPF_BTF	?= /sys/kernel/btf/vmlinux
REPLAY_BPF_MISSING := $(strip \
	$(if $(shell command -v clang),,clang) \
	$(if $(shell command -v bpftool),,bpftool) \
	$(if $(wildcard /usr/include/bpf/libbpf.h /usr/local/include/bpf/libbpf.h),,libbpf-dev) \
	$(if $(wildcard $(REPLAY_BPF_BTF) $(TOP)/build/bpf/vmlinux.h),,the kernel BTF $(REPLAY_BPF_BTF)))

ifeq ($(REPLAY_BPF_MISSING),)
# the same digest of kernel/algo/ as bpf/Makefile records in the object
REPLAY_BPF_ALGO := $(shell cat $(sort $(wildcard $(TOP)/kernel/algo/*.c $(TOP)/kernel/algo/*.h)) | \
	sha1sum | cut -c1-16)
REPLAY_BPF_CFLAGS := -I$(TOP)/bpf -I$(TOP)/build/bpf -DSMARTT_REPLAY_ALGO='"$(REPLAY_BPF_ALGO)"'
REPLAY_BPF_LIBS := -lbpf -lelf -lz
REPLAY_BPF_DEPS := $(REPLAY_BPF_SKEL)

# bpf/Makefile knows what the object depends on; the skeleton's time stamp
# only changes when it rebuilds it.
$(REPLAY_BPF_SKEL): replay-bpf-force
	@$(MAKE) -s -C $(TOP)/bpf $@

replay-bpf-force:
.PHONY: replay-bpf-force
else
REPLAY_BPF_CFLAGS := -I$(TOP)/bpf '-DREPLAY_NO_BPF="$(REPLAY_BPF_MISSING) missing at build time"'
REPLAY_BPF_LIBS :=
REPLAY_BPF_DEPS :=
endif
