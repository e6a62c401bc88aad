# SPDX-License-Identifier: GPL-2.0
"""smartt-lab on the running kernel: a smartt-fabric fabric, the BPF
congestion controls (or the module's, in a guest), the traffic driver, the
port program's queue samples and counters.

One fabric serves every run of an experiment (the largest case's hosts);
between runs the ports' counters are reset.  What the lab changes on the
system it restores: the congestion controls it loaded are unloaded, their
configuration is set back, the fabric is removed.
"""
import json
import os
import platform
import signal
import subprocess
import sys
import time

from . import config, metrics, transport

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FABRIC = os.path.join(TOP, "userspace", "smartt-fabric")
PORT = 1301

# Host-mode names of the congestion controls: the BPF builds.
HOST_ALIASES = {"smartt": "bpf_smartt", "strack": "bpf_strack", "dctcp": "bpf_dctcp"}
BPF_CCS = ("bpf_smartt", "bpf_strack", "bpf_dctcp")
PROFILES = ("smartt", "smartt-2024", "nscc")
# The configuration each run of a smartt congestion control gets: the port's
# rate, the fabric's base RTT as the network RTT, and whether the flow sees
# trims.  Every profile then sets its own target from these (nscc: 0.75 x
# the network RTT with trimming, 1.0 x without; smartt and smartt-2024:
# 1.5 x the base RTT; Documentation/cc-smartt.rst): the lab overrides no
# target.  TCP's packets are never trimmed (only the transport's DSCPs
# are), so TCP runs have trimming=0 whatever the fabric does.  Experiments
# may override any of it ("cc" in the file); {name} fields are filled in.
CC_DEFAULTS = {
    "tcp_link_mbps": "{rate_mbps}",
    "tcp_base_rtt_us": "0",
    "tcp_mss": "{mss}",
    "tcp_start": "0",
    "tcp_network_rtt_us": "{base_rtt_us}",
    "tcp_smartt_knobs": "trimming=0",
    "tcp_strack_knobs": "",
}
# The lab's earlier configuration (--regime legacy): a target queueing
# delay of Kmin at the port rate, over every profile's own.
CC_LEGACY = dict(CC_DEFAULTS, tcp_network_rtt_us="{kmin_us}",
                 tcp_smartt_knobs="trtt_abs=1 target_qdelay={kmin_ns}")


class LabError(Exception):
    """A runtime failure: one line saying what to do."""


def tool(env, *parts):
    p = os.environ.get(env) or os.path.join(TOP, *parts)
    return p


def run(cmd, check=True, input=None, timeout=120, tries=1):
    """Run cmd; timeout None: wait as long as it takes; tries > 1: run it
    again when it gives no answer in time (for commands that may be
    repeated: the fabric's reset, status and fault clearing)."""
    for left in range(tries - 1, -1, -1):
        try:
            r = subprocess.run(cmd, input=input, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=timeout)
            break
        except FileNotFoundError:
            raise LabError("%s: not found" % cmd[0])
        except subprocess.TimeoutExpired:
            if not left:
                raise LabError("%s: no answer in %d s%s" % (
                    " ".join(cmd[:4]), timeout, " (%d tries)" % tries if tries > 1 else ""))
    if check and r.returncode:
        msg = (r.stderr.strip() or r.stdout.strip()).splitlines()
        raise LabError("%s: %s" % (" ".join(cmd[:3]), msg[-1] if msg else "exit %d" % r.returncode))
    return r


def parse_algo(spec, where):
    """'bpf_smartt:nscc' -> ('bpf_smartt', 'nscc'); host aliases applied.
    The transport's 'transport:LB[:CC]' -> ('transport', 'LB:CC'), guests
    only (the transport is smartt.ko's)."""
    name, _, profile = spec.partition(":")
    if name == "transport":
        if where != "guest":
            raise config.ConfigError("algorithm %r: the transport (IPPROTO_SMARTT) is "
                                     "smartt.ko's: only with --where guest" % spec)
        return name, "%s:%s" % transport.parse_name(spec)
    if where == "host":
        name = HOST_ALIASES.get(name, name)
    elif name in BPF_CCS:
        raise config.ConfigError("algorithm %r: the BPF build is the host's; guests run the "
                                 "module's (%s)" % (spec, name[4:]))
    if profile and profile not in PROFILES:
        raise config.ConfigError("algorithm %r: profile %r: want one of %s"
                                 % (spec, profile, ", ".join(PROFILES)))
    if profile and name not in ("bpf_smartt", "smartt"):
        raise config.ConfigError("algorithm %r: only smartt has profiles" % spec)
    return name, profile or None


def algo_label(name, profile):
    return "%s:%s" % (name, profile) if profile else name


def delay_available():
    """Can the fabric delay packets here: with sch_fq (its EDT backend), or
    with its delay line (the htb+delayline backend: build/userspace/
    smartt-delay, iptables and the kernel's NFQUEUE target)?  Probed on a
    veth pair in a namespace of its own; "fq", "htb+delayline" or None."""
    ns = "sf-lab-probe%d" % os.getpid()
    if run(["ip", "netns", "add", ns], check=False, timeout=30).returncode:
        return None
    try:
        run(["ip", "-n", ns, "link", "add", "p0", "type", "veth", "peer", "name", "p1"],
            timeout=30)
        r = run(["ip", "netns", "exec", ns, "tc", "qdisc", "replace", "dev", "p0", "root",
                 "fq"], check=False, timeout=30)
        if r.returncode == 0:
            return "fq"
        if not os.access(tool("SMARTT_DELAY", "build", "userspace", "smartt-delay"), os.X_OK):
            return None
        for t in ("iptables-legacy-restore", "ip6tables-legacy-restore"):
            r = run(["ip", "netns", "exec", ns, t], input="*raw\n-A PREROUTING -i p1 -j "
                    "NFQUEUE --queue-num 1\nCOMMIT\n", check=False, timeout=30)
            if r.returncode:
                r = run(["ip", "netns", "exec", ns, t.replace("-legacy", "")],
                        input="*raw\n-A PREROUTING -i p1 -j NFQUEUE --queue-num 1\n"
                        "COMMIT\n", check=False, timeout=30)
            if r.returncode:
                return None
        return "htb+delayline"
    except LabError:
        return None
    finally:
        run(["ip", "netns", "del", ns], check=False, timeout=30)


def kernel_series():
    rel = platform.release()
    return ".".join(rel.split(".")[:2])


class CcControl:
    """The BPF congestion controls: load what is missing, configure per run,
    restore at the end."""

    def __init__(self):
        self.bin = tool("SMARTT_CC_BPF", "build", "bpf", "smartt-cc-bpf")
        self.loaded_by_us = []
        self.saved = None

    def status(self):
        return json.loads(run([self.bin, "status", "--json"]).stdout)

    def prepare(self, names):
        if not os.access(self.bin, os.X_OK):
            raise LabError("%s missing: make -C bpf (or set SMARTT_CC_BPF)" % self.bin)
        st = self.status()
        self.saved = dict(st["config"])
        for n in names:
            if not st["congestion_controls"].get(n, {}).get("loaded"):
                r = run([self.bin, "load", n], check=False)
                if r.returncode:
                    msg = (r.stderr.strip() or r.stdout.strip()).splitlines()
                    yield n, msg[-1] if msg else "load failed"
                    continue
                self.loaded_by_us.append(n)

    def configure(self, values):
        args = ["%s=%s" % (k, v) for k, v in values.items()]
        run([self.bin, "set", "bpf_smartt"] + args)

    def restore(self):
        errs = []
        # nothing to restore when nothing was loaded before the run (the
        # configuration goes with the last congestion control unloaded)
        if self.saved:
            try:
                self.configure({k: v for k, v in self.saved.items()})
            except LabError as e:
                errs.append(str(e))
        if self.loaded_by_us:
            r = run([self.bin, "unload"] + self.loaded_by_us, check=False)
            if r.returncode:
                errs.append(r.stderr.strip())
            self.loaded_by_us = []
        return errs


class HostLab:
    """One experiment on this kernel ('native' mode on the host)."""

    mode = "native"
    where = "host"
    # the fabric's commands between runs: seconds to answer (None: no
    # limit, and then none for the setup's commands either: limit())
    cmd_timeout = 120

    def __init__(self, exp, algos, out, log):
        self.exp, self.out, self.log = exp, out, log
        self.name = "lab%d" % (os.getpid() % 100000)
        self.fab = tool("SMARTT_FABRIC", "userspace", "smartt-fabric")
        self.ctl = tool("SMARTT_FABRIC_BPF", "build", "bpf", "smartt-fabric-bpf")
        self.algos = algos
        self.cc = CcControl()
        self.unavailable = {}
        self.fabric_up = False
        self.state = None

    def limit(self, seconds):
        """A command's timeout: seconds, or None (wait as long as it takes)
        where the commands between runs have none (the time warp)."""
        return None if self.cmd_timeout is None else seconds

    # ---------------------------------------------------------- setup

    def fabric_args(self):
        f, d = self.exp["fabric"], self.exp["derived"]
        hosts = max([int(f["hosts"])] + [int(self.exp["cases"][c].get("hosts", 0))
                                         for c in self.exp["case_names"]])
        a = ["--name", self.name, "up", "--hosts", str(hosts),
             "--leaves", str(f.get("leaves", 1)), "--spines", str(f.get("spines", 0)),
             "--rate", "%dbit" % d["rate_bps"], "--buffer", str(d["buffer"]),
             "--kmin", str(d["kmin"]), "--kmax", str(d["kmax"]), "--mtu", str(d["mtu"]),
             "--delay", "%dns" % d["delay_ns"], "--ecn", f.get("ecn", "on"),
             "--trim", f.get("trim", "on")]
        for k in ("uplink_rate", "oversub", "uplink_buffer", "uplink_delay"):
            if f.get(k) is not None:
                a += ["--" + k.replace("_", "-"), str(f[k])]
        if self.uses_crp():
            # the ports keep CRP tables for the whole experiment: the other
            # algorithms' runs cross the same ports, their packets counted
            # as traffic that does not take part
            a += transport.crp_fabric_args(self.crp_knobs())
        return a

    def uses_crp(self):
        """Does an algorithm of the experiment run the transport's cc crp?"""
        return any(transport.parse_name(a)[1] == "crp"
                   for a in self.algos if a.split(":")[0] == "transport")

    def crp_knobs(self):
        d = self.exp["derived"]
        return transport.crp_override(transport.crp_knobs(d["rate_bps"], d["mtu"]),
                                      self.exp.get("crp"))

    def setup(self):
        if os.geteuid() != 0:
            raise LabError("needs root (network namespaces, tc BPF, congestion controls)")
        if not os.access(self.ctl, os.X_OK):
            raise LabError("%s missing: make -C bpf" % self.ctl)
        self.log("fabric %s up (%s hosts)" % (self.name, self.fabric_args()[4]))
        self.fabric_up = True
        run([self.fab] + self.fabric_args(), timeout=self.limit(600))
        self.state = json.loads(run([self.fab, "--name", self.name, "status", "--json"],
                                    timeout=self.limit(120)).stdout)
        self.hosts = {h: {"ns": v["ns"], "ipv4": v["ipv4"], "leaf": v["leaf"]}
                      for h, v in self.state["hosts"].items()}
        self.ports = {p["port"]: p for p in self.state["ports"]}
        self.ifname = {p["ifindex"]: p["port"] for p in self.state["ports"]}
        for n, why in self.prepare_ccs({parse_algo(a, self.where)[0] for a in self.algos}):
            self.unavailable[n] = why
        avail = open("/proc/sys/net/ipv4/tcp_available_congestion_control").read().split()
        for a in self.algos:
            n = parse_algo(a, self.where)[0]
            if n == "transport":
                why = self.transport_missing()
                if why:
                    self.unavailable[n] = why
            elif n not in avail and n not in self.unavailable:
                self.unavailable[n] = "not available on this kernel"

    def transport_missing(self):
        """Why the transport's runs cannot run here (None if they can)."""
        self.perf = transport.perf_binary(TOP)
        if not os.access(self.perf, os.X_OK):
            return "%s missing: make tools" % self.perf
        if not os.path.exists("/proc/net/smartt_stats"):
            return "smartt.ko is not loaded"
        if self.uses_crp() and not os.path.exists("/proc/sys/net/smartt/transport_crp_knobs"):
            return "this smartt.ko has no cc crp (net.smartt.transport_crp_knobs): rebuild it"
        return None

    def prepare_ccs(self, names):
        """Load the BPF congestion controls among names: [(name, why not)]."""
        need = sorted(set(names) & set(BPF_CCS))
        return list(self.cc.prepare(need)) if need else []

    def configure_cc(self, name, profile):
        """Configure name for the next run; its configuration ({} if none)."""
        if name not in BPF_CCS:
            return {}
        vals = self.cc_values(profile)
        self.cc.configure(vals)
        return vals

    def set_hash_seed(self, seed):
        """The switches' ECMP hash seed from the run's seed, where the
        kernel has one (net.ipv4.fib_multipath_hash_seed); None otherwise."""
        if not int(self.exp["fabric"].get("spines", 0)):
            return None
        v = (seed * 2654435761) & 0xffffffff
        done = None
        hosts = {v["ns"] for v in self.hosts.values()}
        for ns in [n for n in self.state.get("namespaces") or [] if n not in hosts]:
            r = run(["ip", "netns", "exec", ns, "sysctl", "-qw",
                     "net.ipv4.fib_multipath_hash_seed=%d" % v], check=False, timeout=30)
            if r.returncode:
                return None
            done = v
        return done

    def teardown(self):
        errs = self.cc.restore()
        if self.fabric_up:
            r = run([self.fab, "--name", self.name, "down"], check=False, timeout=300)
            if r.returncode:
                errs.append(r.stderr.strip())
            self.fabric_up = False
        return errs

    def info(self):
        return {"fabric": self.fabric_args(), "base_rtt_ns": self.state["base_rtt_ns"],
                "leaf_rtt_ns": self.state["leaf_rtt_ns"], "backend": self.state["backend"],
                "kernel": platform.release()}

    # ---------------------------------------------------------- one run

    def cc_values(self, profile):
        d = self.exp["derived"]
        fill = {"rate_mbps": d["rate_bps"] // 10**6, "mss": d["mss"],
                "kmin_ns": d["kmin_ns"], "kmin_us": max(1, d["kmin_ns"] // 1000),
                "base_rtt_us": max(1, self.state["base_rtt_ns"] // 1000)}
        legacy = (self.exp.get("regime_used") or {}).get("name") == "legacy"
        vals = dict(CC_LEGACY if legacy else CC_DEFAULTS)
        vals.update(self.exp.get("cc") or {})
        vals = {k: str(v).format(**fill) for k, v in vals.items()}
        vals["tcp_smartt_profile"] = profile or "smartt"
        return vals

    def drive(self, rdir, res_path, timeout):
        """TCP: the traffic driver (driver.py) in a process of its own."""
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        d = subprocess.run([sys.executable, "-m", "smartt_lab.driver",
                            os.path.join(rdir, "plan.json"), res_path], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
        if d.returncode:
            raise LabError("traffic driver: %s" % (d.stderr.strip().splitlines() or
                                                   ["exit %d" % d.returncode])[-1])

    def run_one(self, case, algo, seed, rdir):
        name, profile = parse_algo(algo, self.where)
        if name in self.unavailable:
            raise LabError("%s: %s" % (name, self.unavailable[name]))
        cc_config = self.configure_cc(name, profile)
        fl = config.flows(self.exp, case, self.hosts, seed)
        r = self.exp["run"]
        lead = r["lead_ms"] / 1000.0
        run([self.fab, "--name", self.name, "reset"], timeout=self.cmd_timeout, tries=3)
        self.hash_seed = self.set_hash_seed(seed)
        # clear faults a previous run's events left
        if self.exp.get("events"):
            for ev in self.exp["events"]:
                run([self.fab, "--name", self.name, "fail", ev["port"], "clear"],
                    timeout=self.cmd_timeout, tries=3)
        pin = "/sys/fs/bpf/smartt-fabric/%s" % self.name
        qpath = os.path.join(rdir, "queue.txt")
        qf = open(qpath, "w")
        sampler = subprocess.Popen([self.ctl, "sample", pin, str(int(r["sample_us"] * 1000))],
                                   stdout=qf, stderr=subprocess.PIPE, text=True)
        try:
            t0 = time.monotonic_ns() + int(lead * 1e9)
            plan = {"t0_mono_ns": t0, "seed": seed, "cc": name, "port": PORT,
                    "bin_ms": r["bin_ms"],
                    "cwnd_ms": r["cwnd_ms"],
                    "cwnd_flows": [f["id"] for f in fl[:int(r["cwnd_flows"])]],
                    "end_s": r["end_s"],
                    "listeners": [{"ns": self.hosts[h]["ns"], "addr": self.hosts[h]["ipv4"]}
                                  for h in sorted({f["dst"] for f in fl})],
                    "flows": [{"id": f["id"], "src_ns": self.hosts[f["src"]]["ns"],
                               "src_addr": self.hosts[f["src"]]["ipv4"],
                               "sport": f.get("sport"),
                               "dst_addr": self.hosts[f["dst"]]["ipv4"], "size": f["size"],
                               "start_s": f["start_s"], "stop_s": f["stop_s"]} for f in fl],
                    "events": [{"t_s": ev["t_s"],
                                "argv": [self.fab, "--name", self.name, "fail", ev["port"]]
                                + ev["fault"].split()} for ev in self.exp.get("events", [])]}
            res_path = os.path.join(rdir, "driver.json")
            if name == "transport":
                plan["lb"], plan["cc"] = profile.split(":")
                try:
                    res = transport.run(plan, rdir, self.hosts, self.perf)
                except (OSError, config.ConfigError) as e:
                    raise LabError("transport traffic: %s" % e)
                errs = [f["error"] for f in res["flows"] if f["error"]]
                if errs and not any(f["rx"] for f in res["flows"]):
                    # nothing arrived: the run measured no transport
                    raise LabError("transport traffic: every flow failed: %s" % errs[0])
                with open(res_path, "w") as f:
                    json.dump(res, f)
            else:
                with open(os.path.join(rdir, "plan.json"), "w") as f:
                    json.dump(plan, f)
                self.drive(rdir, res_path, self.cmd_timeout and r["end_s"] + lead + 120)
        finally:
            sampler.send_signal(signal.SIGINT)
            try:
                _, serr = sampler.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                sampler.kill()
                serr = ""
            qf.close()
        with open(res_path) as f:
            res = json.load(f)
        stats = json.loads(run([self.fab, "--name", self.name, "status", "--json"],
                               timeout=self.cmd_timeout, tries=3).stdout)
        with open(os.path.join(rdir, "ports.json"), "w") as f:
            json.dump(stats["ports"], f)
        if stats.get("delayline"):
            # the delay line's counters and lateness since the fabric came
            # up (Documentation/fabric.rst, "The delay line")
            with open(os.path.join(rdir, "delayline.json"), "w") as f:
                json.dump(stats["delayline"], f)
        lost = 0
        for line in (serr or "").splitlines():
            if line.startswith("# samples"):
                lost = int(line.split()[-1])
        queue = read_queue(qpath, t0, self.ifname)
        return {"flows": fl, "driver": res, "ports": stats["ports"], "queue": queue,
                "samples_lost": lost, "t0": t0, "cc": name, "profile": profile,
                "delayline": stats.get("delayline"),
                "cc_config": cc_config}


def read_queue(path, t0, ifname):
    """{port: [(t_s, bytes)]} from the sampler's lines, times from t0."""
    out = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) != 3:
                continue
            t = (int(p[0]) - t0) / 1e9
            if t < -1.0:
                continue
            port = ifname.get(int(p[1]), p[1])
            out.setdefault(port, []).append((t, int(p[2])))
    for v in out.values():
        v.sort()
    return out
