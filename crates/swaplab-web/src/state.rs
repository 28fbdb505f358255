//! The playground's state as Yew sees it: `swaplab_core::session::Session` behind
//! Yew's `Reducible`, so every change goes through the core's reducer.

use std::rc::Rc;

use swaplab_core::session::{Action, Session};
use yew::Reducible;

/// The playground session, shared through `use_reducer`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayState(pub Session);

impl Reducible for PlayState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut state = Rc::unwrap_or_clone(self);
        state.0.apply(action);
        Rc::new(state)
    }
}
