#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count TAP/KTAP results of one stage of `make check`.

    tap_count.py STAGE RESULTS_FILE [RC] < tap

Echoes the stage's output, counts the top-level result lines ("ok N ...",
"not ok N ...", "ok N ... # SKIP reason"), then prints the stage summary and
appends "STAGE passed failed skipped" to RESULTS_FILE.  Indented or "#"
prefixed lines (nested KTAP, diagnostics) are not counted.  The stage fails
on its own when it produced no result at all, or when its command exited
non-zero (RC) while reporting no failure: a crashed runner never passes.

Only failures (with the diagnostics just above them) and the summary are
echoed, unless SMARTT_VERBOSE=1 asks for the whole output.
"""
import os
import re
import sys

RESULT = re.compile(r"^(not ok|ok)\b(.*)$")
SKIP = re.compile(r"#\s*SKIP\b", re.IGNORECASE)


def count(lines):
    passed = failed = skipped = 0
    for line in lines:
        m = RESULT.match(line)
        if not m:
            continue
        if m.group(1) == "not ok":
            failed += 1
        elif SKIP.search(m.group(2)):
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: tap_count.py STAGE RESULTS_FILE [RC] < tap")
    stage, results = sys.argv[1], sys.argv[2]
    rc = int(sys.argv[3]) if len(sys.argv) == 4 else 0
    verbose = os.environ.get("SMARTT_VERBOSE") == "1"
    lines = []
    for line in sys.stdin:
        if verbose:
            sys.stdout.write(line)
        lines.append(line.rstrip("\n"))
    if not verbose:
        for i, line in enumerate(lines):
            if line.startswith("not ok"):
                ctx = [c for c in lines[max(0, i - 12):i] if c.startswith("#")]
                print("\n".join(ctx + [line]))
    passed, failed, skipped = count(lines)
    notes = []
    if passed + failed + skipped == 0:
        failed += 1
        notes.append("no test result at all")
    if rc != 0 and failed == 0:
        failed += 1
        notes.append(f"command exited {rc} without reporting a failure")
    summary = f"stage {stage}: {passed} passed, {failed} failed"
    if skipped:
        summary += f", {skipped} skipped"
    if notes:
        summary += " (" + "; ".join(notes) + ")"
    print(f"# {summary}")
    with open(results, "a", encoding="utf-8") as f:
        f.write(f"{stage} {passed} {failed} {skipped}\n")


if __name__ == "__main__":
    main()
