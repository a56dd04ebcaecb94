"""Schemathesis hooks for scripts/schemathesis.sh: the answers that are right although a
check reports them, each as Kafka Connect gives it. Everything else fails the run.

`filter_failure` drops a failure only when the answer matches an entry of ACCEPTED: the
failure's code, the request's method and path, the status, the start of the error body's
message and, for ST301 (a resource still there after a DELETE), the DELETE that freed it.
An accepted status must also be documented on the operation in openapi.json, except on the
hidden inter-worker endpoint. At exit, the number of failures each entry accepted is
printed.
"""

import atexit
import collections
import re
import sys
from urllib.parse import urlsplit

from typing import NamedTuple

import schemathesis

CONFIG_PATHS = r"/connectors(/[^/]+/config)?"
INTERNAL_TASKS = r"/connectors/[^/]+/tasks"
STANDALONE_TASKS = (
    "Kafka Connect in standalone mode does not support externally setting task configurations."
)


class Accepted(NamedTuple):
    """One answer that is right although a check reports it."""

    why: str
    code: str
    method: str | None  # None: the operation's own
    path: str  # a regex the request's path must match whole
    status: int
    prefix: str  # the start of the error body's message
    documented: bool  # whether the operation must document the status
    freed: str | None = None  # ST301: a regex the freeing request ("DELETE /path") must match


ACCEPTED = [Accepted(*entry) for entry in [
    # ST101 (a 5xx): an unknown `connector.class` on create, config PUT/PATCH or validate is
    # Kafka Connect's plain ConnectException, a 500.
    ("unknown connector.class", "ST101", None, CONFIG_PATHS + r"|/connector-plugins/[^/]+/config/validate",
     500, "Failed to find any class that implements Connector and which name matches ", True),
    # ST202 (a 400 for schema-valid data): a config the plugin's own definition or the
    # framework's rules refuse (a required key missing, a bad value); the schema cannot know
    # every plugin's keys.
    ("config the plugin refuses", "ST202", None, CONFIG_PATHS, 400,
     "Connector configuration is invalid and contains the following ", True),
    # ST202: validate checks a config of the plugin in its path; one naming another plugin
    # is refused, and no schema can tie a body's value to the path.
    ("connector.class of another plugin", "ST202", None, r"/connector-plugins/[^/]+/config/validate",
     400, "Included connector type ", True),
    # ST202: validating for a plugin that is not installed is the 400 Kafka Connect means
    # (its BadRequestException), documented on the operation; no schema lists the plugins.
    ("unknown plugin on validate", "ST202", None, r"/connector-plugins/[^/]+/config/validate",
     400, "Failed to find any class that implements Connector and which name matches ", True),
    # ST202: a `version` no installed version of the plugin matches (KIP-891) is the
    # documented 400 ("Plugin <p> has no installed version matching …", naming the
    # installed versions); no schema lists what is installed.
    ("plugin version not installed", "ST202", "GET", r"/connector-plugins/[^/]+/config", 400,
     "Plugin ", True),
    # ST202: offsets change only while the connector is STOPPED, which no schema can show.
    ("offsets of a connector not STOPPED", "ST202", None, r"/connectors/[^/]+/offsets", 400,
     "Connectors must be in the STOPPED state before their offsets can be modified.", True),
    # ST301 (still there after a delete): a connector's topics are answered without an
    # existence check; an unknown connector has none.
    ("topics of a deleted connector", "ST301", "GET", r"/connectors/[^/]+/topics", 200, "", True,
     r"DELETE /connectors/[^/]+"),
    # POST /connectors/{name}/tasks is the inter-worker endpoint that openapi.json leaves out,
    # as Kafka Connect's documentation does (rest/internal.rs); a standalone worker answers it
    # 500, as Kafka Connect's does. ST101 (a 5xx), ST204 (not a 405 for an undocumented
    # method), ST205 (`Allow` lists POST).
    ("hidden inter-worker endpoint", "ST101", "POST", INTERNAL_TASKS, 500, STANDALONE_TASKS, False),
    ("hidden inter-worker endpoint", "ST204", "POST", INTERNAL_TASKS, 500, STANDALONE_TASKS, False),
    ("hidden inter-worker endpoint", "ST205", "OPTIONS", INTERNAL_TASKS, 405,
     "HTTP 405 Method Not Allowed", False),
    # ST301: DELETE /connectors/{name}/offsets resets a STOPPED connector's offsets (KIP-875);
    # it deletes no resource, so reading or altering the offsets afterwards answers 200, as
    # Kafka Connect does. Only the reset counts as the freeing request here: after a
    # DELETE /connectors/{name} these paths still answer 404.
    ("offsets read after their reset", "ST301", "GET", r"/connectors/[^/]+/offsets", 200, "", True,
     r"DELETE /connectors/[^/]+/offsets"),
    ("offsets altered after their reset", "ST301", "PATCH", r"/connectors/[^/]+/offsets", 200, "",
     True, r"DELETE /connectors/[^/]+/offsets"),
]]

accepted = collections.Counter()


def _message(response):
    try:
        body = response.json()
    except Exception:  # noqa: BLE001 - a body that is not JSON matches no entry
        return ""
    return body.get("message", "") if isinstance(body, dict) else ""


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Keeps the failure (True) unless ACCEPTED lists its answer."""
    if response is None:
        return True
    method = (response.request.method or "").upper()
    path = urlsplit(response.request.url).path
    message = _message(response)
    responses = case.operation.definition.raw.get("responses") or {}
    freed = getattr(failure, "free", None)
    for entry in ACCEPTED:
        if (
            failure.code == entry.code
            and (entry.method or case.operation.method.upper()) == method
            and re.fullmatch(entry.path, path)
            and response.status_code == entry.status
            and message.startswith(entry.prefix)
            and (not entry.documented or str(entry.status) in responses)
            and (entry.freed is None or (freed is not None and re.fullmatch(entry.freed, freed)))
        ):
            accepted[f"{entry.code} {entry.why}"] += 1
            return False
    return True


@atexit.register
def _summary():
    if accepted:
        print("\nAccepted as documented (scripts/schemathesis/hooks.py):", file=sys.stderr)
        for what, n in sorted(accepted.items()):
            print(f"  {n:6d}  {what}", file=sys.stderr)
