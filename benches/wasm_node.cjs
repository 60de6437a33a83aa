//! Times the engine as wasm in Node: `runScenarioJson` of the batchscope-wasm nodejs package
//! (BATCHSCOPE_WASM_PKG), timed around that call only, on the scenario file given as
//! `node benches/wasm_node.cjs NAME FILE`; prints `wasm NAME EVENTS MS HEAP_BYTES`, the heap
//! being the wasm memory's size after the run. Used by scripts/bench.sh; asserts nothing.
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
const t0 = performance.now();
const events = Number(pkg.runScenarioJson(json));
const ms = performance.now() - t0;
const memory = instance && instance.exports.memory;
const heap = memory ? memory.buffer.byteLength : "unknown";
console.log(`wasm ${name} ${events} ${ms.toFixed(3)} ${heap}`);
