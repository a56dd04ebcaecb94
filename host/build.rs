//! Rebuilds the binary when the files it embeds change: `plugins new` compiles the project
//! templates, the WIT contract and the Python and JavaScript SDKs into the binary
//! (`include_dir!`), and cargo does not track those by itself.
//!
//! Also stamps the source revision into `WASM_CONNECT_COMMIT` (`GET /`'s `commit`): the
//! environment's value when set (a build from a source archive), else `git rev-parse HEAD`,
//! else none (the REST answer then says `unknown`).

use std::process::Command;

fn main() {
    for dir in ["../plugins/templates", "../wit", "../plugins/sdk-python", "../plugins/sdk-js"] {
        println!("cargo:rerun-if-changed={dir}");
    }
    println!("cargo:rerun-if-env-changed=WASM_CONNECT_COMMIT");
    if std::env::var_os("WASM_CONNECT_COMMIT").is_some() {
        return;
    }
    if let Some(commit) = git(&["rev-parse", "HEAD"]) {
        println!("cargo:rustc-env=WASM_CONNECT_COMMIT={commit}");
        // A new commit or checkout moves HEAD or the branch it names.
        for path in ["HEAD", "packed-refs"] {
            if let Some(p) = git(&["rev-parse", "--git-path", path]) {
                println!("cargo:rerun-if-changed={p}");
            }
        }
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
            && let Some(p) = git(&["rev-parse", "--git-path", &branch])
        {
            println!("cargo:rerun-if-changed={p}");
        }
    }
}

/// The trimmed output of a successful git command, run in this crate's directory.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !text.is_empty()).then_some(text)
}
