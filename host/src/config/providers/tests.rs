//! Tests of resolution across providers and of the worker keys that configure them.

use std::collections::BTreeMap;

use super::*;
use crate::config::{Mode, WorkerConfig};

fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

/// `file` and `env` providers over a secrets file in a temporary directory.
fn fixture() -> (tempfile::TempDir, String, ConfigProviders) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("secrets.properties");
    std::fs::write(&file, "password=hunter2\nuser=admin\nout=/secret-dir-x1/out.txt\n").unwrap();
    let env =
        EnvProvider::new(Some("DB_.*")).unwrap().with_vars(&[("DB_HOST", "db1"), ("HOME", "/h")]);
    let providers = ConfigProviders::new([
        ("file".to_owned(), Provider::File(FileProvider::default())),
        ("env".to_owned(), Provider::Env(env)),
    ]);
    (dir, file.display().to_string(), providers)
}

#[test]
fn references_resolve_and_the_rest_stays_as_written() {
    let (_dir, file, providers) = fixture();
    let config = pairs(&[
        ("connection.password", &format!("${{file:{file}:password}}")),
        ("connection.url", &format!("jdbc://${{env:DB_HOST}}/db?u=${{file:{file}:user}}")),
        ("missing.key", &format!("${{file:{file}:nope}}")),
        ("unknown.provider", "${vault:/secret:pw}"),
        ("not.allowed", "${env:HOME}"),
        ("plain", "x"),
    ]);
    let resolved = providers.resolve(&config).unwrap();
    assert!(resolved.changed());
    let got: BTreeMap<_, _> = resolved.properties();
    assert_eq!(got["connection.password"], "hunter2");
    assert_eq!(got["connection.url"], "jdbc://db1/db?u=admin");
    assert_eq!(got["missing.key"], format!("${{file:{file}:nope}}"));
    assert_eq!(got["unknown.provider"], "${vault:/secret:pw}");
    assert_eq!(got["not.allowed"], "${env:HOME}");
    assert_eq!(got["plain"], "x");
    // Debug shows keys only.
    assert!(!format!("{resolved:?}").contains("hunter2"));
}

#[test]
fn scrub_puts_the_references_back() {
    let (_dir, file, providers) = fixture();
    let reference = format!("${{file:{file}:password}}");
    let resolved =
        providers.resolve(&pairs(&[("p", &reference), ("h", "${env:DB_HOST}")])).unwrap();
    assert_eq!(
        resolved.scrub("login failed for hunter2 on db1"),
        format!("login failed for {reference} on ${{env:DB_HOST}}")
    );
    // A piece of a value, such as the directory of a resolved path, is hidden; short
    // runs a value happens to share with the text stay.
    let path = providers.resolve(&pairs(&[("f", &format!("${{file:{file}:out}}"))])).unwrap();
    assert!(path.changed());
    assert_eq!(
        path.scrub("directory /secret-dir-x1 does not exist; wrote /secret-dir-x1/out.txt"),
        format!("directory [hidden] does not exist; wrote ${{file:{file}:out}}")
    );
    assert_eq!(path.scrub("/secret is fine"), "/secret is fine");
    let plain = providers.resolve(&pairs(&[("p", "x")])).unwrap();
    assert!(!plain.changed());
    assert_eq!(plain.scrub("x hunter2"), "x hunter2");
}

#[test]
fn a_failing_provider_names_the_key() {
    let (dir, _file, providers) = fixture();
    let missing = dir.path().join("missing.properties");
    let config = pairs(&[("a", "1"), ("b", &format!("${{file:{}:k}}", missing.display()))]);
    let e = providers.resolve(&config).unwrap_err();
    assert_eq!(e.key, "b");
    assert!(e.to_string().starts_with("Could not resolve the config provider references in b: Could not read properties from file"), "{e}");
    let e = providers.resolve(&pairs(&[("c", "${env:/x:DB_HOST}")])).unwrap_err();
    assert_eq!(e.reason, "Path is not supported for EnvVarConfigProvider, invalid value '/x'");
}

#[test]
fn no_providers_resolve_nothing() {
    let config = pairs(&[("a", "${file:/etc/passwd:root}")]);
    let resolved = ConfigProviders::default().resolve(&config).unwrap();
    assert_eq!(resolved.values(), &config);
    assert!(!resolved.changed());
}

fn worker(extra: &str) -> Result<WorkerConfig, Vec<(String, String)>> {
    let text = format!("plugin.path=p\n{extra}");
    let props = crate::config::properties::parse(&text, std::path::Path::new("w")).unwrap();
    WorkerConfig::from_properties(&props, Mode::Standalone)
        .map_err(|e| e.problems().iter().map(|p| (p.key.clone(), p.message.clone())).collect())
}

#[test]
fn worker_keys_with_kafkas_names() {
    let dir = tempfile::tempdir().unwrap();
    let c = worker(&format!(
        "config.providers=file, env,dir\n\
         config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider\n\
         config.providers.file.param.allowed.paths={}\n\
         config.providers.env.class=EnvVarConfigProvider\n\
         config.providers.env.param.allowlist.pattern=DB_.*\n\
         config.providers.dir.class=Directory\n",
        dir.path().display()
    ))
    .unwrap();
    assert_eq!(c.config_providers.names().collect::<Vec<_>>(), ["dir", "env", "file"]);
    assert!(c.ignored_keys.is_empty(), "{:?}", c.ignored_keys);
    assert!(worker("").unwrap().config_providers.is_empty());
}

#[test]
fn wrong_provider_keys_are_problems_naming_the_key() {
    let got = worker(
        "config.providers=file,vault,env\n\
         config.providers.vault.class=com.example.VaultConfigProvider\n\
         config.providers.env.class=EnvVar\n\
         config.providers.env.param.allowed.paths=/\n\
         config.providers.other.class=File\n\
         config.providers.file.weird=1\n",
    )
    .unwrap_err();
    let keys: Vec<&str> = got.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "config.providers.file.weird",
            "config.providers.other.class",
            "config.providers.file.class",
            "config.providers.vault.class",
            "config.providers.env.param.allowed.paths",
        ]
    );
    assert!(got[1].1.contains("no provider named \"other\""), "{got:?}");
    assert!(got[2].1.starts_with("missing"), "{got:?}");
    assert!(got[3].1.starts_with("Failed to find any class that implements ConfigProvider and which name matches com.example.VaultConfigProvider"), "{got:?}");
    let got = worker("config.providers=file\nconfig.providers.file.class=File\nconfig.providers.file.param.allowed.paths=rel\n").unwrap_err();
    assert_eq!(
        got,
        [(
            "config.providers.file.param.allowed.paths".to_owned(),
            "Path rel is not absolute".to_owned()
        )]
    );
}

#[test]
fn the_worker_files_own_references_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("jaas.properties");
    std::fs::write(&file, "jaas=org.apache.kafka.common.security.plain.PlainLoginModule required password=\"hunter2\";\nport=notaport\n").unwrap();
    let f = file.display();
    let head = "config.providers=file\nconfig.providers.file.class=File\n";
    let c = worker(&format!("{head}sasl.jaas.config=${{file:{f}:jaas}}\n")).unwrap();
    assert!(c.client_props["sasl.jaas.config"].contains("hunter2"));
    // A problem in a resolved value shows the reference.
    let got = worker(&format!("{head}rest.advertised.port=${{file:{f}:port}}\n")).unwrap_err();
    assert_eq!(got[0].0, "rest.advertised.port");
    assert!(
        got[0].1.contains(&format!("${{file:{f}:port}}")) && !got[0].1.contains("notaport"),
        "{got:?}"
    );
    // A file that cannot be read stops the worker, naming the key.
    let got = worker(&format!("{head}sasl.jaas.config=${{file:{f}.missing:jaas}}\n")).unwrap_err();
    assert_eq!(got[0].0, "sasl.jaas.config");
}
