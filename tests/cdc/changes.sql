-- The streaming steps, applied once the connector streams (after schema.sql and snapshot.sql,
-- same search_path). Each statement outside BEGIN/COMMIT is its own transaction; psql runs
-- them in order.

-- Inserts: one with every column, one that leaves c_varchar to its DEFAULT.
INSERT INTO all_types (name, qty, active, price, c_int2, c_int4, c_int8, c_real, c_double,
    c_numeric, c_numeric_any, c_bool, c_text, c_varchar, c_char, c_date, c_time, c_time3,
    c_timetz, c_ts, c_ts3, c_tstz, c_interval, c_json, c_jsonb, c_uuid, c_bytea, c_int_arr,
    c_text_arr, c_mood, c_inet, c_cidr, c_hstore)
VALUES ('streamed', 3, true, 0.05, -1, -1, 9007199254740993, 0.1, -0.5,
    -0.50, 0.000, false, E'tab\there\nnewline', 'v', 'abcde', '1970-01-01', '00:00:00.000001',
    '12:00:00.5', '00:00:00+05:30', '1970-01-01 00:00:00', '2000-01-01 00:00:00.001',
    '2000-01-01 00:00:00+00', '1 mon -1 day 00:00:00.000001', '"scalar"', '[1, "two", {"3": 4}]',
    'ffffffff-ffff-ffff-ffff-ffffffffffff', '\xdeadbeef', '{-2147483648,2147483647}',
    '{"quoted \"x\"","back\\slash"}', 'ok', '10.1.2.3/24', '192.168.0.0/16', 'a=>b');
INSERT INTO all_types (name) VALUES ('defaults');

-- Updates under REPLICA IDENTITY DEFAULT (before: null) and FULL (before: the old row).
UPDATE all_types SET c_text = 'updated', c_numeric = 0.01, qty = qty + 1 WHERE name = 'ordinary';
UPDATE full_rows SET qty = 10, note = 'changed' WHERE id = 1;

-- The rows of extremes and of NULLs, streamed this time: Debezium's snapshot (JDBC) and its
-- stream (pgoutput text) do not map infinities alike.
UPDATE all_types SET qty = qty + 1 WHERE name IN ('', 'nulls');

-- An update that leaves the TOASTed body untouched, then one that changes it.
UPDATE docs SET title = 'big, retitled' WHERE id = 1;
UPDATE docs SET body = 'no longer big' WHERE id = 2;

-- Deletes: DEFAULT (before: the key, nullable columns null, NOT NULL ones their zero value)
-- and FULL (before: the whole row). A tombstone follows each.
DELETE FROM all_types WHERE name = 'nulls';
DELETE FROM full_rows WHERE id = 2;

-- Primary-key changes: delete + tombstone + create, under both identities.
UPDATE all_types SET id = 100 WHERE name = 'past';
UPDATE full_rows SET id = 300 WHERE id = 3;

-- A transaction of several statements on several tables, with a transactional message.
BEGIN;
INSERT INTO full_rows (id, name, qty) VALUES (4, 'four', 4);
UPDATE full_rows SET note = 'in a transaction' WHERE id = 4;
INSERT INTO docs (id, title, body) VALUES (3, 'third', NULL);
SELECT pg_logical_emit_message(true, 'cdc-test', 'inside a transaction');
DELETE FROM docs WHERE id = 3;
COMMIT;

-- Logical decoding messages: non-transactional (no transaction block) and transactional alone.
SELECT pg_logical_emit_message(false, 'cdc-audit', 'outside any transaction');
SELECT pg_logical_emit_message(true, 'cdc-test', convert_to('bytes ☃', 'UTF8'));

-- TRUNCATE (an event with no key and no row).
TRUNCATE full_rows;

-- A last insert after the TRUNCATE.
INSERT INTO full_rows (id, name) VALUES (5, 'after truncate');
