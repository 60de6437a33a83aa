//! The pixel size of an element (its client box), measured after each render and when the
//! window resizes, so a view can lay itself out at the size it is shown.

use gloo::events::EventListener;
use web_sys::Element;
use yew::prelude::*;

/// The client width and height of `node` in CSS pixels; (0, 0) until it is measured.
#[hook]
pub fn use_element_size(node: &NodeRef) -> (f64, f64) {
    let size = use_state(|| (0.0_f64, 0.0_f64));
    let rerender = use_force_update();
    {
        // Measure after every render: the pane can change size without the window resizing
        // (a layout switch, compare mode). Setting the same size again renders nothing.
        let (node, size) = (node.clone(), size.clone());
        use_effect(move || {
            if let Some(element) = node.cast::<Element>() {
                let now = (
                    f64::from(element.client_width()),
                    f64::from(element.client_height()),
                );
                if (now.0 - size.0).abs() >= 1.0 || (now.1 - size.1).abs() >= 1.0 {
                    size.set(now);
                }
            }
        });
    }
    {
        use_effect_with((), move |_| {
            let listener = EventListener::new(&gloo::utils::window(), "resize", move |_| {
                rerender.force_update();
            });
            move || drop(listener)
        });
    }
    *size
}
