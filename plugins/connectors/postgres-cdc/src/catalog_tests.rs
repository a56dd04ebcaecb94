//! Against the real PostgreSQL (`scripts/postgres.sh`); skipped when `POSTGRES_URL` is unset.

use postgres_wire::{Client, ConnectUrl};
use wasm_connect_sdk::Config;

use super::*;

fn meta(names: &[(&str, u32)]) -> TableMeta {
    TableMeta {
        oid: 1,
        schema: "s".into(),
        name: "t".into(),
        replica_identity: 'd',
        columns: names
            .iter()
            .map(|(n, oid)| ColumnMeta {
                name: (*n).into(),
                position: 0,
                type_oid: *oid,
                type_modifier: -1,
                type_name: String::new(),
                not_null: false,
                default_expr: None,
                key: false,
                ty: PgType::Int4,
            })
            .collect(),
    }
}

fn relation(names: &[(&str, u32)]) -> Relation {
    Relation {
        oid: 1,
        namespace: "s".into(),
        name: "t".into(),
        replica_identity: 'd',
        columns: names
            .iter()
            .map(|(n, oid)| crate::pgoutput::RelationColumn {
                key: false,
                name: (*n).into(),
                type_oid: *oid,
                type_modifier: -1,
            })
            .collect(),
    }
}

#[test]
fn relations_match_and_tuples_align_by_name() {
    let t = meta(&[("a", 23), ("b", 25)]);
    assert!(t.matches(&relation(&[("a", 23), ("b", 25)])));
    assert!(!t.matches(&relation(&[("a", 23), ("b", 20)])), "type changed");
    assert!(!t.matches(&relation(&[("a", 23)])), "column dropped");
    let r = relation(&[("b", 25), ("c", 23), ("a", 23)]);
    let tuple = [Datum::Text("B".into()), Datum::Text("C".into()), Datum::Unchanged];
    assert_eq!(t.align(&r, &tuple), [Datum::Unchanged, Datum::Text("B".into())]);
    let short = relation(&[("a", 23)]);
    assert_eq!(t.align(&short, &[Datum::Text("1".into())]), [Datum::Text("1".into()), Datum::Null]);
}

fn client() -> Option<Client> {
    let url = std::env::var("POSTGRES_URL").ok()?;
    let user = std::env::var("POSTGRES_USER").ok()?;
    let password = std::env::var("POSTGRES_PASSWORD").ok()?;
    Some(Client::connect(&ConnectUrl::parse(&url).unwrap(), &user, &password).unwrap())
}

#[test]
fn tables_columns_keys_and_types() {
    let Some(mut c) = client() else {
        eprintln!("POSTGRES_URL unset: skipped");
        return;
    };
    let sc = format!("cdccore_cat_{}", std::process::id());
    c.simple_query(&format!(
        "DROP SCHEMA IF EXISTS {sc} CASCADE; CREATE SCHEMA {sc}; \
         CREATE TYPE {sc}.mood AS ENUM ('sad', 'ok', 'happy'); \
         CREATE DOMAIN {sc}.posint AS integer CHECK (VALUE > 0); \
         CREATE TABLE {sc}.b (id serial PRIMARY KEY, name varchar(20) NOT NULL DEFAULT 'x', \
           m {sc}.mood, ms {sc}.mood[], p {sc}.posint, n numeric(10,2), tags text[]); \
         CREATE TABLE {sc}.a (k1 int NOT NULL, k2 int NOT NULL, v text); \
         CREATE UNIQUE INDEX a_k ON {sc}.a (k2, k1); ALTER TABLE {sc}.a REPLICA IDENTITY USING INDEX a_k; \
         CREATE TABLE {sc}.skipped (x int);"
    ))
    .unwrap();
    let settings = Settings::parse(
        &Config::new()
            .with("database.hostname", "h")
            .with("database.user", "u")
            .with("database.dbname", "d")
            .with("topic.prefix", "pg")
            .with("table.include.list", format!("{sc}\\.(a|b)")),
    )
    .unwrap();
    let result = tables(&mut c, &settings);
    c.simple_query(&format!("DROP SCHEMA {sc} CASCADE")).unwrap();
    let t = result.unwrap();
    let names: Vec<_> = t.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a", "b"], "name order, filtered");
    assert_eq!(t[0].replica_identity, 'i');
    let keys: Vec<_> = t[0].columns.iter().map(|c| c.key).collect();
    assert_eq!(keys, [true, true, false], "replica identity index columns");
    let b = &t[1];
    assert_eq!(b.replica_identity, 'd');
    let col = |n: &str| b.columns.iter().find(|c| c.name == n).unwrap();
    assert!(
        col("id").key
            && col("id").not_null
            && col("id").default_expr.as_deref().unwrap().starts_with("nextval(")
    );
    assert_eq!(col("name").type_name, "character varying(20)");
    assert_eq!(col("name").default_expr.as_deref(), Some("'x'::character varying"));
    let mood = PgType::Enum(vec!["sad".into(), "ok".into(), "happy".into()]);
    assert_eq!(col("m").ty, mood);
    assert_eq!(col("ms").ty, PgType::Array(Box::new(mood)));
    assert_eq!(col("p").ty, PgType::Int4, "a domain is its base type");
    assert_eq!(col("n").type_modifier, ((10 << 16) | 2) + 4);
    assert_eq!(col("tags").ty, PgType::Array(Box::new(PgType::Text)));
}
