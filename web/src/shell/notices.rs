//! Dismissible messages (a broken link, a crash point that cannot be armed), in both modes,
//! drawn over the top of the page's main area, never pushing it down. A confirmation (a text
//! opening with ✓) fades out by itself (`.notice-brief`, a CSS animation: no timer in the
//! page's code); the others leave when the run they are about does
//! ([`Player::reduce`](super::player::Player)).

use yew::prelude::*;

/// A dismissible message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// Id for dismissal.
    pub id: u32,
    /// The text.
    pub text: String,
}

/// Props of [`Notices`].
#[derive(Properties, PartialEq)]
pub struct NoticesProps {
    /// The messages.
    pub notices: Vec<Notice>,
    /// Dismiss one by id.
    pub on_dismiss: Callback<u32>,
}

/// A stack of messages, each with a close button.
#[component]
pub fn Notices(props: &NoticesProps) -> Html {
    // Always rendered (possibly empty) so the page grid keeps its rows; a row of no height,
    // the messages drawn over what follows (style.css).
    html! {
        <div class="notices" role="status">
            { for props.notices.iter().map(|n| {
                let id = n.id;
                let on_dismiss = props.on_dismiss.clone();
                html! {
                    <div class={classes!("notice", n.text.starts_with('✓').then_some("notice-brief"))} key={id} data-testid="notice">
                        <span class="notice-text">{ &n.text }</span>
                        <button class="notice-close" title="Dismiss" aria-label="Dismiss"
                                data-testid="notice-dismiss"
                                onclick={Callback::from(move |_| on_dismiss.emit(id))}>{ "×" }</button>
                    </div>
                }
            }) }
        </div>
    }
}
