//! The bridge between the generated WIT bindings and the plugin author's types.
//!
//! This module owns [`Glue`], the one type the export macros hand to wit-bindgen: it
//! implements every generated `Guest` trait by delegating to the author's [`Connector`]
//! and task (or [`Transform`](crate::Transform)), converting WIT values on the way. It also owns the per-interface instance
//! state: one `thread_local!` slot per exported interface, created with `Default` on the
//! first call (one instance per Store; the worker never shares an instance) and dropped
//! after `stop`. It must not contain plugin logic or encode records itself.
//!
//! The native test harness ([`testing`](crate::testing)) calls the same `Guest`
//! implementations and slots, so a unit test runs every conversion a component runs.
//!
//! Layout: `convert` (WIT values <-> SDK values), `connector`, `exactly_once`, `source`,
//! `sink`, `transform` (one `Guest` implementation each).
//!
//! [`Connector`]: crate::Connector

pub(crate) mod connector;
pub(crate) mod convert;
pub(crate) mod exactly_once;
mod sink;
mod source;
pub(crate) mod transform;

use std::any::Any;
use std::cell::RefCell;
use std::marker::PhantomData;
use std::thread::LocalKey;

/// The type the export macros pass to wit-bindgen's export macro: `C` is the plugin's
/// connector, `T` its task; for a transform, `C` is the [`Transform`](crate::Transform)
/// and `T` is `()`. Never constructed.
#[doc(hidden)]
pub struct Glue<C, T>(PhantomData<fn() -> (C, T)>);

pub(crate) type Slot = RefCell<Option<Box<dyn Any>>>;

thread_local! {
    pub(crate) static CONNECTOR: Slot = const { RefCell::new(None) };
    pub(crate) static SOURCE_TASK: Slot = const { RefCell::new(None) };
    pub(crate) static SINK_TASK: Slot = const { RefCell::new(None) };
    pub(crate) static TRANSFORM: Slot = const { RefCell::new(None) };
}

/// Runs `f` on the state in `slot`, creating it with `Default` first if needed.
pub(crate) fn with_state<S: Default + 'static, R>(
    slot: &'static LocalKey<Slot>,
    f: impl FnOnce(&mut S) -> R,
) -> R {
    slot.with(|cell| {
        let mut guard = cell.borrow_mut();
        let state = guard.get_or_insert_with(|| Box::new(S::default()));
        let state = state.downcast_mut::<S>().expect("a component exports exactly one plugin");
        f(state)
    })
}

/// Drops the state in `slot`, outside the borrow so that `Drop` code may log.
pub(crate) fn drop_state(slot: &'static LocalKey<Slot>) {
    let state = slot.with(|cell| cell.borrow_mut().take());
    drop(state);
}
