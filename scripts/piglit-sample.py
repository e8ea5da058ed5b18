#!/usr/bin/env python3
"""Tallies glsem-run's misses on scripts/piglit.sh --sample's results by reason.

Usage: piglit-sample.py GLSEM_TSV (STATUS, test, reason per line)

A reason's line number, what follows its first `quoted` part, that part where it is a
whole line (but an unknown command's first two words) and its numbers are masked so that
tests failing the same way count together.
"""
import re
import sys
from collections import Counter


def normalize(reason):
    reason = re.sub(r"^line \d+: ", "", reason)
    # (piglit.sh cuts reasons short: the quote may not close.)
    quoted = re.match(r"([^`]*)`([^`]*)(`|$)", reason)
    if quoted:
        head, text, _ = quoted.groups()
        # A quoted line (a command, a vertex data header) differs by test: its first two
        # words tell an unknown command, the rest nothing.
        words = text.split()
        if "command" in head and len(words) > 2:
            text = " ".join(words[:2]) + " …"
        elif len(words) > 4 or "vertex data" in head:
            text = "…"
        reason = "%s`%s`%s" % (head, text, " …" if len(quoted.group(0)) < len(reason) else "")
    reason = re.sub(r"\b0x[0-9a-fA-F]+|\b\d+(\.\d+)?", "N", reason)
    return reason[:150]


def main():
    status = Counter()
    reasons = Counter()
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            status[parts[0]] += 1
            if parts[0] != "PASS":
                reasons[(parts[0], normalize(parts[2] if len(parts) > 2 else ""))] += 1
    print("%d tests: %d pass, %d fail, %d skip" % (sum(status.values()), status["PASS"],
                                                    status["FAIL"], status["SKIP"]))
    for (state, reason), count in reasons.most_common():
        print("%5d %s %s" % (count, state, reason))


if __name__ == "__main__":
    main()
