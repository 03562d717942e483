#!/usr/bin/env python3
"""Summarizes gtest XML reports (and, for a run killed before it wrote one, its log) as markdown
for bench/gpu/device-suite.sh's results.md.

    python3 bench/gpu/tests_summary.py NAME=XML[:LOG] ...

For each NAME: tests, passed, failed, skipped; the failures with their first lines; the distinct
skip reasons.
"""

import os
import re
import sys
import xml.etree.ElementTree as ET


def from_xml(path):
    root = ET.parse(path).getroot()
    cases = []
    for tc in root.iter("testcase"):
        name = f"{tc.get('classname')}.{tc.get('name')}"
        failure = tc.find("failure")
        skipped = tc.find("skipped")
        if failure is not None:
            cases.append((name, "failed", failure.get("message") or failure.text or ""))
        elif skipped is not None or tc.get("result") == "skipped" or tc.get("status") == "notrun":
            cases.append((name, "skipped", (skipped.get("message") if skipped is not None else "") or ""))
        else:
            cases.append((name, "passed", ""))
    return cases


def from_log(path):
    """A run without XML (killed by its timeout): what its log shows."""
    cases, text = [], ""
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return cases
    for status, name in re.findall(r"^\[\s+(OK|FAILED|SKIPPED)\s+\] (\S+) \(", text, re.M):
        cases.append((name, {"OK": "passed", "FAILED": "failed", "SKIPPED": "skipped"}[status], ""))
    running = re.findall(r"^\[ RUN      \] (\S+)$", text, re.M)
    done = {c[0] for c in cases}
    for name in running:
        if name not in done:
            cases.append((name, "failed", "did not finish (the run was killed by its timeout)"))
    return cases


def main():
    out = ["## Tests\n", "| run | tests | passed | failed | skipped |", "|---|---|---|---|---|"]
    details = []
    for arg in sys.argv[1:]:
        name, _, paths = arg.partition("=")
        xml_path, _, log_path = paths.partition(":")
        note = ""
        if os.path.exists(xml_path):
            cases = from_xml(xml_path)
        else:
            cases = from_log(log_path)
            note = " (no XML: killed by its timeout or crashed; counts from the log)"
        counts = {k: sum(1 for c in cases if c[1] == k) for k in ("passed", "failed", "skipped")}
        out.append(f"| {name}{note} | {len(cases)} | {counts['passed']} | {counts['failed']} | "
                   f"{counts['skipped']} |")
        failures = [c for c in cases if c[1] == "failed"]
        if failures:
            details.append(f"\n**{name}: failures**\n")
            for case, _, message in failures[:20]:
                first = "\n".join(message.strip().splitlines()[:6])
                details.append(f"- `{case}`\n\n  ```\n  " + first.replace("\n", "\n  ") + "\n  ```")
            if len(failures) > 20:
                details.append(f"- … and {len(failures) - 20} more (see the XML)")
        reasons = sorted({c[2].strip().splitlines()[-1] if c[2].strip() else "(no message)"
                          for c in cases if c[1] == "skipped"})
        if reasons:
            details.append(f"\n**{name}: skip reasons**\n")
            details.extend(f"- {r}" for r in reasons[:10])
    print("\n".join(out + details) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
