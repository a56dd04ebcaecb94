"""Gives each run of scripts/schemathesis.sh the same starting state on any machine.

Usage: seed_connectors.py BASE_URL. Creates, on a fresh worker, the connector of
openapi.json's example request and one that runs (`RUNNING` below), and waits
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

# A connector that runs, beside the request body openapi.json gives as its example (read
# from the worker, so the two never drift apart).
RUNNING = {
    "name": "running",
    "config": {
        "connector.class": "FileStreamSource",
        "tasks.max": "1",
        "file": "/dev/null",
        "topic": "running",
    },
}


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
    _, document = call("GET", f"{base}/openapi.json")
    example = document["components"]["schemas"]["CreateConnectorRequest"]["example"]
    example_state = (example.get("initial_state") or "RUNNING").upper()
    connectors = [(example, example_state), (RUNNING, "RUNNING")]
    for body, _ in connectors:
        code, _ = call("POST", f"{base}/connectors", body)
        if code != 201:
            sys.exit(f"creating {body['name']} answered {code}")
    deadline = time.monotonic() + DEADLINE_S
    for body, state in connectors:
        name = body["name"]
        while True:
            code, status = call("GET", f"{base}/connectors/{name}/status")
            if code == 200 and settled(status, state):
                break
            if time.monotonic() > deadline:
                sys.exit(f"{name} did not reach {state} within {DEADLINE_S} s: {status}")
            time.sleep(0.2)
    names = ", ".join(f"{body['name']} ({state})" for body, state in connectors)
    print(f"Seeded the worker with {names}", file=sys.stderr)


if __name__ == "__main__":
    main()
