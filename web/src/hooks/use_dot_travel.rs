//! The current arrow's dot travels from the arrow's tail to its head after each change of `key`
//! (the cursor): a Web Animations API animation of the dot's `transform`, which the browser's
//! compositor plays without the page's main thread. The dot is drawn at the head; the animation
//! only moves it there, so what is drawn when it ends (or when the reader's system asks for less
//! motion, `prefers-reduced-motion: reduce`, and nothing moves) is the same.
//!
//! It replaced a requestAnimationFrame loop that set the dot's position at every frame: each
//! frame re-rendered the dot and had the browser lay out and paint the whole page again, which
//! at 64 channels × 1,000 batches cost more of a step than the step itself.

use crate::shell::{media_matches, now_ms};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A running animation (`Animation` of the Web Animations API).
    type Animation;

    /// An element, seen as one that can be animated.
    #[wasm_bindgen(extends = web_sys::Element)]
    type Animatable;

    /// `Element.animate(keyframes, options)`: bound here because web-sys marks it unstable.
    #[wasm_bindgen(method, js_name = animate)]
    fn animate(this: &Animatable, keyframes: &js_sys::Array, options: &JsValue) -> Animation;

    /// `Animation.cancel()`: stops it and drops its effect.
    #[wasm_bindgen(method)]
    fn cancel(this: &Animation);
}

/// Points along the path at which the travel is sampled (the easing is baked into them, so a
/// curved self-loop is followed too; the browser interpolates linearly between them).
pub const TRAVEL_SAMPLES: usize = 16;

/// How long the dot of the step keyed `key` travels: `duration_ms` when the step comes at
/// least that long after the one before, else 0 — while steps come faster than a dot travels
/// (a held step key, a run of clicks), each arrow is drawn at once instead of a dot that
/// starts over before it arrives; the first step after a pause travels again. Playing steps
/// every `step_ms` with a travel of `0.7 × step_ms`, so a playing run's dots all travel.
#[hook]
pub fn use_travel_ms(key: usize, duration_ms: f64) -> f64 {
    // (key, when it changed to it, its travel)
    let last = use_mut_ref(|| (key, f64::NEG_INFINITY, duration_ms));
    let mut last = last.borrow_mut();
    if last.0 != key {
        let now = now_ms();
        let travel = if now - last.1 >= duration_ms {
            duration_ms
        } else {
            0.0
        };
        *last = (key, now, travel);
    }
    last.2
}

/// Moves the element behind `node` along `offsets` (each a translation from where it is
/// drawn, in the SVG's user units, the first at the start) over `duration_ms`, each time
/// `key` changes; nothing when `duration_ms` is 0, `offsets` is empty or the reader prefers
/// reduced motion. Cancelled on the next change and on unmount.
#[hook]
pub fn use_dot_travel(node: &NodeRef, key: usize, offsets: Vec<(f64, f64)>, duration_ms: f64) {
    let node = node.clone();
    use_effect_with(key, move |_| {
        let running = node
            .cast::<web_sys::Element>()
            .filter(|_| {
                duration_ms > 0.0
                    && !offsets.is_empty()
                    && !media_matches("(prefers-reduced-motion: reduce)")
            })
            .map(|el| {
                let frames: js_sys::Array = offsets
                    .iter()
                    .map(|(x, y)| {
                        let frame = js_sys::Object::new();
                        let transform = format!("translate({x:.1}px, {y:.1}px)");
                        let _ =
                            js_sys::Reflect::set(&frame, &"transform".into(), &transform.into());
                        JsValue::from(frame)
                    })
                    .collect();
                let options = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&options, &"duration".into(), &duration_ms.into());
                // Drawn at the tail from the first frame (no flash at the head).
                let _ = js_sys::Reflect::set(&options, &"fill".into(), &"backwards".into());
                el.unchecked_ref::<Animatable>()
                    .animate(&frames, options.unchecked_ref())
            });
        move || {
            if let Some(a) = running {
                a.cancel();
            }
        }
    });
}
