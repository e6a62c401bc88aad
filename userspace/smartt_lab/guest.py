# SPDX-License-Identifier: GPL-2.0
"""smartt-lab in a QEMU guest ('--where guest'): modes tcg and timewarp.

On the host (GuestRunner): find the Debian kernel of the series, build
smartt.ko for it if it is missing, stage it with its depmod indexes
(scripts/stage-modules.sh, as the selftests do) and boot the guest with
scripts/vm-run.sh, which shares the output directory read-write.  Inside
the guest the same command runs again with the hidden option --guest-moddir
(GuestLab): it installs the staged module, loads the congestion controls
and runs every run of the plan exactly as the host mode does, writing each
run's raw files and result.json into the shared directory.  Back on the
host, summary.csv, meta.json, the plots and report.html are written from
the result.json files that are complete, so that a guest stopped halfway
(Ctrl-C, a timeout) still leaves a consistent partial result.

The guest reports progress as "smartt-lab-progress DONE TOTAL WHAT" lines on
its console; the host turns them into its progress line.
"""
import errno
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import time

from .driver import CLONE_NEWNET, _libc, setns
from . import transport
from .host import PROFILES, HostLab, LabError, TOP, parse_algo, run

VM_RUN = os.path.join(TOP, "scripts", "vm-run.sh")
LAB = os.path.join(TOP, "userspace", "smartt-lab")
PROGRESS = "smartt-lab-progress"
# the module's congestion controls, configured through net.smartt.* in every
# host's namespace; then the kernel's that Debian builds as modules
MODULE_CCS = ("smartt", "strack")
MODPROBE = {"dctcp": "tcp_dctcp", "bbr": "tcp_bbr"}
# One vCPU and 1 GiB: the lab's guests share a 2-core machine with other
# work, and one driver process drives all flows anyway.
VM_CPUS, VM_MEM = "1", "1G"
# Wall-clock allowance of one guest (vm-run's -t): boot and fabric, then per
# run its end_s and the per-run work (fabric reset, the driver's start,
# the counters); time warp runs every busy guest second about 13 times
# slower than the wall clock.
BOOT_S, PER_RUN_S, TIMEWARP_FACTOR = 600, 120, 13


def release(series):
    """The installed Debian release of a kernel series (6.1, 6.12)."""
    r = run([os.path.join(TOP, "scripts", "kernels.sh"), "release", series], timeout=30)
    return r.stdout.strip()


def guest_timeout(exp, nruns, timewarp):
    per = exp["run"]["end_s"] + exp["run"]["lead_ms"] / 1000.0
    if timewarp:
        per *= TIMEWARP_FACTOR
    return int(BOOT_S + nruns * (per + PER_RUN_S))


def vm_command(rel, out, moddir, run_argv, timeout_s, timewarp, environ=None):
    """The command (argv, env) that boots the guest of release rel, shares
    out read-write and runs 'smartt-lab RUN_ARGV --guest-moddir MODDIR' in it."""
    environ = os.environ if environ is None else environ
    # Debian's python3 (the guest imports matplotlib, which wants a
    # writable configuration directory: the root filesystem is read-only)
    argv = [VM_RUN, "-o", out, "-m", environ.get("SMARTT_LAB_VM_MEM", VM_MEM),
            "-t", str(int(timeout_s)), rel, "--",
            "/usr/bin/env", "MPLCONFIGDIR=/tmp", "/usr/bin/python3", LAB]
    argv += list(run_argv) + ["--guest-moddir", moddir]
    env = dict(environ)
    env["SMARTT_VM_TIMEWARP"] = "1" if timewarp else "0"
    env["SMARTT_VM_CPUS"] = environ.get("SMARTT_LAB_VM_CPUS", VM_CPUS)
    return argv, env


def guest_argv(argv, out):
    """The run's own arguments for the guest: --out absolute (the guest sees
    the same path, shared read-write); --htsim is the host's."""
    res, skip = [], False
    for i, x in enumerate(argv):
        if skip:
            skip = False
            continue
        if x in ("--out", "--htsim"):
            skip = True
            continue
        if x.startswith("--out=") or x.startswith("--htsim="):
            continue
        res.append(x)
    return res + ["--out", out]


def parse_progress(line):
    """'smartt-lab-progress 3 14 incast n4 dctcp seed 1' -> (3, 14, 'incast ...')."""
    m = re.match(r"^.*?%s (\d+) (\d+) (.*)$" % PROGRESS, line.rstrip("\r\n"))
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), m.group(3)


def mode_of(console, timewarp):
    """timewarp, tcg or kvm from vm-run's 'booting' line."""
    if timewarp:
        return "timewarp"
    for line in console:
        if line.startswith("vm-run: booting"):
            return "tcg" if "TCG" in line else "kvm"
    return "tcg"


class GuestRunner:
    """On the host: prepare the module, boot the guest, follow it, stop it."""

    def __init__(self, series, out, timewarp, log):
        self.series, self.out, self.timewarp, self.log = series, out, timewarp, log
        self.proc = None
        self.console = []

    def prepare(self):
        if os.geteuid() != 0:
            raise LabError("needs root (QEMU guests, depmod of the staged module)")
        for p in ("build/bpf/smartt-fabric-bpf", "build/bpf/smartt_port.bpf.o"):
            if not os.path.exists(os.path.join(TOP, p)):
                raise LabError("%s missing: make -C bpf" % p)
        self.rel = release(self.series)
        ko = os.path.join(TOP, "build", self.rel, "smartt.ko")
        if not os.path.exists(ko):
            self.log("building smartt.ko for %s" % self.rel)
            run([os.path.join(TOP, "scripts", "build-module.sh"), self.rel], timeout=1800)
        # a private copy, staged with its depmod indexes: the module the
        # guest loads does not change if build/<release>/ is rebuilt meanwhile
        self.moddir = os.path.join(TOP, "build", "lab", self.rel)
        os.makedirs(self.moddir, exist_ok=True)
        shutil.copy2(ko, os.path.join(self.moddir, "smartt.ko"))
        run([os.path.join(TOP, "scripts", "stage-modules.sh"), self.rel, self.moddir],
            timeout=600)
        return self.rel

    def start(self, run_argv, timeout_s):
        argv, env = vm_command(self.rel, self.out, self.moddir, run_argv, timeout_s,
                               self.timewarp)
        self.argv = argv
        self.console_path = os.path.join(self.out, "guest-console.log")
        self.cf = open(self.console_path, "w")
        # its own session: the terminal's Ctrl-C reaches this process only,
        # which then stops the guest's whole process group (stop())
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True, text=True, errors="replace")

    def lines(self):
        """The guest's console, line by line (kept in guest-console.log)."""
        for line in self.proc.stdout:
            self.cf.write(line)
            self.cf.flush()
            self.console.append(line.rstrip("\n"))
            yield line

    def wait(self):
        rc = self.proc.wait()
        self.close()
        return rc

    def close(self):
        for f in (self.proc.stdout, self.cf):
            if f and not f.closed:
                f.close()

    def stop(self):
        """Stop the guest: vm-run and every process under it (timeout(1)
        puts virtme-ng and QEMU in a process group of their own)."""
        if not self.proc:
            return
        for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
            pids = descendants(self.proc.pid)
            if self.proc.poll() is None:
                pids.append(self.proc.pid)
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            t = time.time() + wait
            while time.time() < t and any(alive(p) for p in pids):
                time.sleep(0.2)
                self.proc.poll()
        self.proc.poll()
        self.close()

    def mode(self):
        return mode_of(self.console, self.timewarp)


def descendants(pid):
    """Every live process under pid (from /proc), deepest last."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        for c in kids.get(todo.pop(0), []):
            out.append(c)
            todo.append(c)
    return out


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def install_module(moddir, log, timeout=300):
    """Inside the guest: the staged smartt.ko and depmod indexes into the
    (overlay) /lib/modules, as selftests/run_guest.sh does, then modprobe
    (timeout: seconds for each, None for no limit)."""
    rel = platform.release()
    staged = os.path.join(moddir, "modroot", "lib", "modules", rel)
    if not os.path.isdir(staged):
        raise LabError("%s: no staged module for %s" % (moddir, rel))
    dst = "/lib/modules/%s" % rel
    shutil.copytree(os.path.join(staged, "updates"), os.path.join(dst, "updates"),
                    dirs_exist_ok=True)
    for fn in os.listdir(staged):
        if fn.startswith("modules."):
            shutil.copy(os.path.join(staged, fn), dst)
    run(["modprobe", "smartt"], timeout=timeout)
    run(["modprobe", "sch_fq"], check=False, timeout=timeout)
    try:
        with open("/sys/module/smartt/version") as f:
            version = f.read().strip()
    except OSError:
        version = "unknown"
    log("smartt.ko %s loaded on %s" % (version, rel))
    return version


class GuestLab(HostLab):
    """One experiment inside the guest: the module's congestion controls,
    configured per run through net.smartt.* in every host's namespace."""

    where = "guest"

    def __init__(self, exp, algos, out, log, moddir, mode):
        super().__init__(exp, algos, out, log)
        self.moddir, self.mode = moddir, mode
        if mode == "timewarp":
            # Guest time jumps over the idle waits of the guest for the
            # host (the tree comes over 9p) to its next timer, which may be
            # a command's own timeout: a fabric command that starts Python
            # over 9p then "takes" 120 s in a few wall seconds.  vm-run's
            # allowance bounds the whole guest instead.
            self.cmd_timeout = None

    def setup(self):
        self.module_version = install_module(self.moddir, self.log, self.limit(300))
        for a in self.algos:
            name = parse_algo(a, "guest")[0]
            if name in MODPROBE:
                run(["modprobe", MODPROBE[name]], check=False, timeout=self.limit(120))
        super().setup()

    def prepare_ccs(self, names):
        return []

    def configure_cc(self, name, profile):
        if name == "transport":
            # the transport's SMaRTT and STrack read the same net.smartt.tcp_*
            # values as the TCP ones (the profile is SMARTT_CC's, per socket)
            lb, cc = profile.split(":")
            # none and dctcp read no net.smartt.tcp_* value
            if cc in ("none", "dctcp"):
                return {"transport_lb": lb, "transport_cc": cc}
            if cc == "crp":
                # the senders' and the receivers' CRP knobs, those of the
                # fabric's tables (fabric_args(), transport.crp_knobs())
                knobs = transport.crp_sysctl(self.crp_knobs())
                self.write_sysctls({"transport_crp_knobs": knobs}, ["transport_crp_knobs"])
                return {"transport_lb": lb, "transport_cc": cc, "transport_crp_knobs": knobs}
            vals = self.configure_cc("smartt", cc if cc in PROFILES else None)
            return dict(vals, transport_lb=lb, transport_cc=cc)
        if name not in MODULE_CCS:
            return {}
        vals = self.cc_values(profile)
        # the profile first: the knobs are validated against it
        order = ["tcp_smartt_profile"] + [k for k in vals if k != "tcp_smartt_profile"]
        self.write_sysctls(vals, order)
        return vals

    def write_sysctls(self, vals, order):
        """net.smartt.K = vals[K] for K in order, in every host's namespace."""
        home = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        try:
            for h in sorted(self.hosts):
                setns("/run/netns/" + self.hosts[h]["ns"])
                for k in order:
                    try:
                        with open("/proc/sys/net/smartt/" + k, "w") as f:
                            f.write(vals[k] + "\n")
                    except OSError as e:
                        raise LabError("net.smartt.%s=%r in %s: %s" % (
                            k, vals[k], h, os.strerror(e.errno or errno.EIO)))
        finally:
            _libc.setns(home, CLONE_NEWNET)
            os.close(home)

    def teardown(self):
        # the guest, its fabric and its module go away when it powers off
        self.fabric_up = False
        return []

    def info(self):
        i = super().info()
        i["module"] = self.module_version
        return i


def load_result(rdir):
    """A run's result.json, None if it is missing or incomplete."""
    try:
        with open(os.path.join(rdir, "result.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
