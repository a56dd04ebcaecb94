-- The changes scripts/compare-debezium.sh takeover makes while no worker runs: after Debezium
-- on Kafka Connect stopped, before wasm-connect resumes the same connector. The `expect` lines
-- are the data events the topics must gain, exactly once each (table, op, count); tombstones
-- follow the deletes. Same search_path as schema.sql.
-- expect: full_rows c 20
-- expect: full_rows u 5
-- expect: full_rows d 2
-- expect: all_types c 1

-- Ten transactions of two inserts each (ids 1000..1019).
INSERT INTO full_rows (id, name, qty) SELECT g, 'handed over ' || g, g FROM generate_series(1000, 1001) AS g;
INSERT INTO full_rows (id, name, qty) SELECT g, 'handed over ' || g, g FROM generate_series(1002, 1003) AS g;
INSERT INTO full_rows (id, name, qty) SELECT g, 'handed over ' || g, g FROM generate_series(1004, 1005) AS g;
INSERT INTO full_rows (id, name, qty) SELECT g, 'handed over ' || g, g FROM generate_series(1006, 1007) AS g;
INSERT INTO full_rows (id, name, qty) SELECT g, 'handed over ' || g, g FROM generate_series(1008, 1009) AS g;
INSERT INTO full_rows (id, name, qty) SELECT g, 'handed over ' || g, g FROM generate_series(1010, 1011) AS g;
INSERT INTO full_rows (id, name, qty) SELECT g, 'handed over ' || g, g FROM generate_series(1012, 1013) AS g;
INSERT INTO full_rows (id, name, qty) SELECT g, 'handed over ' || g, g FROM generate_series(1014, 1015) AS g;
INSERT INTO full_rows (id, name, qty) SELECT g, 'handed over ' || g, g FROM generate_series(1016, 1017) AS g;
INSERT INTO full_rows (id, name, qty) SELECT g, 'handed over ' || g, g FROM generate_series(1018, 1019) AS g;

-- One transaction of five updates, one of two deletes, one more insert elsewhere.
UPDATE full_rows SET qty = qty + 1 WHERE id BETWEEN 1000 AND 1004;
DELETE FROM full_rows WHERE id IN (1018, 1019);
INSERT INTO all_types (name) VALUES ('handed over');
