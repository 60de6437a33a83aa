//! Animation of the current arrow: progress 0 → 1 over `duration_ms` after each change of
//! `key` (the cursor), driven by requestAnimationFrame; cancelled on change and unmount.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The frame callback, kept alive (and able to re-request itself) until cleanup.
type FrameSlot = Rc<RefCell<Option<Closure<dyn FnMut()>>>>;

fn now_ms() -> f64 {
    gloo::utils::window().performance().map_or(0.0, |p| p.now())
}

/// Progress of the arrow animation for `key`; 1.0 when `duration_ms` is 0.
#[hook]
pub fn use_arrow_progress(key: usize, duration_ms: f64) -> f64 {
    // A dot mounted for a new arrow starts at the tail, not drawn once at the head first.
    let progress = use_state(|| if duration_ms > 0.0 { 0.0 } else { 1.0_f64 });
    {
        let progress = progress.clone();
        use_effect_with(key, move |_| {
            let stopped = Rc::new(Cell::new(false));
            let pending = Rc::new(Cell::new(None::<i32>));
            if duration_ms <= 0.0 {
                progress.set(1.0);
            } else {
                progress.set(0.0);
                let start = now_ms();
                let frame: FrameSlot = Rc::new(RefCell::new(None));
                let again = frame.clone();
                let (stop, pend) = (stopped.clone(), pending.clone());
                *frame.borrow_mut() = Some(Closure::new(move || {
                    if stop.get() {
                        return;
                    }
                    let t = ((now_ms() - start) / duration_ms).clamp(0.0, 1.0);
                    progress.set(t);
                    if t < 1.0 {
                        if let Some(cb) = again.borrow().as_ref() {
                            pend.set(
                                gloo::utils::window()
                                    .request_animation_frame(cb.as_ref().unchecked_ref())
                                    .ok(),
                            );
                        }
                    }
                }));
                if let Some(cb) = frame.borrow().as_ref() {
                    pending.set(
                        gloo::utils::window()
                            .request_animation_frame(cb.as_ref().unchecked_ref())
                            .ok(),
                    );
                }
                // The closure lives until cleanup (it refers to itself through `frame`).
                let keep = frame;
                return Box::new(move || {
                    stopped.set(true);
                    if let Some(id) = pending.get() {
                        let _ = gloo::utils::window().cancel_animation_frame(id);
                    }
                    keep.borrow_mut().take();
                }) as Box<dyn FnOnce()>;
            }
            Box::new(move || stopped.set(true)) as Box<dyn FnOnce()>
        });
    }
    *progress
}
