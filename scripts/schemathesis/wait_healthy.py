"""Waits until a worker answers GET /health with 200 (scripts/schemathesis.sh).

Usage: wait_healthy.py BASE_URL PID. Exits 0 once healthy; non-zero with a reason when the
process exits first or 120 s pass (a worker on a loaded 2-core machine compiles its plugins
before it listens).
"""

import os
import sys
import time
import urllib.request

DEADLINE_S = 120


def main() -> None:
    base, pid = sys.argv[1], int(sys.argv[2])
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            sys.exit("the worker exited")
        try:
            with urllib.request.urlopen(base + "/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit(f"the worker did not become healthy within {DEADLINE_S} s")


if __name__ == "__main__":
    main()
