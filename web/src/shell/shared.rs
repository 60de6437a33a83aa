//! `Shared<T>`: an `Rc` that compares by pointer, for props that carry engine state.

use std::ops::Deref;
use std::rc::Rc;

/// An `Rc` that compares by pointer (a new world is a new `Rc`), so props holding a world or a
/// run compare in constant time.
#[derive(Debug)]
pub struct Shared<T>(pub Rc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}
