//! The panic message of each test thread, kept so that a fixture which prints long logs
//! when its test fails ([`crate::cluster::Cluster`]) can repeat the message after them: a
//! CI log cut in the middle then still shows why the test failed at its end.

use std::collections::HashMap;
use std::sync::{Mutex, Once, OnceLock};

fn messages() -> &'static Mutex<HashMap<String, String>> {
    static MESSAGES: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    MESSAGES.get_or_init(Mutex::default)
}

fn thread_name() -> String {
    std::thread::current().name().unwrap_or("unnamed").to_owned()
}

/// Installs (once) a panic hook that keeps each thread's message, then reports it as the
/// default hook does.
pub fn remember() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let at = info.location().map(|l| format!(" at {l}")).unwrap_or_default();
            let payload = info.payload();
            let text = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            if let Ok(mut m) = messages().lock() {
                m.insert(thread_name(), format!("panicked{at}: {text}"));
            }
            default(info);
        }));
    });
}

/// The panic message of the current thread, if it panicked after [`remember`].
pub fn of_this_thread() -> Option<String> {
    messages().lock().ok()?.get(&thread_name()).cloned()
}
