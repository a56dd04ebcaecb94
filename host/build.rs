//! Rebuilds the binary when the files it embeds change: `plugins new` compiles the project
//! templates, the WIT contract and the Python and JavaScript SDKs into the binary
//! (`include_dir!`), and cargo does not track those by itself.

fn main() {
    for dir in ["../plugins/templates", "../wit", "../plugins/sdk-python", "../plugins/sdk-js"] {
        println!("cargo:rerun-if-changed={dir}");
    }
}
