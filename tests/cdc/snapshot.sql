-- The rows present before the connector starts (its initial snapshot reads them). Run after
-- schema.sql, with the same search_path. Expected values in the comments are what Debezium
-- 3.6.1 emits with decimal.handling.mode=precise, time.precision.mode=adaptive and
-- binary.handling.mode=bytes (see /work/shared/reference/debezium-postgres.md).

-- 1: ordinary values of every type.
INSERT INTO all_types (name, qty, active, price, c_int2, c_int4, c_int8, c_real, c_double,
    c_numeric, c_numeric_any, c_bool, c_text, c_varchar, c_char, c_date, c_time, c_time3,
    c_timetz, c_ts, c_ts3, c_tstz, c_interval, c_json, c_jsonb, c_uuid, c_bytea, c_int_arr,
    c_text_arr, c_mood, c_inet, c_cidr, c_hstore)
VALUES ('ordinary', 7, true, 12.50, 12, 1234, 123456789012, 1.5, 2.25,
    1234.56, 3.14159, true, 'héllo "wörld"', 'short', 'ab', '2024-02-29', '11:45:30.123456',
    '11:45:30.123', '11:45:30+00', '2024-02-29 11:45:30.123456', '2024-02-29 11:45:30.123',
    '2024-02-29 11:45:30.123456+00', '1 year 2 months 3 days 04:05:06.789',
    '{"a": 1, "b": [true, null]}', '{"b": [true, null], "a": 1}',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\x0001ff', '{1,2,3}', '{"x","y,z",""}', 'happy',
    '192.168.0.1', '10.0.0.0/8', '"k1"=>"v1", "k2"=>NULL');

-- 2: extremes: each integer type's bounds, int8 above 2^53, infinities, negative numbers,
-- the epoch, dates before it, empty strings, arrays and bytes.
INSERT INTO all_types (name, qty, active, price, c_int2, c_int4, c_int8, c_real, c_double,
    c_numeric, c_numeric_any, c_bool, c_text, c_varchar, c_char, c_date, c_time, c_time3,
    c_timetz, c_ts, c_ts3, c_tstz, c_interval, c_json, c_jsonb, c_uuid, c_bytea, c_int_arr,
    c_text_arr, c_mood, c_inet, c_cidr, c_hstore)
VALUES ('', -2147483648, false, -99999999.99, -32768, 2147483647, 9007199254740993, -3.4e38,
    1.7976931348623157e308, 99999999.99, -12345678901234567890.000000001, false, '', '',
    '', 'infinity', '23:59:59.999999', '00:00:00', '23:59:59-08', 'infinity', '-infinity',
    'infinity', '-1 days -00:00:01', '[]', '{}', '00000000-0000-0000-0000-000000000000', '\x',
    '{}', '{}', 'sad', '::1', '2001:db8::/32', '');

-- 3: every nullable column NULL.
INSERT INTO all_types (name, qty, active, price, c_varchar) VALUES ('nulls', 0, false, 0, NULL);

-- 4: before the epoch and the smallest values; -infinity for the date.
INSERT INTO all_types (name, c_int2, c_int4, c_int8, c_numeric, c_numeric_any, c_date, c_ts,
    c_ts3, c_tstz, c_interval, c_int_arr, c_text_arr)
VALUES ('past', 32767, -2147483648, -9223372036854775808, -0.01, 0.000, '-infinity',
    '1969-12-31 23:59:59.999999', '1900-01-01 00:00:00', '-infinity', '0', '{NULL,-1}',
    '{NULL}');

INSERT INTO full_rows (id, name, qty, note) VALUES
    (1, 'one', 1, 'first'), (2, 'two', 2, NULL), (3, 'three', 3, 'third');

INSERT INTO docs (id, title, body)
SELECT 1, 'big', string_agg(md5(i::text), '') FROM generate_series(1, 400) AS i;
INSERT INTO docs (id, title, body) VALUES (2, 'small', 'short body');
