//! The batchscope dashboard (Yew, client-side rendered).
