//! [`reverse_transform`]: Kafka Connect's `AbstractHerder.reverseTransform`. Task configs
//! come back from the connector with resolved values; before they are written, every key
//! whose value in the connector's config as written holds a reference gets that written
//! value back, in each task config that has the key. Secrets resolved for the plugin are
//! thus never written to the config topic.

use super::variable::has_variables;
use crate::model::Properties;

/// `tasks` with the written value of `connector`'s keys that hold references.
pub fn reverse_transform(connector: &Properties, mut tasks: Vec<Properties>) -> Vec<Properties> {
    let with_references: Vec<(&String, &String)> =
        connector.iter().filter(|(_, v)| has_variables(v)).collect();
    for task in &mut tasks {
        for (key, raw) in &with_references {
            if let Some(value) = task.get_mut(*key) {
                value.clone_from(raw);
            }
        }
    }
    tasks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> Properties {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn written_references_go_back_into_the_tasks_that_have_the_key() {
        let connector = props(&[
            ("connection.password", "${file:/s.properties:password}"),
            ("url", "jdbc://${env:HOST}/db"),
            ("tasks.max", "2"),
        ]);
        let tasks = vec![
            props(&[("connection.password", "hunter2"), ("url", "jdbc://db1/db"), ("table", "a")]),
            props(&[("table", "b"), ("tasks.max", "2")]),
        ];
        assert_eq!(
            reverse_transform(&connector, tasks),
            vec![
                props(&[
                    ("connection.password", "${file:/s.properties:password}"),
                    ("url", "jdbc://${env:HOST}/db"),
                    ("table", "a")
                ]),
                // No key added; keys without references untouched.
                props(&[("table", "b"), ("tasks.max", "2")]),
            ]
        );
    }
}
