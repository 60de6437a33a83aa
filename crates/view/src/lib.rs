//! The pure view-model the dashboard draws: lane geometry, arrow interpolation, colours, labels.
