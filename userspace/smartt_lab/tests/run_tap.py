#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""smartt-lab's tests as TAP (make check's "lab" stage): one line per test."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


class Tap(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.n = 0

    def line(self, ok, test, extra=""):
        self.n += 1
        print("%s %d %s%s" % ("ok" if ok else "not ok", self.n, test.id().split(".", 2)[-1],
                              extra), flush=True)

    def addSuccess(self, test):
        self.line(True, test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        for ln in self._exc_info_to_string(err, test).splitlines():
            print("# " + ln)
        self.line(False, test)

    def addError(self, test, err):
        super().addError(test, err)
        for ln in self._exc_info_to_string(err, test).splitlines():
            print("# " + ln)
        self.line(False, test)

    def addSkip(self, test, reason):
        self.line(True, test, " # SKIP %s" % reason)


def main():
    suite = unittest.defaultTestLoader.discover(os.path.dirname(os.path.abspath(__file__)),
                                                top_level_dir=os.path.join(
                                                    os.path.dirname(os.path.abspath(__file__)),
                                                    "..", ".."))
    print("TAP version 13")
    print("1..%d" % suite.countTestCases())
    r = Tap()
    suite.run(r)
    return 0 if r.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
