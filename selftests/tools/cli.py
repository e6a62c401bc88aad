#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every tool driven with bad inputs (and a few good ones): the exit status
is the documented one (0 ok, 1 runtime error, 2 usage error), an error is
one line on stderr naming the tool, no traceback ever, --json is exactly one
JSON document on stdout, --version prints the tree's VERSION, and a reader
that goes away ends the output quietly.  One TAP line per case.

    cli.py [TOP]

Cases that need a fabric (root, the BPF controller built) run against one
named after this process; without root they are skipped with the reason.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), "..", ".."))
SF = os.path.join(TOP, "userspace/smartt-fabric")
CTL = os.path.join(TOP, "userspace/smarttctl")
PERF = os.path.join(TOP, "build/userspace/smartt-perf")
REPLAY = os.path.join(TOP, "build/userspace/smartt-replay")
LAB = os.path.join(TOP, "userspace/smartt-lab")
with open(os.path.join(TOP, "VERSION")) as f:
    VERSION = f.read().strip()
NAME = "c%d" % (os.getpid() % 10**6)
ROOT = os.geteuid() == 0
n = 0
failed = 0


def tap(ok, desc, diag=()):
    global n, failed
    n += 1
    for d in diag:
        for line in str(d).splitlines() or [""]:
            print("# " + line)
    if ok is None:
        print("ok %d %s # SKIP %s" % (n, desc, diag[-1] if diag else ""))
    else:
        print("%s %d %s" % ("ok" if ok else "not ok", n, desc))
        failed += not ok
    sys.stdout.flush()


def run(argv, env=None, stdin=None, timeout=120, shell=False):
    e = dict(os.environ)
    e.update(env or {})
    try:
        r = subprocess.run(argv, env=e, input=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=timeout, shell=shell)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as x:
        return "timeout", x.stdout or "", x.stderr or ""


def prog_of(argv):
    return os.path.basename(argv[0] if isinstance(argv, list) else argv.split()[0])


def expect(desc, argv, rc, err_re=None, out=None, env=None, stdin=None, one_line=True,
           timeout=120, prog=None):
    """Run argv; check rc, no traceback, a one-line error naming the tool,
    err_re on stderr, out(stdout) -> bool."""
    got, so, se = run(argv, env=env, stdin=stdin, timeout=timeout)
    why = []
    if got != rc:
        why.append("exit status %s, want %s" % (got, rc))
    if "Traceback" in se or "Traceback" in so:
        why.append("a traceback")
    lines = [x for x in se.splitlines() if x.strip()]
    if rc in (1, 2) and one_line:
        if len(lines) != 1:
            why.append("stderr has %d lines, want one" % len(lines))
        elif not lines[0].startswith((prog or prog_of(argv)) + ":"):
            why.append("the error does not start with '%s:'" % (prog or prog_of(argv)))
    if err_re and not re.search(err_re, se):
        why.append("stderr does not match %r" % err_re)
    if out is not None and not why:
        try:
            ok = out(so)
        except Exception as e:   # a check that cannot read the output fails
            ok = False
            why.append("output check: %s: %s" % (type(e).__name__, e))
        if not ok:
            why.append("stdout is not as expected")
    diag = []
    if why:
        diag = ["$ " + " ".join(argv), "stdout: " + so[-1500:], "stderr: " + se[-1500:]] + why
    tap(not why, desc, diag)
    return so, se


def one_json(text):
    json.loads(text)    # raises on anything but exactly one document
    return True


def usage_cases():
    """Bad inputs that need neither root nor a fabric: exit 2."""
    sf = [SF]
    for args, rx in (
            (["up", "--oversub", "abc"], r"--oversub abc: want a ratio"),
            (["up", "--rate", "1000tbit"], r"--rate 1000tbit: above 16 Tbit/s"),
            (["up", "--rate", "abc"], r"--rate abc: not a rate"),
            (["up", "--hosts", "1000000"], r"--hosts 1000000: "),
            (["up", "--hosts", "0"], r"--hosts 0: "),
            (["up", "--hosts", "3", "--leaves", "2", "--spines", "1"], r"multiple of leaves"),
            (["up", "--leaves", "2"], r"needs spines"),
            (["up", "--file", "/nonexistent"], r"--file /nonexistent: no such file"),
            (["up", "--file", "/tmp"], r"--file /tmp: is a directory"),
            (["up", "--buffer", "10"], r"--buffer 10: below one frame"),
            (["up", "--buffer", "lots"], r"--buffer lots: not a size"),
            (["up", "--kmin", "200%"], r"--kmin 200%: want a percentage"),
            (["up", "--kmin", "90%", "--kmax", "10%"], r"--kmin 90%: above --kmax"),
            (["up", "--mtu", "100"], r"--mtu 100: out of range"),
            (["up", "--trim-bytes", "5"], r"--trim-bytes 5: out of range: want .* 12\.\.248"),
            (["up", "--dscp-trimmable", "64"], r"--dscp-trimmable 64: out of range"),
            (["up", "--dscp-control", "10"], r"--dscp-control 10: --dscp-trimmable is 10 too"),
            (["up", "--trim-dscp", "46"], r"unrecognized arguments? --trim-dscp"),
            (["up", "--backend", "bogus"], r"--backend bogus: want auto, fq, htb or htb\+delayline"),
            (["up", "--delay", "20s"], r"--delay 20s: above 10 s"),
            (["up", "--ecn", "maybe"], r"--ecn maybe: not a switch"),
            (["up", "--crp", "on", "--crp-udp-port", "4793"],
             r"--crp-udp-port 4793: that is UET's port"),
            (["up", "--crp-udp-port", "5000"], r"--crp-udp-port 5000: CRP is off"),
            (["up", "--uplink-rate", "1g", "--oversub", "2", "--leaves", "2", "--spines", "1",
              "--hosts", "2"], r"either --uplink-rate or --oversub"),
            (["up", "--bogus"], r"unrecognized argument --bogus"),
            (["up", "--hosts"], r"--hosts"),
            (["bogus"], r"invalid choice"),
            ([], r"required"),
            (["--name", "BAD", "down"], r"--name BAD: want"),
            (["down", "--name", "BAD"], r"--name BAD: want"),
            (["set", "l0:h1", "loss=abc"], r"loss=abc: not a loss rate"),
            (["fail", "l0:h1", "loss=abc"], r"loss=abc: not a loss rate"),
            (["set", "l0:h1", "loss=2000"], r"loss=2000: out of range"),
            (["set", "l0:h1", "rate=1000tbit"], r"rate=1000tbit: above 16 Tbit/s"),
            (["set", "l0:h1", "bogus=1"], r"unknown knob bogus"),
            (["set", "l0:h1", "rate"], r"want KNOB=VALUE"),
            (["set", "x:y", "rate=1g"], r"PORT x:y: want NODE:DEV"),
            (["fail", "l0:h1", "bogus"], r"fail bogus: want blackhole"),
            (["status", "--interval", "0", "--watch"], r"--interval 0: "),
            (["status", "--watch", "--json"], r"choose one"),
            (["exec", "h0"], r"want a command"),
            (["exec", "x", "--", "true"], r"exec x: want a node")):
        expect("smartt-fabric %s: usage error (2)" % " ".join(args), sf + args, 2, rx)
    # The same bad value gives the same message in up, set and fail.
    _, e_up = run(sf + ["up", "--rate", "1000tbit"])[1:]
    _, e_set = run(sf + ["set", "l0:h1", "rate=1000tbit"])[1:]
    _, e_fail = run(sf + ["fail", "l0:h1", "rate=1000tbit"])[1:]
    body = lambda e: e.split(": ", 3)[-1]
    tap(body(e_up) == body(e_set) == body(e_fail) and e_up,
        "smartt-fabric: up, set and fail reject a rate with the same message",
        [e_up, e_set, e_fail])
    expect("smartt-fabric --version", sf + ["--version"], 0,
           out=lambda o: o.strip() == "smartt-fabric " + VERSION)
    expect("smartt-fabric up --version (after the command)", sf + ["up", "--version"], 0,
           out=lambda o: o.strip() == "smartt-fabric " + VERSION)
    expect("smartt-fabric up --help: descriptions and defaults", sf + ["up", "--help"], 0,
           out=lambda o: "(default 1gbit)" in o and "--buffer bdp" in o and "(default 20%)" in o)
    expect("smartt-fabric set --help lists every knob", sf + ["set", "--help"], 0,
           out=lambda o: all(k + "=" in o for k in (
               "rate", "delay", "buffer", "kmin", "kmax", "loss", "standing", "trim_bytes",
               "prio_buffer", "ecn", "trim", "blackhole", "prio")))
    expect("smartt-fabric: SMARTT_FABRIC_NAME=BAD is a usage error", sf + ["down"], 2,
           r"SMARTT_FABRIC_NAME=BAD", env={"SMARTT_FABRIC_NAME": "BAD"})

    for args, rx in ((["bogus"], r"invalid choice"), ([], r"required"),
                     (["stats", "--diff", "abc"], r"--diff abc: want seconds"),
                     (["stats", "--diff", "0"], r"--diff 0: want seconds"),
                     (["stats", "--bogus"], r"unrecognized argument --bogus"),
                     (["-n"], r"-n"),
                     (["set"], r"required")):
        expect("smarttctl %s: usage error (2)" % " ".join(args), [CTL] + args, 2, rx)
    expect("smarttctl --version", [CTL, "--version"], 0,
           out=lambda o: o.strip() == "smarttctl " + VERSION)
    expect("smarttctl stats --help: descriptions and defaults", [CTL, "stats", "--help"], 0,
           out=lambda o: "default" in o and "--diff" in o)
    if not os.path.exists("/proc/net/smartt_stats"):
        expect("smarttctl stats without smartt.ko: one line, exit 1", [CTL, "stats"], 1,
               r"smartt\.ko")
        expect("smarttctl stats --json without smartt.ko: nothing on stdout",
               [CTL, "stats", "--json"], 1, r"smartt\.ko", out=lambda o: o == "")
    expect("smarttctl -n nonexist stats: exit 1, says so", [CTL, "-n", "nonexist", "stats"], 1,
           r"-n nonexist: no such network namespace")
    expect("smarttctl stats -n nonexist (option after the command)",
           [CTL, "stats", "-n", "nonexist"], 1, r"-n nonexist: no such network namespace")

    for args, rx in ((["client", "--size", "10", "198.18.0.5"], r"--size 10: want 32 B"),
                     (["client", "-o", "0", "198.18.0.5"], r"--outstanding 0: want"),
                     (["client", "--pattern", "bogus", "198.18.0.5"], r"--pattern bogus: want"),
                     (["client"], r"client: want exactly one TARGET"),
                     (["client", "bogus"], r"target bogus: not an IPv4"),
                     (["client", "198.18.0.5:99999"], r"port 99999"),
                     (["client", "--proto", "udp", "198.18.0.5"], r"--proto udp: want"),
                     (["client", "--sndbuf", "lots", "198.18.0.5"], r"--sndbuf lots: not a size"),
                     (["client", "--interval", "0.01", "198.18.0.5"], r"--interval"),
                     (["server", "198.18.0.5"], r"server: takes no TARGET"),
                     (["bogus"], r"unknown mode"), ([], r"want a mode"),
                     (["client", "--bogus", "198.18.0.5"], r"--bogus: unknown option"),
                     (["client", "-s"], r"-s: want a value")):
        expect("smartt-perf %s: usage error (2)" % " ".join(args), [PERF] + args, 2, rx)
    expect("smartt-perf --version", [PERF, "--version"], 0,
           out=lambda o: o.strip() == "smartt-perf " + VERSION)
    expect("smartt-perf --help: defaults", [PERF, "--help"], 0,
           out=lambda o: "(default 64)" in o and "--raw FILE" in o)

    trace = "ack t=12000 rtt=20000 ecn=1 bytes=4096\nnack t=14000 rtt=0 bytes=4096\n"
    for args, rx in (([], r"--algo is required"), (["--algo", "bogus"], r"--algo bogus: want"),
                     (["--algo", "smartt", "--set", "fi=0.1234567"], r"fi=0.1234567: at most 6 decimals"),
                     (["--algo", "smartt", "--set", "bogus=1"], r"bogus: not a knob"),
                     (["--algo", "smartt", "--bogus"], r"unknown option --bogus"),
                     (["--algo"], r"--algo needs a value"),
                     (["--algo", "smartt", "a", "b"], r"one TRACE at most")):
        expect("smartt-replay %s: usage error (2)" % " ".join(args), [REPLAY] + args, 2, rx,
               stdin="")
    for args, rx in ((["--algo", "smartt", "/tmp"], r"/tmp: Is a directory"),
                     (["--algo", "smartt", "/nonexistent"], r"/nonexistent: No such file")):
        expect("smartt-replay %s: runtime error (1)" % " ".join(args), [REPLAY] + args, 1, rx,
               out=lambda o: o == "")
    expect("smartt-replay: a bad trace line names the line (1)", [REPLAY, "--algo", "smartt"],
           1, r"line 2: ", stdin="ack t=1 rtt=1 ecn=0 bytes=0\nbogus\n")
    expect("smartt-replay --version", [REPLAY, "--version"], 0,
           out=lambda o: o.strip() == "smartt-replay " + VERSION)
    expect("smartt-replay: options after the trace", [REPLAY, "-", "--algo", "smartt-2024"], 0,
           stdin=trace, out=lambda o: o.count("\n") == 3)
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "cwnd.png")
        expect("smartt-replay --plot FILE.png draws a PNG, the CSV on stdout",
               [REPLAY, "--algo", "smartt-2024", "--plot", png], 0, stdin=trace,
               out=lambda o: o.count("\n") == 3 and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n")
        expect("smartt-replay --plot into a missing directory: exit 1",
               [REPLAY, "--algo", "smartt", "--plot", os.path.join(tmp, "no/x.png")], 1,
               r"--plot .*No such file", stdin=trace)
    # A reader that goes away: no message, no traceback.
    for cmd, desc in (("%s --help | head -c 10 >/dev/null" % SF, "smartt-fabric --help"),
                      ("%s --help | head -c 10 >/dev/null" % CTL, "smarttctl --help")):
        rc, so, se = run(["bash", "-c", "set -o pipefail; " + cmd])
        tap(se.strip() == "", "%s | head: ends quietly" % desc, ["stderr: " + se])


def lab_and_cc_cases():
    """smartt-lab's and smarttctl cc's bad inputs (no fabric, no load)."""
    for args, rc, rx in (
            (["run", "nosuch", "--out", "/tmp/x"], 2, r"no experiment 'nosuch'"),
            (["run", "incast", "--seeds", "abc", "--out", "/tmp/x"], 2, r"--seeds"),
            (["run", "incast"], 2, r"--out"),
            (["run", "incast", "--where", "mars", "--out", "/tmp/x"], 2, r"--where"),
            (["bogus"], 2, r"bogus"),
            (["plot", "--out", "/nonexistent"], 1, r"/nonexistent")):
        expect("smartt-lab %s: exit %d" % (" ".join(args), rc), [LAB] + args, rc, rx)
    expect("smartt-lab --version", [LAB, "--version"], 0,
           out=lambda o: o.strip().startswith("smartt-lab "))
    expect("smartt-lab list --json: one JSON document", [LAB, "list", "--json"], 0,
           out=one_json)
    for args, rx in ((["cc"], r"want a command"),
                     (["cc", "bogus"], r"unknown command 'bogus'"),
                     (["cc", "set"], r"usage: smarttctl cc set"),
                     (["cc", "set", "bpf_nosuch", "tcp_mss=1448"], r"unknown congestion control"),
                     (["cc", "set", "bpf_smartt", "nosuch=1"], r"no knob 'nosuch'"),
                     (["cc", "set", "bpf_smartt", "tcp_mss"], r"not KEY=VALUE"),
                     (["cc", "load", "bpf_nosuch"], r"unknown congestion control"),
                     (["cc", "flows", "extra"], r"unexpected argument 'extra'"),
                     (["cc", "flows", "-n"], r"needs a network namespace")):
        expect("smarttctl %s: usage error (2)" % " ".join(args), [CTL] + args, 2, rx,
               prog="smarttctl")
    if ROOT:
        expect("smarttctl cc status --json: one JSON document", [CTL, "cc", "status", "--json"],
               0, out=one_json)
        expect("smarttctl -n nonexist cc flows: exit 1, says so",
               [CTL, "-n", "nonexist", "cc", "flows"], 1, r"no such network namespace")
    for cmd, desc in (("%s list | head -c 5 >/dev/null" % LAB, "smartt-lab list"),
                      ("%s cc --help | head -c 5 >/dev/null" % CTL, "smarttctl cc --help")):
        rc, so, se = run(["bash", "-c", "set -o pipefail; " + cmd])
        tap(se.strip() == "", "%s | head: ends quietly" % desc, ["stderr: " + se])


def fabric_cases():
    if not ROOT:
        tap(None, "smartt-fabric and smarttctl on a fabric", ["needs root"])
        return
    ctlbin = os.path.join(TOP, "build/bpf/smartt-fabric-bpf")
    if not os.access(ctlbin, os.X_OK):
        tap(None, "smartt-fabric on a fabric", ["%s missing (make tools)" % ctlbin])
        return
    env = {"SMARTT_FABRIC_NAME": NAME}
    sf = [SF]
    expect("smartt-fabric: SMARTT_FABRIC_BPF=/nonexistent is an error, not ignored",
           sf + ["up"], 1, r"SMARTT_FABRIC_BPF=/nonexistent", env=dict(env, SMARTT_FABRIC_BPF="/nonexistent"))
    if shutil.which("setpriv"):
        expect("smartt-fabric as non-root: must run as root (1)",
               ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", SF, "status"], 1,
               r"must run as root", env=env, prog="smartt-fabric")
    expect("smartt-fabric status of a fabric that is not up: exit 1, says what to do",
           sf + ["status"], 1, r"no fabric %r is up: 'smartt-fabric --name %s up'" % (NAME, NAME), env=env)
    so, _ = expect("smartt-fabric up (defaults)", sf + ["up"], 0, env=env,
                   out=lambda o: "1 leaf," in o and "(auto)" in o)
    try:
        fabric_up_cases(sf, env)
    finally:
        run(sf + ["--name", NAME, "down"])


def fabric_up_cases(sf, env):
    expect("smartt-fabric up again: exit 1, names down with a working --name",
           sf + ["up"], 1, r"'smartt-fabric --name %s down'" % NAME, env=env)
    expect("smartt-fabric --name N status (option before the command)",
           sf + ["--name", NAME, "status"], 0)
    expect("smartt-fabric status --name N (option after the command)",
           sf + ["status", "--name", NAME], 0)
    st = {}

    def load(o):
        st.update(json.loads(o))
        return True
    expect("smartt-fabric status --json: one JSON document", sf + ["status", "--json"], 0,
           env=env, out=load)
    base0 = st.get("base_rtt_ns")
    expect("smartt-fabric hosts --json: one JSON document with both MACs",
           sf + ["hosts", "--json"], 0, env=env,
           out=lambda o: all("mac" in h and "gw_mac" in h for h in json.loads(o).values()))
    expect("smartt-fabric hosts: a header, the host's MAC, then the gateway's",
           sf + ["hosts"], 0, env=env,
           out=lambda o: o.split()[:7] == ["host", "netns", "dev", "ipv4", "ipv6", "mac", "gw_mac"])
    rc, so, se = run(["bash", "-c", "%s status --json | head -c 20 >/dev/null" % SF], env=env)
    tap(se.strip() == "", "smartt-fabric status --json | head: ends quietly", ["stderr: " + se])
    expect("smartt-fabric show: the links", sf + ["show"], 0, env=env,
           out=lambda o: "h0:eth0" in o and "l0:h1" in o)
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "fabric.png")
        expect("smartt-fabric show --png FILE draws the topology", sf + ["show", "--png", png], 0,
               env=env, out=lambda o: open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n")
        expect("smartt-fabric show --png into a missing directory: exit 1",
               sf + ["show", "--png", os.path.join(tmp, "no/x.png")], 1, r"No such file", env=env)
    expect("smartt-fabric status --watch -c 2 -i 0.2: two tables with the queue histogram",
           sf + ["status", "--watch", "-c", "2", "-i", "0.2"], 0, env=env,
           out=lambda o: o.count("queue histogram") == 2 and "Mbit/s" in o)
    # set: bad values, the same messages as up; all-or-nothing.
    expect("smartt-fabric set l0 loss=abc: usage error", sf + ["set", "l0", "loss=abc"], 2,
           r"loss=abc: not a loss rate", env=env)
    expect("smartt-fabric set l0:h1 buffer=100: below one frame", sf + ["set", "l0:h1", "buffer=100"],
           2, r"buffer=100: below one frame", env=env)
    expect("smartt-fabric set l0:h9: no such port (1)", sf + ["set", "l0:h9", "loss=1"], 1,
           r"no port l0:h9", env=env)
    run(sf + ["set", "l0", "ecn=off"], env=env)
    expect("smartt-fabric set all ecn=on: refused (host NICs do not mark)",
           sf + ["set", "all", "ecn=on"], 2, r"ecn=on: a host NIC", env=env)
    expect("... and no port was changed (all-or-nothing)", sf + ["status", "--json"], 0, env=env,
           out=lambda o: all(p["cfg"]["ecn"] == 0 for p in json.loads(o)["ports"]))
    run(sf + ["set", "l0", "ecn=on"], env=env)
    expect("smartt-fabric set l0:h1 buffer=64k: Kmin/Kmax (percentages) follow the buffer",
           sf + ["set", "l0:h1", "buffer=64k"], 0, env=env)
    expect("... kmin is 20% of 64k", sf + ["status", "--json", "l0:h1"], 0, env=env,
           out=lambda o: json.loads(o)["ports"][0]["cfg"]["kmin"] == 65536 * 20 // 100)
    expect("smartt-fabric set l0:h1 rate=100mbit", sf + ["set", "l0:h1", "rate=100mbit"], 0, env=env)
    expect("... is configuration, not a fault, and the base RTT follows it",
           sf + ["status", "--json"], 0, env=env,
           out=lambda o: (json.loads(o)["base_rtt_ns"] > base0 and
                          all(not p["faults"] for p in json.loads(o)["ports"])))
    expect("smartt-fabric fail l0:h1 rate=10mbit loss=5", sf + ["fail", "l0:h1", "rate=10mbit",
                                                                   "loss=5"], 0, env=env)
    expect("... shows as faults", sf + ["status", "l0:h1"], 0, env=env,
           out=lambda o: "loss=5/1000" in o and "rate=10Mbit" in o)
    expect("smartt-fabric fail l0:h1 clear: back to the set rate", sf + ["fail", "l0:h1", "clear"], 0,
           env=env)
    expect("... 100 Mbit/s, no fault", sf + ["status", "--json", "l0:h1"], 0, env=env,
           out=lambda o: (json.loads(o)["ports"][0]["cfg"]["rate"] == 10**8 and
                          not json.loads(o)["ports"][0]["faults"]))
    # exec
    expect("smartt-fabric exec h0 -- nosuchcommand: 127", sf + ["exec", "h0", "--", "nosuchcmd"],
           127, r"nosuchcmd: command not found", env=env)
    expect("smartt-fabric exec h9 -- true: no such node (1)", sf + ["exec", "h9", "--", "true"], 1,
           r"no node h9", env=env)
    expect("smartt-fabric exec h0 -- sysctl: the hosts negotiate ECN",
           sf + ["exec", "h0", "--", "sysctl", "-n", "net.ipv4.tcp_ecn"], 0, env=env,
           out=lambda o: o.strip() == "1")
    # smarttctl -n with a fabric node name
    if not os.path.exists("/proc/net/smartt_stats"):
        expect("smarttctl -n h1 finds the fabric's namespace (then: smartt.ko not loaded)",
               [CTL, "-n", "h1", "stats"], 1, r"smartt\.ko", env=env)
    # smartt-perf over TCP in the fabric
    perf_cases(sf, env)
    # down stops processes; a vanished namespace is noticed.
    p = subprocess.Popen(sf + ["exec", "h1", "--", "sleep", "600"], env=dict(os.environ, **env))
    time.sleep(0.5)
    subprocess.run(["ip", "netns", "del", "sf-%s-h0" % NAME])
    expect("smartt-fabric status after a namespace was deleted by hand: exit 1, says so",
           sf + ["status"], 1, r"sf-%s-h0\) vanished" % NAME, env=env, one_line=False)
    expect("smartt-fabric set on a damaged fabric: refused, exit 1",
           sf + ["set", "all", "rate=100mbit"], 1, r"damaged", env=env)
    expect("smartt-fabric down: stops the process, reports the vanished namespace",
           sf + ["down"], 0, env=env,
           out=lambda o: "1 process stopped" in o and "vanished already" in o and
           "2 namespaces removed" in o)
    try:
        p.wait(timeout=5)
        tap(True, "... the process in the namespace is gone")
    except subprocess.TimeoutExpired:
        p.kill()
        tap(False, "... the process in the namespace is gone")


def perf_cases(sf, env):
    ex = lambda h: sf + ["exec", h, "--"]
    srv = subprocess.Popen(ex("h1") + [PERF, "server", "--proto", "tcp", "-p", "7301", "--json",
                                       "-I", "3"], env=dict(os.environ, **env),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "raw.csv")
        expect("smartt-perf --proto tcp client (options before the mode) --json --raw",
               ex("h0") + [PERF, "--proto", "tcp", "client", "-P", "stream", "-s", "64K",
                           "-n", "50", "--json", "--raw", raw, "198.18.0.5:7301"], 0, env=env,
               out=lambda o: (json.loads(o)["messages"] == 50 and
                              len(open(raw).read().splitlines()) == 51))
    so, se = srv.communicate(timeout=30)
    try:
        ok = json.loads(so)["messages"] == 50 and "listening" in se
    except ValueError:
        ok = False
    tap(ok, "smartt-perf server --json: stdout is one JSON document, 'listening' on stderr",
        ["stdout: " + so, "stderr: " + se])
    srv = subprocess.Popen(ex("h1") + [PERF, "server", "--proto", "tcp", "-p", "7302", "-I", "3",
                                       "--sndbuf", "1M"], env=dict(os.environ, **env),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    expect("smartt-perf client -d 2.5: a progress line per second, like iperf3",
           ex("h0") + [PERF, "client", "--proto", "tcp", "-d", "2.5", "--sndbuf", "1M",
                       "198.18.0.5:7302"], 0, env=env,
           out=lambda o: len(re.findall(r"^\[ *[0-9.]+- *[0-9.]+ s\] messages", o, re.M)) >= 2)
    srv.wait(timeout=30)


usage_cases()
lab_and_cc_cases()
fabric_cases()
print("# cli: %d cases, %d failed" % (n, failed))
sys.exit(1 if failed else 0)
