//! The SQL text of the sink's statements, with `$n` placeholders for values: multi-row
//! INSERT, INSERT .. ON CONFLICT DO UPDATE, UPDATE, DELETE, CREATE TABLE and ALTER TABLE
//! .. ADD. Identifiers are always quoted. Pure.

use postgres_wire::quote_ident;

use crate::record::Column;

fn list(names: &[&str]) -> String {
    names.iter().map(|n| quote_ident(n)).collect::<Vec<_>>().join(",")
}

fn values(rows: usize, width: usize) -> String {
    let mut out = String::with_capacity(rows * width * 5);
    for r in 0..rows {
        if r > 0 {
            out.push(',');
        }
        out.push('(');
        for c in 0..width {
            if c > 0 {
                out.push(',');
            }
            out.push('$');
            out.push_str(&(r * width + c + 1).to_string());
        }
        out.push(')');
    }
    out
}

/// `INSERT INTO t (cols) VALUES (..),(..)` for `rows` rows.
pub fn insert(table: &str, cols: &[&str], rows: usize) -> String {
    format!(
        "INSERT INTO {} ({}) VALUES {}",
        quote_ident(table),
        list(cols),
        values(rows, cols.len())
    )
}

/// An insert that updates the non-key columns of a row whose key exists.
pub fn upsert(table: &str, cols: &[&str], key: &[&str], rows: usize) -> String {
    let set: Vec<String> = cols
        .iter()
        .filter(|c| !key.contains(c))
        .map(|c| format!("{0}=EXCLUDED.{0}", quote_ident(c)))
        .collect();
    let action =
        if set.is_empty() { "NOTHING".into() } else { format!("UPDATE SET {}", set.join(",")) };
    format!("{} ON CONFLICT ({}) DO {action}", insert(table, cols, rows), list(key))
}

/// `UPDATE t SET a=$1 WHERE k=$2`: the set columns' values first, then the key's.
pub fn update(table: &str, set: &[&str], key: &[&str]) -> String {
    let assign: Vec<String> =
        set.iter().enumerate().map(|(i, c)| format!("{}=${}", quote_ident(c), i + 1)).collect();
    let cond: Vec<String> = key
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{}=${}", quote_ident(c), set.len() + i + 1))
        .collect();
    format!("UPDATE {} SET {} WHERE {}", quote_ident(table), assign.join(","), cond.join(" AND "))
}

/// `DELETE FROM t WHERE` the key is one of `rows` keys.
pub fn delete(table: &str, key: &[&str], rows: usize) -> String {
    let cond = if key.len() == 1 {
        format!(
            "{} IN ({})",
            quote_ident(key[0]),
            (1..=rows).map(|i| format!("${i}")).collect::<Vec<_>>().join(",")
        )
    } else {
        (0..rows)
            .map(|r| {
                let one: Vec<String> = key
                    .iter()
                    .enumerate()
                    .map(|(i, c)| format!("{}=${}", quote_ident(c), r * key.len() + i + 1))
                    .collect();
                format!("({})", one.join(" AND "))
            })
            .collect::<Vec<_>>()
            .join(" OR ")
    };
    format!("DELETE FROM {} WHERE {cond}", quote_ident(table))
}

fn definition(c: &Column) -> String {
    let null = if c.optional { "NULL" } else { "NOT NULL" };
    format!("{} {} {null}", quote_ident(&c.name), c.sql_type.as_deref().unwrap_or("TEXT"))
}

/// `CREATE TABLE IF NOT EXISTS` with the columns and the primary key, as the JDBC sink's
/// `auto.create` does.
pub fn create_table(table: &str, cols: &[&Column], key: &[&str]) -> String {
    let mut parts: Vec<String> = cols.iter().map(|c| definition(c)).collect();
    if !key.is_empty() {
        parts.push(format!("PRIMARY KEY({})", list(key)));
    }
    format!("CREATE TABLE IF NOT EXISTS {} ({})", quote_ident(table), parts.join(","))
}

/// `ALTER TABLE .. ADD COLUMN IF NOT EXISTS`, as `auto.evolve` does.
pub fn add_column(table: &str, col: &Column) -> String {
    format!("ALTER TABLE {} ADD COLUMN IF NOT EXISTS {}", quote_ident(table), definition(col))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_number_their_placeholders_in_order() {
        assert_eq!(
            insert("t", &["a", "b"], 2),
            r#"INSERT INTO "t" ("a","b") VALUES ($1,$2),($3,$4)"#
        );
        assert_eq!(
            upsert("t", &["k", "v"], &["k"], 1),
            r#"INSERT INTO "t" ("k","v") VALUES ($1,$2) ON CONFLICT ("k") DO UPDATE SET "v"=EXCLUDED."v""#
        );
        assert_eq!(
            update("t", &["v"], &["k", "j"]),
            r#"UPDATE "t" SET "v"=$1 WHERE "k"=$2 AND "j"=$3"#
        );
        assert_eq!(delete("t", &["k"], 3), r#"DELETE FROM "t" WHERE "k" IN ($1,$2,$3)"#);
        assert_eq!(
            delete("t", &["k", "j"], 2),
            r#"DELETE FROM "t" WHERE ("k"=$1 AND "j"=$2) OR ("k"=$3 AND "j"=$4)"#
        );
        let id = Column {
            name: "id".into(),
            sql_type: Some("BIGINT".into()),
            optional: false,
            value: None,
        };
        let n =
            Column { name: "n".into(), sql_type: Some("TEXT".into()), optional: true, value: None };
        assert_eq!(
            create_table("t", &[&id, &n], &["id"]),
            r#"CREATE TABLE IF NOT EXISTS "t" ("id" BIGINT NOT NULL,"n" TEXT NULL,PRIMARY KEY("id"))"#
        );
    }
}
