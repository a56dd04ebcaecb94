"""ConfigDef: parsing by type, required keys, defaults and validators."""

import pytest

from wasm_connect import ConfigDef, ConfigError, ConfigProblem, ConfigType, Grant, Importance, NonEmpty, OneOf, Range


def definition():
    return (
        ConfigDef()
        .define("topic", ConfigType.STRING, importance=Importance.HIGH, doc="Topic.", validator=NonEmpty())
        .define("count", ConfigType.LONG, default=10, validator=Range(min=0))
        .define("ratio", ConfigType.DOUBLE, default=0.5, validator=Range(min=0, max=1))
        .define("mode", ConfigType.STRING, default="fast", validator=OneOf("fast", "safe"))
        .define("tags", ConfigType.LIST, default=[])
        .define("flag", ConfigType.BOOLEAN, default=False)
        .define("size", ConfigType.INT, default=1)
        .define("file", ConfigType.STRING, grant=Grant.WRITE_FILE, doc="Output file.")
        .define("even", ConfigType.INT, default=0, validator=lambda v: None if v % 2 == 0 else "must be even")
        .define("secret", ConfigType.PASSWORD, required=False)
    )


def keys_of(problems):
    return [p.key for p in problems]


def test_a_complete_config_parses_to_python_values_with_defaults():
    parsed = definition().parse({"topic": "t", "file": "/tmp/x", "tags": "a, b", "flag": "TRUE", "extra": "kept"})
    assert parsed["count"] == 10 and parsed["ratio"] == 0.5 and parsed["mode"] == "fast"
    assert parsed["tags"] == ["a", "b"] and parsed["flag"] is True and parsed["size"] == 1
    assert parsed["secret"] is None and parsed["extra"] == "kept"


def test_missing_required_keys_are_problems_but_optional_ones_are_not():
    problems = definition().validate({})
    assert keys_of(problems) == ["topic", "file"]
    assert "Missing required configuration \"topic\"" in problems[0].message


@pytest.mark.parametrize(
    "key, value, fragment",
    [
        ("count", "-1", "must be at least 0"),
        ("count", "ten", "expected a value of type long"),
        ("size", str(2**31), "out of range for type int"),
        ("ratio", "1.5", "must be at most 1"),
        ("mode", "slow", "slow is not one of: fast, safe"),
        ("topic", "  ", "must not be empty"),
        ("flag", "yes", "expected a value of type boolean"),
        ("even", "3", "must be even"),
    ],
)
def test_bad_values_are_named_by_key(key, value, fragment):
    config = {"topic": "t", "file": "/f", key: value}
    problems = definition().validate(config)
    assert keys_of(problems) == [key]
    assert fragment in problems[0].message
    with pytest.raises(ConfigError, match=fragment):
        definition().parse(config)


def test_a_custom_validator_may_raise_value_error():
    def positive(v):
        if v <= 0:
            raise ValueError("must be positive")

    d = ConfigDef().define("n", ConfigType.INT, default=1, validator=[Range(max=5), positive])
    assert d.validate({"n": "0"}) == [ConfigProblem("n", "Invalid value 0 for configuration n: must be positive")]
    assert d.validate({"n": "9"})[0].message.endswith("must be at most 5")
    assert d.validate({"n": "3"}) == []


def test_key_metadata():
    d = definition()
    assert d["secret"].sensitive and d["secret"].type == ConfigType.PASSWORD
    assert d["file"].required and d["file"].grant == Grant.WRITE_FILE
    assert not d["count"].required and d["count"].default_text() == "10"
    assert d["flag"].default_text() == "false" and d["tags"].default_text() == ""
    assert d["topic"].default_text() is None
    with pytest.raises(ValueError, match="defined twice"):
        d.define("topic", ConfigType.STRING)
