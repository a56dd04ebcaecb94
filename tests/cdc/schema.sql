-- The change-data-capture scenario's tables, shared by scripts/compare-debezium.sh,
-- scripts/bench-cdc.sh and the end-to-end tests. Run as the replicating user (who must own the
-- tables: a `filtered` publication is made of them) in an empty schema with
-- `SET search_path TO <schema>, public`: nothing here names a schema. The superuser must have
-- run `CREATE EXTENSION IF NOT EXISTS hstore` (into public) first.
--
-- Tables (all with a primary key `id`):
--   all_types   every column type the connector maps, REPLICA IDENTITY DEFAULT, one NOT NULL
--               non-key column of each of text, int4, bool and numeric (a delete's `before`
--               gives them their type's zero value)
--   full_rows   REPLICA IDENTITY FULL: updates and deletes carry the whole old row
--   docs        a big TOASTed text (`body`, stored out of line uncompressed): an update that
--               leaves it untouched does not carry it

CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');

CREATE TABLE all_types (
    id            serial PRIMARY KEY,
    name          text NOT NULL,
    qty           int4 NOT NULL DEFAULT 0,
    active        bool NOT NULL DEFAULT true,
    price         numeric(10, 2) NOT NULL DEFAULT 0,
    c_int2        int2,
    c_int4        int4,
    c_int8        int8,
    c_real        real,
    c_double      double precision,
    c_numeric     numeric(10, 2),
    c_numeric_any numeric,
    c_bool        bool,
    c_text        text,
    c_varchar     varchar(20) DEFAULT 'dflt',
    c_char        char(5),
    c_date        date,
    c_time        time,
    c_time3       time(3),
    c_timetz      timetz,
    c_ts          timestamp,
    c_ts3         timestamp(3),
    c_tstz        timestamptz,
    c_interval    interval,
    c_json        json,
    c_jsonb       jsonb,
    c_uuid        uuid,
    c_bytea       bytea,
    c_int_arr     int4[],
    c_text_arr    text[],
    c_mood        mood,
    c_inet        inet,
    c_cidr        cidr,
    c_hstore      hstore
);

CREATE TABLE full_rows (
    id   int4 PRIMARY KEY,
    name text NOT NULL,
    qty  int4,
    note text
);
ALTER TABLE full_rows REPLICA IDENTITY FULL;

CREATE TABLE docs (
    id    int4 PRIMARY KEY,
    title text NOT NULL,
    body  text
);
-- Out of line and uncompressed, so even a compressible value is TOASTed.
ALTER TABLE docs ALTER COLUMN body SET STORAGE EXTERNAL;
