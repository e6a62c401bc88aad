#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A stand-in for smartt-perf in test_transport.py: the options the lab
passes, one message of --size or messages for --duration, written as
smartt-perf writes them (--json document, --raw CSV); the server waits for
SIGINT.  FAKE_PERF_LOG: each invocation's argv and network namespace."""
import json
import os
import signal
import sys
import time


def main(argv):
    with open(os.environ["FAKE_PERF_LOG"], "a") as f:
        f.write(json.dumps({"argv": argv, "netns": os.readlink("/proc/self/ns/net")}) + "\n")
    if argv[0] == "server":
        signal.signal(signal.SIGINT, lambda *a: sys.exit(0))
        while True:
            time.sleep(1)
    o = {argv[i]: argv[i + 1] for i in range(1, len(argv) - 1) if argv[i].startswith("-")
         and not argv[i + 1].startswith("-")}
    start = float(o["-S"])
    while time.time() < start:
        time.sleep(0.001)
    t0 = time.time()
    size = int(o["-s"])
    n = int(o.get("-n", 0)) or int(float(o["-d"]) / 0.05)
    # messages every 50 ms, each complete 10 ms later; as long as they take
    time.sleep(float(o["-d"]) if "-d" in o else 0.01 + 0.05 * (n - 1))
    with open(o["--raw"], "w") as f:
        f.write("seq,target,start_ns,fct_ns,error\n")
        for i in range(n):
            f.write("%d,0,%d,%d,\n" % (i, i * 50 * 10**6, 10 * 10**6))
    doc = {"role": "client", "proto": "smartt", "cc": o["--cc"], "lb": o["--lb"],
           "start_realtime": t0, "messages": n, "failed": 0, "fct_us": {"max": 10000.0},
           "peers": [{"target": argv[-1], "peer": {"retransmits": 2},
                      "path": {"lb": o["--lb"], "buckets_used": 7}}]}
    print(json.dumps(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
