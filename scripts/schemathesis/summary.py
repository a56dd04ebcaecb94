"""Prints the closing line of scripts/schemathesis.sh from its JUnit reports.

Usage: summary.py STATUS REPORT.xml [REPORT.xml ...]. Prints `schemathesis: N passed, N
failed` (the operations and stateful runs of every report). A report that is missing or
unreadable counts as one failure, and so does a non-zero STATUS with no failure reported,
so the line never says 0 failed for a run that failed.
"""

import sys
import xml.etree.ElementTree as ET


def main() -> None:
    status, reports = sys.argv[1], sys.argv[2:]
    tests = failed = 0
    for path in reports:
        try:
            suites = ET.parse(path).getroot()
            tests += int(suites.get("tests", 0))
            failed += int(suites.get("failures", 0)) + int(suites.get("errors", 0))
        except (OSError, ET.ParseError, ValueError):
            failed += 1
    if failed == 0 and status != "0":
        failed = 1
    print(f"schemathesis: {max(tests - failed, 0)} passed, {failed} failed")


if __name__ == "__main__":
    main()
