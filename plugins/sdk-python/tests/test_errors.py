"""Exceptions to WIT error cases."""

from wasm_connect.errors import CONFIG, FATAL, RETRIABLE, ConfigError, FatalError, RetriableError, classify


def raised(exc):
    try:
        raise exc
    except BaseException as e:
        return e


def test_typed_errors_keep_their_case_and_message():
    assert classify(RetriableError("busy")) == (RETRIABLE, "busy")
    assert classify(ConfigError("bad", "count")) == (CONFIG, "count: bad")
    assert classify(ConfigError("bad")) == (CONFIG, "bad")
    assert classify(FatalError("gone")) == (FATAL, "gone")


def test_any_other_exception_is_fatal_with_its_type_message_and_traceback():
    kind, message = classify(raised(KeyError("missing")))
    assert kind == FATAL
    assert message.startswith("KeyError: 'missing'\n")
    assert "Traceback (most recent call last)" in message and "test_errors.py" in message
    assert classify(ZeroDivisionError()) == (FATAL, "ZeroDivisionError")
