//! Dismissible messages (a broken link, a crash point that cannot be armed), in both modes.

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
    // Always rendered (possibly empty) so the page grid keeps its rows.
    html! {
        <div class="notices" role="status">
            { for props.notices.iter().map(|n| {
                let id = n.id;
                let on_dismiss = props.on_dismiss.clone();
                html! {
                    <div class="notice" key={id} data-testid="notice">
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
