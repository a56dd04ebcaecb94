"""Tests of hooks.py's filter: what it drops and, as much, what it keeps.

Run by scripts/schemathesis.sh with the pinned venv's pytest before the fuzzing. The cases
are built from plain objects with the attributes `filter_failure` reads.
"""

import importlib.util
import pathlib
from types import SimpleNamespace

import pytest

_spec = importlib.util.spec_from_file_location(
    "wasm_connect_hooks", pathlib.Path(__file__).with_name("hooks.py")
)
hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hooks)

OFFSETS_RESPONSES = {"200": {}, "400": {}, "404": {}}


def call(code, method, path, status, *, message="", freed=None, documented=OFFSETS_RESPONSES):
    """Whether filter_failure keeps the failure (True) for this request and answer."""
    failure = SimpleNamespace(code=code)
    if freed is not None:
        failure.free = freed
    request = SimpleNamespace(method=method, url=f"http://127.0.0.1:8083{path}")
    response = SimpleNamespace(
        request=request, status_code=status, json=lambda: {"message": message}
    )
    operation = SimpleNamespace(
        method=method, definition=SimpleNamespace(raw={"responses": documented})
    )
    return hooks.filter_failure(None, failure, SimpleNamespace(operation=operation), response)


@pytest.mark.parametrize("method", ["GET", "PATCH"])
def test_offsets_after_their_reset_are_no_use_after_free(method):
    assert not call("ST301", method, "/connectors/c/offsets", 200,
                    freed="DELETE /connectors/c/offsets")


@pytest.mark.parametrize("method", ["GET", "PATCH"])
def test_offsets_after_the_connector_was_deleted_are_kept(method):
    assert call("ST301", method, "/connectors/c/offsets", 200, freed="DELETE /connectors/c")


def test_a_use_after_free_without_its_freeing_request_is_kept():
    assert call("ST301", "GET", "/connectors/c/offsets", 200)


def test_an_undocumented_status_is_kept():
    assert call("ST301", "GET", "/connectors/c/offsets", 200,
                freed="DELETE /connectors/c/offsets", documented={"404": {}})


def test_topics_of_a_deleted_connector_are_accepted():
    assert not call("ST301", "GET", "/connectors/c/topics", 200, freed="DELETE /connectors/c")


def test_an_unknown_connector_class_needs_its_message():
    message = "Failed to find any class that implements Connector and which name matches x"
    documented = {"500": {}}
    assert not call("ST101", "POST", "/connectors", 500, message=message, documented=documented)
    assert call("ST101", "POST", "/connectors", 500, message="boom", documented=documented)


def test_other_failures_are_kept():
    assert call("ST102", "GET", "/connectors", 200)
    assert call("ST301", "GET", "/connectors/c/status", 200, freed="DELETE /connectors/c")
