use serde_json::json;

use super::*;

#[test]
fn integers_stay_exact_and_floats_are_numbers() {
    assert_eq!(convert(&Conv::Int, "9007199254740993").unwrap().to_string(), "9007199254740993");
    assert_eq!(convert(&Conv::Float, "1.5").unwrap(), json!(1.5));
    assert_eq!(convert(&Conv::Float, "NaN").unwrap(), json!("NaN"));
    assert_eq!(convert(&Conv::Bool, "t").unwrap(), json!(true));
    assert_eq!(convert(&Conv::Bool, "f").unwrap(), json!(false));
}

#[test]
fn decimals_in_each_mode() {
    // 123.45 at scale 2: unscaled 12345 = 0x30 0x39 -> base64 "MDk=".
    assert_eq!(
        convert(&Conv::Decimal { scale: 2, money: false }, "123.45").unwrap(),
        json!("MDk=")
    );
    // Padded to the scale: 1.5 at scale 2 is 150 = 0x00 0x96 (sign byte) -> "AJY=".
    assert_eq!(convert(&Conv::Decimal { scale: 2, money: false }, "1.5").unwrap(), json!("AJY="));
    assert_eq!(convert(&Conv::Decimal { scale: 2, money: true }, "$1.50").unwrap(), json!("AJY="));
    assert_eq!(
        convert(&Conv::VariableDecimal, "-1.5").unwrap(),
        json!({"scale": 1, "value": "8Q=="})
    );
    assert_eq!(
        convert(&Conv::VariableDecimal, "0.000").unwrap(),
        json!({"scale": 0, "value": "AA=="})
    );
    assert_eq!(convert(&Conv::VariableDecimal, "NaN").unwrap(), Value::Null);
    assert_eq!(convert(&Conv::DecimalDouble { money: false }, "2.25").unwrap(), json!(2.25));
    assert_eq!(convert(&Conv::DecimalString { money: false }, "0.000").unwrap(), json!("0.000"));
    assert_eq!(
        convert(&Conv::DecimalString { money: true }, "-$1,000.05").unwrap(),
        json!("-1000.05")
    );
}

#[test]
fn temporal_values() {
    assert_eq!(convert(&Conv::Days, "1970-01-11").unwrap(), json!(10));
    assert_eq!(convert(&Conv::TimeMicros, "11:45:30.5").unwrap(), json!(42_330_500_000i64));
    assert_eq!(convert(&Conv::TimeMillis, "00:00:01.234").unwrap(), json!(1234));
    assert_eq!(convert(&Conv::TimestampMicros, "1970-01-01 00:00:00.000001").unwrap(), json!(1));
    assert_eq!(
        convert(&Conv::TimestampMicros, "infinity").unwrap(),
        json!(9_223_372_036_825_200_000i64)
    );
    assert_eq!(
        convert(&Conv::TimestampMillis, "infinity").unwrap(),
        json!(9_223_372_036_825_200i64)
    );
    assert_eq!(convert(&Conv::TimestampMillis, "1969-12-31 23:59:59.9995").unwrap(), json!(-1));
    assert_eq!(convert(&Conv::IntervalIso, "1 day").unwrap(), json!("P0Y0M1DT0H0M0S"));
}

#[test]
fn binary_modes_and_bytea_text() {
    assert_eq!(bytea("\\x01ff").unwrap(), [1, 255]);
    assert_eq!(bytea("a\\\\b\\001").unwrap(), [b'a', b'\\', b'b', 1]);
    assert!(bytea("\\x0").is_err());
    assert!(bytea("\\xé0").is_err(), "not ASCII, and no panic on a char boundary");
    // 0xfb 0xff: base64 "+/8=", url-safe "-_8=", hex "fbff".
    assert_eq!(convert(&Conv::Binary(BinaryMode::Bytes), "\\xfbff").unwrap(), json!("+/8="));
    assert_eq!(
        convert(&Conv::Binary(BinaryMode::Base64UrlSafe), "\\xfbff").unwrap(),
        json!("-_8=")
    );
    assert_eq!(convert(&Conv::Binary(BinaryMode::Hex), "\\xfbff").unwrap(), json!("fbff"));
    assert_eq!(unavailable(&Conv::Binary(BinaryMode::Bytes)), json!(STANDARD.encode(UNAVAILABLE)));
    assert_eq!(unavailable(&Conv::Text), json!(UNAVAILABLE));
}

#[test]
fn hstore_arrays_and_zeroes() {
    let h = r#""a"=>"1", "b c"=>NULL, "q"=>"x\"y""#;
    assert_eq!(convert(&Conv::HstoreMap, h).unwrap(), json!({"a": "1", "b c": null, "q": "x\"y"}));
    let text = convert(&Conv::HstoreJson, h).unwrap();
    // Java HashMap order over 16 buckets: "a" 97 -> 1, "q" 113 -> 1, then "b c" (hash
    // (98 * 31 + 32) * 31 + 99 = 95269 = 0x17425, spread 0x17424 -> 4).
    assert_eq!(text, json!(r#"{"a":"1","q":"x\"y","b c":null}"#));
    assert_eq!(
        convert(&Conv::Array(Box::new(Conv::Int)), "{1,NULL,3}").unwrap(),
        json!([1, null, 3])
    );
    assert_eq!(
        convert(&Conv::Array(Box::new(Conv::Text)), r#"{"a,b",c}"#).unwrap(),
        json!(["a,b", "c"])
    );
    assert_eq!(zero(&Conv::Text), json!(""));
    assert_eq!(zero(&Conv::Decimal { scale: 2, money: false }), json!("AA=="));
}

#[test]
fn bit_strings_as_little_endian_bitsets() {
    // "101": bits 0 and 2 -> 0b101 = 5.
    assert_eq!(bits("101").unwrap(), [5]);
    // "100000000" (9 chars): only bit 8 -> byte 0 = 0, byte 1 = 1.
    assert_eq!(bits("100000000").unwrap(), [0, 1]);
    // "000000011": bits 0 and 1 -> [3], the zero high byte dropped.
    assert_eq!(bits("000000011").unwrap(), [3]);
    assert_eq!(bits("000").unwrap(), Vec::<u8>::new());
    assert!(bits("102").is_err());
    assert_eq!(convert(&Conv::Bits, "101").unwrap(), json!("BQ=="));
    assert_eq!(convert(&Conv::BitBool, "1").unwrap(), json!(true));
    assert_eq!(convert(&Conv::BitBool, "0").unwrap(), json!(false));
}

#[test]
fn random_text_never_panics_in_any_conversion() {
    let convs = [
        Conv::Int,
        Conv::Float,
        Conv::Bool,
        Conv::Text,
        Conv::Decimal { scale: 2, money: false },
        Conv::Decimal { scale: 2, money: true },
        Conv::VariableDecimal,
        Conv::DecimalDouble { money: true },
        Conv::DecimalString { money: true },
        Conv::Days,
        Conv::TimeMillis,
        Conv::TimeMicros,
        Conv::TimestampMillis,
        Conv::TimestampMicros,
        Conv::ZonedTimestamp { precision: 6 },
        Conv::ZonedTime,
        Conv::IntervalMicros,
        Conv::IntervalIso,
        Conv::Binary(BinaryMode::Hex),
        Conv::BitBool,
        Conv::Bits,
        Conv::HstoreJson,
        Conv::HstoreMap,
        Conv::Array(Box::new(Conv::Int)),
    ];
    let alphabet: Vec<char> = "0123456789-+:. ,{}\"\\=>xNULLé$()ab\tinfty".chars().collect();
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for round in 0..30_000 {
        let len = round % 24;
        let text: String = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                alphabet[(x % alphabet.len() as u64) as usize]
            })
            .collect();
        for conv in &convs {
            let _ = convert_in(conv, &text, round % 2 == 0);
        }
    }
}
