"""Gives the stateful part of scripts/schemathesis.sh the same starting state every time.

Usage: seed_connectors.py BASE_URL. Creates the connectors below on a fresh worker and waits
until each shows the state it was created in (tasks included), so that the stateful phase,
which cannot create a connector from random data, starts from connectors to follow links
from (status, offsets, restart, stop, delete), and starts from the same ones on any machine.
Exits non-zero naming the connector that did not settle within 120 s.
"""

import json
import sys
import time
import urllib.request

DEADLINE_S = 120

# The request body openapi.json gives as its example, and one connector that runs.
CONNECTORS = [
    (
        {
            "name": "example",
            "config": {
                "connector.class": "FileStreamSource",
                "tasks.max": "1",
                "file": "/dev/null",
                "topic": "example",
            },
            "initial_state": "STOPPED",
        },
        "STOPPED",
    ),
    (
        {
            "name": "running",
            "config": {
                "connector.class": "FileStreamSource",
                "tasks.max": "1",
                "file": "/dev/null",
                "topic": "running",
            },
        },
        "RUNNING",
    ),
]


def call(method: str, url: str, body: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, {}


def settled(status: dict, state: str) -> bool:
    if status.get("connector", {}).get("state") != state:
        return False
    if state == "STOPPED":
        return not status.get("tasks")
    tasks = status.get("tasks", [])
    return bool(tasks) and all(task.get("state") == state for task in tasks)


def main() -> None:
    base = sys.argv[1]
    for body, _ in CONNECTORS:
        code, _ = call("POST", f"{base}/connectors", body)
        if code != 201:
            sys.exit(f"creating {body['name']} answered {code}")
    deadline = time.monotonic() + DEADLINE_S
    for body, state in CONNECTORS:
        name = body["name"]
        while True:
            code, status = call("GET", f"{base}/connectors/{name}/status")
            if code == 200 and settled(status, state):
                break
            if time.monotonic() > deadline:
                sys.exit(f"{name} did not reach {state} within {DEADLINE_S} s: {status}")
            time.sleep(0.2)
    names = ", ".join(f"{body['name']} ({state})" for body, state in CONNECTORS)
    print(f"Seeded the stateful part with {names}", file=sys.stderr)


if __name__ == "__main__":
    main()
