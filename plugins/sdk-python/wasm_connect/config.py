"""A connector's configuration definition: `ConfigDef` (a builder of `ConfigKey`s), value
parsing by type, and `ConfigDef.validate`, which the SDK runs before a connector's own
`validate` and before `start`.

This module owns the Python side of the contract's `config-key` record (`wit/types.wit`)
and the parsing rules of Kafka Connect's `ConfigDef.Type`. It does not talk to the
host: `export.py` converts these keys to WIT values.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from .errors import ConfigError
from .validators import Validator, run

__all__ = [
    "ConfigType",
    "Importance",
    "Grant",
    "ConfigKey",
    "ConfigDef",
    "ConfigProblem",
    "NO_DEFAULT",
    "format_value",
]


class ConfigType(Enum):
    """The type of a config value (Kafka Connect's `ConfigDef.Type`)."""

    BOOLEAN = "boolean"
    INT = "int"
    LONG = "long"
    DOUBLE = "double"
    STRING = "string"
    LIST = "list"
    PASSWORD = "password"


class Importance(Enum):
    """How much a key matters to a user."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Grant(Enum):
    """The sandbox capability a key's value grants (see `grant` in `wit/types.wit`)."""

    READ_FILE = "read-file"
    WRITE_FILE = "write-file"
    CONNECT = "connect"
    CLOCK = "clock"


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: The default of a key that has none.
NO_DEFAULT: Any = _NoDefault()

_INT_BOUNDS = {ConfigType.INT: 2**31, ConfigType.LONG: 2**63}


@dataclass(frozen=True)
class ConfigProblem:
    """One problem with one key, as `validate` reports it."""

    key: str
    message: str


@dataclass(frozen=True)
class ConfigKey:
    """One key of a configuration definition. `default` is a Python value of the key's
    type (or `NO_DEFAULT`); `validators` run on the parsed value."""

    name: str
    type: ConfigType
    default: Any = NO_DEFAULT
    importance: Importance = Importance.MEDIUM
    documentation: str = ""
    required: bool = False
    sensitive: bool = False
    grant: Optional[Grant] = None
    validators: Sequence[Validator] = ()

    @property
    def has_default(self) -> bool:
        """Whether the key declares a default."""
        return self.default is not NO_DEFAULT

    def default_text(self) -> Optional[str]:
        """The default as a user would type it, or None."""
        if not self.has_default or self.default is None:
            return None
        return format_value(self.default)

    def parse(self, text: str) -> Any:
        """Parses one value of this key's type; raises `ConfigError` naming the key."""
        t = self.type
        s = text.strip()
        try:
            if t == ConfigType.BOOLEAN:
                if s.lower() in ("true", "false"):
                    return s.lower() == "true"
                raise ValueError
            if t in _INT_BOUNDS:
                n = int(s)
                bound = _INT_BOUNDS[t]
                if not -bound <= n < bound:
                    raise ConfigError(f"{text!r} is out of range for type {t.value}", self.name)
                return n
            if t == ConfigType.DOUBLE:
                return float(s)
            if t == ConfigType.LIST:
                return [item.strip() for item in s.split(",")] if s else []
        except ValueError:
            raise ConfigError(f"invalid value {text!r}: expected a value of type {t.value}", self.name) from None
        return text


def format_value(value: Any) -> str:
    """A Python config value written as a user would type it: booleans as `true`/`false`,
    lists comma-separated, everything else with `str`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(format_value(v) for v in value)
    return str(value)


class ConfigDef:
    """A connector's configuration definition, built with chained `define` calls:

    ```python
    CONFIG = (
        ConfigDef()
        .define("topic", ConfigType.STRING, importance=Importance.HIGH,
                doc="Topic to write to.", validator=NonEmpty())
        .define("count", ConfigType.LONG, default=100, validator=Range(min=0),
                doc="How many records to emit.")
    )
    ```
    """

    def __init__(self, keys: Sequence[ConfigKey] = ()):
        self._keys: Dict[str, ConfigKey] = {k.name: k for k in keys}

    def define(
        self,
        name: str,
        type: ConfigType,
        default: Any = NO_DEFAULT,
        *,
        importance: Importance = Importance.MEDIUM,
        doc: str = "",
        required: Optional[bool] = None,
        sensitive: Optional[bool] = None,
        grant: Optional[Grant] = None,
        validator: Union[Validator, Sequence[Validator], None] = None,
    ) -> "ConfigDef":
        """Adds a key and returns this definition. `required` defaults to "no default";
        `sensitive` defaults to true for `PASSWORD` keys. `validator` is one callable or a
        list of them (see `validators.py`)."""
        if name in self._keys:
            raise ValueError(f"config key {name!r} is defined twice")
        if validator is None:
            validators: Sequence[Validator] = ()
        elif callable(validator):
            validators = (validator,)
        else:
            validators = tuple(validator)
        self._keys[name] = ConfigKey(
            name=name,
            type=type,
            default=default,
            importance=importance,
            documentation=doc,
            required=(default is NO_DEFAULT) if required is None else required,
            sensitive=(type == ConfigType.PASSWORD) if sensitive is None else sensitive,
            grant=grant,
            validators=validators,
        )
        return self

    @property
    def keys(self) -> List[ConfigKey]:
        """The keys in definition order."""
        return list(self._keys.values())

    def __contains__(self, name: str) -> bool:
        return name in self._keys

    def __getitem__(self, name: str) -> ConfigKey:
        return self._keys[name]

    def _check(self, config: Mapping[str, str]) -> tuple:
        values: Dict[str, Any] = dict(config)
        problems: List[ConfigProblem] = []
        for key in self._keys.values():
            if key.name in config:
                try:
                    value = key.parse(config[key.name])
                except ConfigError as e:
                    problems.append(ConfigProblem(key.name, e.message))
                    continue
            elif key.has_default:
                value = key.default
            else:
                if key.required:
                    problems.append(ConfigProblem(key.name, f"Missing required configuration \"{key.name}\" which has no default value."))
                values[key.name] = None
                continue
            values[key.name] = value
            if value is None:
                continue
            for validator in key.validators:
                message = run(validator, value)
                if message is not None:
                    problems.append(ConfigProblem(key.name, f"Invalid value {format_value(value)} for configuration {key.name}: {message}"))
                    break
        return values, problems

    def validate(self, config: Mapping[str, str]) -> List[ConfigProblem]:
        """Every problem of `config` against this definition: missing required keys,
        values that do not parse as their type, values a validator rejects. Keys this
        definition does not know are left alone."""
        return self._check(config)[1]

    def parse(self, config: Mapping[str, str]) -> Dict[str, Any]:
        """`config` with defined keys parsed to Python values and defaults filled in (keys
        without a default and without a value are None; unknown keys stay strings).
        Raises `ConfigError` listing every problem with its key."""
        values, problems = self._check(config)
        if problems:
            text = "; ".join(f"{p.key}: {p.message}" for p in problems)
            raise ConfigError(f"Invalid configuration: {text}")
        return values
