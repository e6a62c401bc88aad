# SPDX-License-Identifier: GPL-2.0
"""smartt-lab's regimes: an experiment's fabric in dimensionless terms, and
the link rate, per-link delay, buffer and ECN thresholds that give it where
the lab runs.

The papers and the UEC simulator run at 100-400 Gbit/s with 4 KB MTUs and
base RTTs of 8-14 us: a BDP of 25-40 MTUs, a buffer of about 1 BDP with
trimming, ECN thresholds at 0.2 and 0.8 BDP.  An emulator cannot run at
that rate, but it can keep the ratios: an experiment's "regime" states

  bdp_mtus      the BDP of the longest path in MTUs (at least 16)
  buffer_bdp    the switch ports' buffer in BDPs (1: the papers', trimming)
  droptail_buffer_bdp  the buffer of the drop-tail variant (no trimming)
  kmin_bdp, kmax_bdp   RED/ECN thresholds in BDPs
  oversub       leaf-spine oversubscription (1: none)
  rate          {"host": RATE, "guest": RATE, "timewarp": RATE}: the host
                link rate the emulator sustains where it runs

and derive() turns that into the fabric of one place: the per-link delay
that makes the base RTT long enough for bdp_mtus at that rate, with the
base RTT computed as smartt-fabric computes it (the UEC reference's
calculate_rtt: per hop, propagation both ways plus one MTU frame forward
and one ACK frame back).

Regimes by name: "papers" (the default where an experiment has a regime),
"droptail" (the same fabric, trimming off, the drop-tail buffer) and
"legacy" (the experiment's "fabric" as written: the lab's earlier regime,
without link delay).  Pure: no system access.
"""
import math

from . import config

NAMES = ("papers", "droptail", "legacy")
WHERES = ("host", "guest", "timewarp")
# smartt-fabric's frame and ACK frame sizes (Ethernet + IP + TCP options):
# the base RTT below is the fabric's own formula
ETH_HLEN = 14
ACK_FRAME = 14 + 40 + 8 + 32 + 4
# The smallest BDP the lab accepts in the papers' regime, in MTUs.
MIN_BDP_MTUS = 16
KEYS = ("bdp_mtus", "buffer_bdp", "droptail_buffer_bdp", "kmin_bdp", "kmax_bdp", "oversub",
        "rate")
DEFAULTS = {"bdp_mtus": MIN_BDP_MTUS, "buffer_bdp": 1.0, "droptail_buffer_bdp": 5.0,
            "kmin_bdp": 0.2, "kmax_bdp": 0.8, "oversub": 1}
# CSV columns of DIR/regime.csv
COLUMNS = ("experiment", "case", "where", "mode", "link_rate_bps", "base_rtt_us", "mtu_bytes",
           "bdp_bytes", "buffer_bytes", "kmin_bytes", "kmax_bytes", "trimming")


def validate(spec, where="regime"):
    """Check an experiment's "regime" object; returns it with defaults."""
    if not isinstance(spec, dict):
        raise config.ConfigError("%s: want an object" % where)
    for k in spec:
        if k not in KEYS:
            raise config.ConfigError("%s: unknown key %r: want one of %s"
                                     % (where, k, ", ".join(KEYS)))
    out = dict(DEFAULTS)
    out.update(spec)
    for k in ("bdp_mtus", "buffer_bdp", "droptail_buffer_bdp", "kmin_bdp", "kmax_bdp",
              "oversub"):
        v = out[k]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
            raise config.ConfigError("%s: %s: want a positive number, not %r" % (where, k, v))
    if out["bdp_mtus"] < MIN_BDP_MTUS:
        raise config.ConfigError("%s: bdp_mtus %r: the papers' regime wants at least %d"
                                 % (where, out["bdp_mtus"], MIN_BDP_MTUS))
    if not out["kmin_bdp"] <= out["kmax_bdp"] <= out["buffer_bdp"]:
        raise config.ConfigError("%s: want kmin_bdp <= kmax_bdp <= buffer_bdp" % where)
    if out["oversub"] < 1:
        raise config.ConfigError("%s: oversub: want >= 1" % where)
    rate = out.get("rate")
    if not isinstance(rate, dict) or "host" not in rate:
        raise config.ConfigError("%s: rate: want {\"host\": RATE, \"guest\": RATE, "
                                 "\"timewarp\": RATE}" % where)
    for w, r in rate.items():
        if w not in WHERES:
            raise config.ConfigError("%s: rate: unknown place %r: want %s"
                                     % (where, w, ", ".join(WHERES)))
        config.parse_rate(r)
    return out


def hop_rates(rate, up_rate, spines):
    """The link rates of the longest path, host to host."""
    return [rate, up_rate, up_rate, rate] if spines else [rate, rate]


def path_rtt_ns(rates, delay_ns, mtu):
    """Base RTT (ns) of a path whose links run at rates, each delay_ns of
    propagation: smartt-fabric's formula."""
    frame = mtu + ETH_HLEN
    return sum(2 * delay_ns + frame * 8 * 10**9 // r + ACK_FRAME * 8 * 10**9 // r
               for r in rates)


def uplink_rate(rate, hosts, leaves, spines, oversub):
    """smartt-fabric's --oversub: rate x hosts per leaf / (spines x X)."""
    if not spines:
        return rate
    return int(rate * (hosts // leaves) / (spines * oversub))


def place(where, timewarp=False):
    """The regime's place: host, guest or timewarp."""
    if where == "host":
        return "host"
    return "timewarp" if timewarp else "guest"


def derive(spec, fabric, where, name="papers"):
    """The fabric of one place ("host", "guest", "timewarp") in regime name
    ("papers" or "droptail"): {rate_bps, up_rate_bps, delay_ns, base_rtt_ns,
    mtu, bdp, buffer, up_buffer, kmin, kmax, trimming, bdp_mtus}.

    The per-link delay is the smallest whole microsecond that makes the BDP
    of the longest path (at the host link rate) at least bdp_mtus MTUs."""
    if name not in ("papers", "droptail"):
        raise config.ConfigError("regime %r: derive() knows papers and droptail" % name)
    spec = validate(spec)
    rates = spec["rate"]
    r = rates.get(where) or (rates.get("guest") if where == "timewarp" else None)
    if r is None:
        raise config.ConfigError("regime: rate: nothing for %r" % where)
    rate = config.parse_rate(r)
    mtu = int(fabric["mtu"])
    hosts, leaves = int(fabric["hosts"]), int(fabric.get("leaves", 1))
    spines = int(fabric.get("spines", 0))
    up = uplink_rate(rate, hosts, leaves, spines, spec["oversub"])
    hops = hop_rates(rate, up, spines)
    want_ns = math.ceil(spec["bdp_mtus"] * mtu * 8 * 10**9 / rate)
    fixed = path_rtt_ns(hops, 0, mtu)
    delay = 0
    if want_ns > fixed:
        # whole microseconds, rounded up: the BDP is never below the target
        delay = int(math.ceil((want_ns - fixed) / (2.0 * len(hops)) / 1000.0)) * 1000
    rtt = path_rtt_ns(hops, delay, mtu)
    bdp = rate * rtt // (8 * 10**9)
    up_bdp = up * rtt // (8 * 10**9)
    buf_bdp = spec["buffer_bdp"] if name == "papers" else spec["droptail_buffer_bdp"]
    return {"rate_bps": rate, "up_rate_bps": up, "delay_ns": delay, "base_rtt_ns": rtt,
            "mtu": mtu, "bdp": bdp, "buffer": int(round(buf_bdp * bdp)),
            "up_buffer": int(round(buf_bdp * up_bdp)),
            "kmin": int(round(spec["kmin_bdp"] * bdp)), "kmax": int(round(spec["kmax_bdp"] * bdp)),
            "kmin_pct": 100.0 * spec["kmin_bdp"] / buf_bdp,
            "kmax_pct": 100.0 * spec["kmax_bdp"] / buf_bdp,
            "trimming": name == "papers", "bdp_mtus": bdp / float(mtu),
            "oversub": spec["oversub"]}


def legacy(exp):
    """The legacy regime's numbers (the experiment's "fabric" as written)
    in derive()'s form, the base RTT by the same formula."""
    f, d = exp["fabric"], exp["derived"]
    rate = d["rate_bps"]
    hosts, leaves = int(f["hosts"]), int(f.get("leaves", 1))
    spines = int(f.get("spines", 0))
    if f.get("uplink_rate") is not None:
        up = config.parse_rate(f["uplink_rate"])
    elif f.get("oversub") is not None:
        up = uplink_rate(rate, hosts, leaves, spines, float(f["oversub"]))
    else:
        up = rate
    rtt = path_rtt_ns(hop_rates(rate, up, spines), d["delay_ns"], d["mtu"])
    bdp = rate * rtt // (8 * 10**9)
    return {"rate_bps": rate, "up_rate_bps": up, "delay_ns": d["delay_ns"], "base_rtt_ns": rtt,
            "mtu": d["mtu"], "bdp": bdp, "buffer": d["buffer"], "up_buffer": None,
            "kmin": d["kmin"], "kmax": d["kmax"], "trimming": f.get("trim", "on") == "on",
            "bdp_mtus": bdp / float(d["mtu"]), "oversub": f.get("oversub")}


def apply(exp, where, name, timewarp=False):
    """Set exp's fabric and derived values to regime name for where
    ("host" or "guest"); returns the regime's numbers (derive()'s form).
    An experiment without a "regime" only has the legacy one."""
    if name not in NAMES:
        raise config.ConfigError("regime %r: want one of %s" % (name, ", ".join(NAMES)))
    if name == "legacy":
        g = legacy(exp)
        g["name"] = "legacy"
        exp["regime_used"] = g
        return g
    if not exp.get("regime"):
        raise config.ConfigError("experiment %s has no \"regime\": only --regime legacy"
                                 % exp["name"])
    g = derive(exp["regime"], exp["fabric"], place(where, timewarp), name)
    g["name"] = name
    f = dict(exp["fabric"])
    for k in ("uplink_rate", "uplink_delay", "uplink_buffer", "oversub"):
        f.pop(k, None)
    f.update({"rate": "%dbit" % g["rate_bps"], "delay": "%dns" % g["delay_ns"],
              "buffer": str(g["buffer"]), "kmin": "%.6g%%" % g["kmin_pct"],
              "kmax": "%.6g%%" % g["kmax_pct"], "trim": "on" if g["trimming"] else "off"})
    if int(f.get("spines", 0)):
        f["uplink_buffer"] = str(g["up_buffer"])
        if g["oversub"] != 1:
            f["oversub"] = "%g" % g["oversub"]
    exp["fabric"] = f
    d = exp["derived"]
    d.update({"rate_bps": g["rate_bps"], "buffer": g["buffer"], "kmin": g["kmin"],
              "kmax": g["kmax"], "delay_ns": g["delay_ns"],
              "kmin_ns": g["kmin"] * 8 * 10**9 // g["rate_bps"]})
    exp["regime_used"] = g
    return g


def csv_row(exp_name, case, where, mode, g):
    """One row of regime.csv (COLUMNS) from apply()'s numbers."""
    return [exp_name, case, where, mode, g["rate_bps"], "%.3f" % (g["base_rtt_ns"] / 1000.0),
            g["mtu"], g["bdp"], g["buffer"], g["kmin"], g["kmax"], int(bool(g["trimming"]))]
