# SPDX-License-Identifier: GPL-2.0
"""smartt-lab's experiment files and traffic patterns.

An experiment is one JSON file in smartt_lab/experiments/ (or any path
given to 'run'): the fabric, the traffic, the algorithms, the run's timing.
Everything here is pure (no system access) so that it can be tested:
load() validates a file and resolves --quick; flows() turns a case of the
traffic into the list of flows of one run (deterministic per seed).
"""
import json
import os
import random
import re

from . import metrics

EXP_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "experiments")

PATTERNS = ("incast", "permutation", "all_to_all", "explicit", "websearch", "hotspot")
FABRIC_KEYS = ("hosts", "leaves", "spines", "rate", "uplink_rate", "oversub", "delay",
               "uplink_delay", "buffer", "uplink_buffer", "kmin", "kmax", "mtu", "ecn", "trim")
RUN_KEYS = ("end_s", "bin_ms", "cwnd_ms", "cwnd_flows", "sample_us", "lead_ms")
TOP_KEYS = ("name", "title", "description", "papers", "where", "fabric", "traffic", "run",
            "algos", "seeds", "quick", "queue_ports", "events", "cc", "guest", "crp", "regime",
            "claims")
# Seeds of a run: the experiment's "seeds" is the full run's (default
# SEEDS_FULL); --quick runs SEEDS_QUICK.
SEEDS_FULL, SEEDS_QUICK = 10, 3
# Source ports of the TCP flows (the ECMP hash's input): drawn per seed
SPORT_LO, SPORT_HI = 20000, 60000
RUN_DEFAULTS = {"end_s": 20.0, "bin_ms": 5.0, "cwnd_ms": 2.0, "cwnd_flows": 4,
                "sample_us": 20.0, "lead_ms": 300.0}

_RATE = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_SIZE = {"": 1, "b": 1, "k": 1024, "kib": 1024, "m": 1024**2, "mib": 1024**2,
         "g": 1024**3, "gib": 1024**3, "kb": 1000, "mb": 10**6}
_TIME = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}


class ConfigError(Exception):
    """A bad experiment file or option: the message names what and where."""


def parse_rate(s):
    """'400mbit', '1g', '5000000' -> bit/s."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)(?:bit)?\s*", str(s).lower())
    if not m:
        raise ConfigError("not a rate: %r (want e.g. 400mbit, 1gbit)" % (s,))
    v = int(float(m.group(1)) * _RATE[m.group(2)])
    if v < 1000:
        raise ConfigError("rate %r below 1 kbit/s" % (s,))
    return v


def parse_size(s):
    """'64k', '1M', '1MB', '150000' -> bytes (k, M: powers of 1024; kB, MB: of 1000)."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*", str(s).lower())
    if not m or m.group(2) not in _SIZE:
        raise ConfigError("not a size: %r (want e.g. 1M, 64k, 150000)" % (s,))
    return int(float(m.group(1)) * _SIZE[m.group(2)])


def parse_time(s):
    """'10us', '1ms', '0' -> ns; a bare number is ns."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(ns|us|ms|s)?\s*", str(s).lower())
    if not m:
        raise ConfigError("not a time: %r (want e.g. 0, 10us, 1ms)" % (s,))
    return int(float(m.group(1)) * _TIME[m.group(2) or "ns"])


def threshold(spec, buffer):
    """Kmin/Kmax: 'P%' of the buffer or a size."""
    s = str(spec).strip()
    if s.endswith("%"):
        try:
            p = float(s[:-1])
        except ValueError:
            raise ConfigError("not a percentage: %r" % spec)
        if not 0 <= p <= 100:
            raise ConfigError("percentage %r outside 0..100" % spec)
        return int(buffer * p / 100)
    return parse_size(s)


def merge(base, over):
    """Recursive dict merge: over's values win, dicts merge."""
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = v
    return out


def list_experiments(d=EXP_DIR):
    out = []
    for fn in sorted(os.listdir(d)):
        if fn.endswith(".json"):
            out.append(os.path.join(d, fn))
    return out


def find(name, d=EXP_DIR):
    """An experiment by name (a file in d) or by path."""
    if os.sep in name or name.endswith(".json"):
        if not os.path.isfile(name):
            raise ConfigError("%s: no such experiment file" % name)
        return name
    path = os.path.join(d, name + ".json")
    if not os.path.isfile(path):
        names = [os.path.basename(p)[:-5] for p in list_experiments(d)]
        raise ConfigError("no experiment %r: want one of %s (smartt-lab list)"
                          % (name, ", ".join(names)))
    return path


def load(path, quick=False, guest=False):
    """Read, resolve --quick (and the guest sizes with guest) and validate an
    experiment file."""
    try:
        with open(path) as f:
            exp = json.load(f)
    except ValueError as e:
        raise ConfigError("%s: not valid JSON: %s" % (path, e))
    except OSError as e:
        raise ConfigError("%s: cannot read it: %s" % (path, e.strerror))
    return resolve(exp, quick, path, guest)


def resolve(exp, quick=False, where="experiment", guest=False):
    """guest: apply the file's "guest" overrides (the sizes a QEMU guest
    runs at: slower links, fewer hosts), then their own "quick"; the case
    list is the first of guest.quick.cases, guest.cases, quick.cases."""
    if not isinstance(exp, dict):
        raise ConfigError("%s: want a JSON object" % where)
    for k in exp:
        if k not in TOP_KEYS:
            raise ConfigError("%s: unknown key %r: want one of %s" % (where, k, ", ".join(TOP_KEYS)))
    for k in ("name", "fabric", "traffic", "algos"):
        if k not in exp:
            raise ConfigError("%s: missing %r" % (where, k))
    q = exp.get("quick", {})
    g = exp.get("guest") or {}
    if not isinstance(g, dict) or "guest" in g or "quick" in g.get("quick", {}):
        raise ConfigError("%s: guest: want an object of overrides (and its own \"quick\")"
                          % where)
    gq = g.get("quick", {})
    if quick and q:
        exp = merge(exp, {k: v for k, v in q.items() if k != "cases"})
    if guest and g:
        exp = merge(exp, {k: v for k, v in g.items() if k not in ("cases", "quick")})
        if quick and gq:
            exp = merge(exp, {k: v for k, v in gq.items() if k != "cases"})
    exp = dict(exp)
    exp["run"] = merge(RUN_DEFAULTS, exp.get("run", {}))
    for k in exp["run"]:
        if k not in RUN_KEYS:
            raise ConfigError("%s: run: unknown key %r: want one of %s"
                              % (where, k, ", ".join(RUN_KEYS)))
    for k in exp["fabric"]:
        if k not in FABRIC_KEYS:
            raise ConfigError("%s: fabric: unknown key %r: want one of %s"
                              % (where, k, ", ".join(FABRIC_KEYS)))
    fab = exp["fabric"]
    for k in ("hosts", "rate", "buffer", "kmin", "kmax", "mtu"):
        if k not in fab:
            raise ConfigError("%s: fabric: missing %r (the lab passes every setting "
                              "explicitly)" % (where, k))
    rate = parse_rate(fab["rate"])
    buf = parse_size(fab["buffer"])
    kmin, kmax = threshold(fab["kmin"], buf), threshold(fab["kmax"], buf)
    if not kmin <= kmax <= buf:
        raise ConfigError("%s: fabric: want kmin <= kmax <= buffer" % where)
    mtu = int(fab["mtu"])
    if not 1280 <= mtu <= 65000:
        raise ConfigError("%s: fabric: mtu %r outside 1280..65000" % (where, fab["mtu"]))
    exp["derived"] = {"rate_bps": rate, "buffer": buf, "kmin": kmin, "kmax": kmax,
                      "mtu": mtu, "delay_ns": parse_time(fab.get("delay", 0)),
                      # TCP over IPv4 with timestamps: 40 + 12 header bytes,
                      # 14 of Ethernet on the wire
                      "mss": mtu - 52, "overhead": 52 + 14,
                      "kmin_ns": kmin * 8 * 10**9 // rate}
    tr = exp["traffic"]
    if tr.get("pattern") not in PATTERNS:
        raise ConfigError("%s: traffic: pattern %r: want one of %s"
                          % (where, tr.get("pattern"), ", ".join(PATTERNS)))
    cases = tr.get("cases") or {"all": {}}
    if not isinstance(cases, dict):
        raise ConfigError("%s: traffic: cases must be an object" % where)
    names = list(cases)
    for on, what, sel in ((guest and quick, "guest: quick", gq.get("cases")),
                          (guest, "guest", g.get("cases")), (quick, "quick", q.get("cases"))):
        if on and sel:
            bad = [c for c in sel if c not in cases]
            if bad:
                raise ConfigError("%s: %s: unknown cases %s" % (where, what, ", ".join(bad)))
            names = list(sel)
            break
    exp["case_names"] = names
    exp["cases"] = cases
    for c in names:
        t = case_traffic(exp, c)
        for k in ("size", "max_size"):
            if k in t:
                parse_size(t[k])
    algos = exp["algos"]
    if not isinstance(algos, dict) or not any(algos.values()):
        raise ConfigError("%s: algos: want {\"host\": [...], \"guest\": [...]}" % where)
    seeds = exp.get("seeds", SEEDS_FULL)
    if not isinstance(seeds, int) or seeds < 1:
        raise ConfigError("%s: seeds: want an integer >= 1" % where)
    if exp.get("regime") is not None:
        from . import regime
        exp["regime"] = regime.validate(exp["regime"], "%s: regime" % where)
    if exp.get("claims") is not None:
        from . import claims
        claims.validate(exp["claims"], "%s: claims" % where)
    for ev in exp.get("events") or []:
        if not {"t_s", "port", "fault"} <= set(ev):
            raise ConfigError("%s: events: want {\"t_s\", \"port\", \"fault\"}" % where)
    return exp


def source_ports(exp, case, seed, flows):
    """A distinct source port per flow of a host, drawn from the seed: the
    same seed gives every algorithm the same ports (and so, with the
    fabric's hash seed, the same ECMP paths)."""
    rng = random.Random("sport %s %s %d" % (exp["name"], case, seed))
    by = {}
    for f in flows:
        by.setdefault(f["src"], []).append(f)
    for h, fs in sorted(by.items()):
        for f, p in zip(fs, rng.sample(range(SPORT_LO, SPORT_HI), len(fs))):
            f["sport"] = p
    return flows


def case_traffic(exp, case):
    t = {k: v for k, v in exp["traffic"].items() if k != "cases"}
    t.update(exp["cases"].get(case, {}))
    return t


def host_sort(hosts):
    return sorted(hosts, key=lambda h: int(h[1:]))


def flows(exp, case, hosts, seed):
    """The flows of one run: [{"id", "src", "dst", "size", "start_s",
    "stop_s", "sport"}].  hosts: {name: {"leaf": leaf}}; deterministic per
    seed: every random choice (start jitter, permutations, sizes, arrival
    times, source ports) is drawn from generators seeded by it."""
    t = case_traffic(exp, case)
    rng = random.Random(seed * 7919 + sum(map(ord, exp["name"] + case)))
    names = host_sort(hosts)
    pat = t["pattern"]
    size = parse_size(t.get("size", 0))
    out = []

    def add(src, dst, sz, start=0.0, stop=None, role=None):
        f = {"id": len(out), "src": src, "dst": dst, "size": sz, "start_s": round(start, 6),
             "stop_s": stop}
        if role:
            f["role"] = role
        out.append(f)

    if pat == "incast":
        n = int(t["senders"])
        recv = t.get("receiver", names[0])
        senders = [h for h in names if h != recv][:n]
        if len(senders) < n:
            raise ConfigError("incast of %d senders needs %d hosts" % (n, n + 1))
        jitter = float(t.get("jitter_us", 0)) / 1e6
        for h in senders:
            add(h, recv, size, rng.uniform(0, jitter) if jitter else 0.0)
    elif pat == "permutation":
        for src, dst in permutation(names, hosts, rng, t.get("cross_leaf", False)):
            add(src, dst, size)
    elif pat == "all_to_all":
        jitter = float(t.get("jitter_us", 0)) / 1e6
        for src in names:
            for dst in names:
                if src != dst:
                    add(src, dst, size, rng.uniform(0, jitter) if jitter else 0.0)
    elif pat == "explicit":
        for f in t["flows"]:
            add(f["src"], f["dst"], parse_size(f.get("size", 0)), float(f.get("start_s", 0)),
                f.get("stop_s"), f.get("role"))
    elif pat == "websearch":
        cdf = t["cdf"]
        load = float(t["load"])
        dur = float(t["duration_s"])
        cap = parse_size(t["max_size"]) if "max_size" in t else None
        rate = exp["derived"]["rate_bps"]
        sizes = [min(int(metrics.sample_cdf(cdf, rng.random())), cap or 1 << 62)
                 for _ in range(4096)]
        mean = sum(max(s, 1) for s in sizes) / len(sizes)
        lam = load * rate / (8.0 * mean)     # flows per second per sender
        for src, dst in permutation(names, hosts, rng, False):
            if t.get("background"):
                add(src, dst, 0, 0.0, dur, "background")
        for src in names:
            tt = rng.expovariate(lam)
            while tt < dur:
                dst = rng.choice([h for h in names if h != src])
                sz = max(1, min(int(metrics.sample_cdf(cdf, rng.random())), cap or 1 << 62))
                add(src, dst, sz, tt, None, "short")
                tt += rng.expovariate(lam)
    elif pat == "hotspot":
        dur = float(t["duration_s"])
        t_hot = float(t["t_hot_s"])
        hot = t.get("receiver", names[0])
        others = [h for h in names if h != hot]
        bg = [(s, d) for s, d in permutation(others, hosts, rng, t.get("cross_leaf", False))]
        for src, dst in bg:
            add(src, dst, 0, 0.0, dur, "background")
        nh = int(t["senders"])
        for src in rng.sample(others, nh):
            add(src, hot, 0, t_hot, dur, "hotspot")
    return source_ports(exp, case, seed, out)


def permutation(names, hosts, rng, cross_leaf):
    """A random derangement of names (every host sends to one other and
    receives from one); cross_leaf: every pair crosses the spine layer."""
    for _ in range(1000):
        dst = names[:]
        rng.shuffle(dst)
        if all(s != d and (not cross_leaf or hosts[s]["leaf"] != hosts[d]["leaf"])
               for s, d in zip(names, dst)):
            return list(zip(names, dst))
    raise ConfigError("no permutation of %d hosts with the constraints" % len(names))
