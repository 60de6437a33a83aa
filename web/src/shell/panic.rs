//! The page's last word when its code stops: a Rust panic in the release page traps at once
//! (`-Cpanic=immediate-abort`, scripts/page.sh), as does any other WebAssembly trap, in the page's
//! module or the second one. The trap surfaces in JavaScript as a `WebAssembly.RuntimeError`
//! thrown out of whatever event, timer or promise ran the code; this listener, installed before
//! the first frame, turns it into an overlay that says what happened, offers "Reload this
//! moment" (the page's link carries the run: preset, seed, crashes, step) and a report to copy
//! (the link, the build — the content hash in the `.wasm` file's name —, the browser, the error).
//!
//! The overlay is plain DOM written by JavaScript: after a trap the module's state is not to
//! be trusted, so nothing of it runs again. Errors that are not traps (a failed fetch the page
//! already reports, a browser extension's) are left to the page.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
let shown = false;
function build() {
  const wasm = [...document.querySelectorAll('link[href$=".wasm"]')].map(l => l.getAttribute('href'))
    .concat(performance.getEntriesByType('resource').map(e => e.name).filter(n => n.endsWith('.wasm')));
  const page = wasm.map(n => n.split('/').pop()).find(n => n.startsWith('batchscope-web-'));
  return page ? page.replace('batchscope-web-', '').replace('_bg.wasm', '') : 'unknown';
}
function show(error) {
  if (shown) return;
  shown = true;
  const second = String(error && error.stack || '').includes('batchscope-modes');
  const report = [
    'batchscope stopped: ' + String(error),
    'where: ' + (second ? 'the second module (Topology, Inspect, editor, compare, explore, charts, export)' : 'the page'),
    'link: ' + location.href,
    'build: ' + build(),
    'browser: ' + navigator.userAgent,
    'stack:',
    String(error && error.stack || '(none)').split('\n').slice(0, 12).join('\n'),
  ].join('\n');
  const el = (tag, props, kids) => { const e = Object.assign(document.createElement(tag), props || {}); (kids || []).forEach(k => e.append(k)); return e; };
  const text = el('textarea', { className: 'panic-report', readOnly: true, rows: 7, value: report });
  text.setAttribute('aria-label', 'Report to copy');
  text.dataset.testid = 'panic-report';
  const copy = el('button', { type: 'button', textContent: 'Copy report' });
  copy.dataset.testid = 'panic-copy';
  copy.onclick = () => {
    text.select();
    const done = () => { copy.textContent = 'Copied'; };
    (navigator.clipboard ? navigator.clipboard.writeText(report) : Promise.reject()).then(done, () => { document.execCommand('copy'); done(); });
  };
  const reload = el('button', { type: 'button', className: 'primary', textContent: 'Reload this moment' });
  reload.dataset.testid = 'panic-reload';
  reload.onclick = () => location.reload();
  const title = el('h2', { id: 'panic-title', textContent: 'batchscope stopped' });
  const box = el('div', { className: 'panic-box' }, [
    title,
    el('p', { textContent: 'A bug stopped ' + (second ? 'the part of the page that draws this view' : 'the page') +
      ' (' + String(error) + '). What is on screen is frozen: clicks no longer reach the simulator. ' +
      'The link keeps your run, so a reload opens it again at this step.' }),
    el('div', { className: 'panic-actions' }, [reload, copy]),
    el('p', { className: 'panic-hint', textContent: 'Sending this report with a bug report lets someone replay exactly this moment:' }),
    text,
  ]);
  const overlay = el('div', { className: 'panic-overlay', role: 'alertdialog' }, [box]);
  overlay.setAttribute('aria-modal', 'true');
  overlay.setAttribute('aria-labelledby', 'panic-title');
  overlay.dataset.testid = 'panic-overlay';
  document.body.append(overlay);
  reload.focus();
}
function trap(e) { return e instanceof WebAssembly.RuntimeError; }
export function install_panic_overlay() {
  addEventListener('error', e => { if (trap(e.error)) show(e.error); });
  addEventListener('unhandledrejection', e => { if (trap(e.reason)) show(e.reason); });
}
export function after_paint(f) {
  if (document.hidden) setTimeout(f); else requestAnimationFrame(() => setTimeout(f));
}
"#)]
extern "C" {
    /// Listens for a WebAssembly trap anywhere on the page (an uncaught error or a rejected
    /// promise) and shows the overlay once.
    fn install_panic_overlay();
    /// Calls `f` in a task of its own once the next frame is painted (in a hidden tab, which
    /// paints none, at once): the page mounts after its first paint (`main.rs`). Here, in a
    /// snippet both modules share, since the two builds write their snippets to one folder and
    /// a snippet of one module alone would number them apart.
    pub fn after_paint(f: &JsValue);
}

/// Installs the overlay's listener: call first, before the page's first frame.
pub fn catch_traps() {
    install_panic_overlay();
}
