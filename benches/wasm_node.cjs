//! Times the engine as wasm in Node: `runScenarioJson` of the batchscope-wasm nodejs package
//! (BATCHSCOPE_WASM_PKG), timed around that call only, on the scenario file given as
//! `node benches/wasm_node.cjs NAME FILE`; prints `wasm NAME EVENTS MS HEAP_BYTES WARM_MS`: the
//! first call (cold: V8 starts every function in its baseline tier and the linear memory grows
//! as the run needs it), the wasm memory's size after it, and the median of three more calls in
//! the same process (warm: hot functions tiered up, the memory already grown). With
//! BATCHSCOPE_PREGROW_BYTES=N the process first has the module's own allocator take N bytes,
//! writes every page of them and frees them, untimed: the first call then finds the linear
//! memory grown and touched but its code still cold, which tells the two halves of the cold
//! figure apart. Used by scripts/bench.sh; asserts nothing.
"use strict";

const fs = require("fs");

// The generated package keeps its instance private: note it as it is made, for its memory.
const Instance = WebAssembly.Instance;
let instance = null;
WebAssembly.Instance = function (module, imports) {
  instance = new Instance(module, imports);
  return instance;
};
const pkg = require(require("path").join(process.env.BATCHSCOPE_WASM_PKG, "batchscope_wasm.js"));
WebAssembly.Instance = Instance;

const [name, file] = process.argv.slice(2);
const json = fs.readFileSync(file, "utf8");
const pregrow = Number(process.env.BATCHSCOPE_PREGROW_BYTES || 0);
if (pregrow > 0) {
  // Through the allocator, not `memory.grow` from here: memory grown outside the allocator is
  // memory it never hands out. Freed, the block stays with the allocator for the run to reuse.
  const e = instance.exports;
  const ptr = e.__wbindgen_malloc(pregrow, 8);
  new Uint8Array(e.memory.buffer, ptr, pregrow).fill(1);
  e.__wbindgen_free(ptr, pregrow, 8);
}
const timed = () => {
  const t0 = performance.now();
  const events = Number(pkg.runScenarioJson(json));
  return [events, performance.now() - t0];
};
const [events, ms] = timed();
const memory = instance && instance.exports.memory;
const heap = memory ? memory.buffer.byteLength : "unknown";
const warm = [timed(), timed(), timed()].map(([, t]) => t).sort((a, b) => a - b)[1];
console.log(`wasm ${name} ${events} ${ms.toFixed(3)} ${heap} ${warm.toFixed(3)}`);
