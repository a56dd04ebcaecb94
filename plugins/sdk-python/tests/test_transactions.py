"""The transaction context outside a component: there is no worker to honour it, so a
task gets None, as a Kafka Connect task without connector-defined boundaries does."""

from wasm_connect import host


def test_no_transaction_context_outside_a_component():
    assert host.transaction_context() is None
