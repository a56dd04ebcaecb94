"""Validators for config values: `Range`, `OneOf`, `NonEmpty`, and the rule for custom ones.

A validator is any callable taking the parsed value and returning None when it is fine,
or a message saying what is wrong; it may also raise `ValueError` (or `ConfigError`)
with that message. This module owns the built-in ones; `config.py` runs them.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

__all__ = ["Validator", "Range", "OneOf", "NonEmpty", "run"]

#: What `ConfigDef.define(validator=...)` accepts.
Validator = Callable[[Any], Optional[str]]


class Range:
    """A number at least `min` and at most `max` (either may be None)."""

    def __init__(self, min: Union[int, float, None] = None, max: Union[int, float, None] = None):
        self.min = min
        self.max = max

    def __call__(self, value: Any) -> Optional[str]:
        if self.min is not None and value < self.min:
            return f"must be at least {self.min}"
        if self.max is not None and value > self.max:
            return f"must be at most {self.max}"
        return None

    def __repr__(self) -> str:
        return f"Range(min={self.min!r}, max={self.max!r})"


class OneOf:
    """One of the given values (for a list, every element must be one of them)."""

    def __init__(self, *choices: Any):
        self.choices = choices

    def __call__(self, value: Any) -> Optional[str]:
        values = value if isinstance(value, list) else [value]
        bad = [v for v in values if v not in self.choices]
        if bad:
            allowed = ", ".join(str(c) for c in self.choices)
            return f"{bad[0]!s} is not one of: {allowed}"
        return None

    def __repr__(self) -> str:
        return f"OneOf{self.choices!r}"


class NonEmpty:
    """A string or list that is not empty (and, for a string, not only blanks)."""

    def __call__(self, value: Any) -> Optional[str]:
        if isinstance(value, str) and not value.strip():
            return "must not be empty"
        if isinstance(value, list) and not value:
            return "must not be empty"
        return None

    def __repr__(self) -> str:
        return "NonEmpty()"


def run(validator: Validator, value: Any) -> Optional[str]:
    """Runs one validator: its returned message, the message of a `ValueError` it raised,
    or None when the value passed."""
    from .errors import ConfigError

    try:
        message = validator(value)
    except ConfigError as e:
        return e.message
    except ValueError as e:
        return str(e) or "is not a valid value"
    if message is None or message is True:
        return None
    if message is False:
        return "is not a valid value"
    return str(message)
