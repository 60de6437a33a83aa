//! The batchscope-wasm package as JavaScript users get it (`wasm-bindgen --target nodejs`):
//! BigInt seeds, thrown Errors naming the field, JSON results, and the typed `.d.ts`.
// Run by scripts/test-wasm.sh, which builds the package into $BATCHSCOPE_WASM_PKG.
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const pkg = process.env.BATCHSCOPE_WASM_PKG;
assert.ok(pkg, "set BATCHSCOPE_WASM_PKG to the wasm-bindgen --target nodejs output folder");
const wasm = require(path.join(pkg, "batchscope_wasm.js"));

/** The engine's pinned trace hash of `preset` at `seed` with `crashes` (crates/engine/tests/common/golden.rs). */
function pinnedHash(preset, seed, crashes) {
  const table = fs.readFileSync(
    path.join(__dirname, "..", "..", "..", "engine", "tests", "common", "golden.rs"),
    "utf8",
  );
  const list = crashes.map((c) => `"${c}"`).join(", ");
  const row = `preset: "${preset}", seed: ${seed}, crashes: &[${list}], steps: `;
  const line = table.split("\n").find((l) => l.includes(row));
  assert.ok(line, `no pinned row for ${row}`);
  return line.match(/hash: (0x[0-9a-f]{16})/)[1];
}

test("kafka-append with sink-commit@3 converges to duplicates", () => {
  const sim = wasm.Simulation.fromPreset("kafka-append", 7n);
  sim.crash("sink-commit@3");
  const first = JSON.parse(sim.step());
  assert.equal(first.kind.type, "query-started");
  assert.equal(JSON.parse(sim.stateJson()).oracle.verdict, null);
  assert.equal(sim.stepUntilConverged(100000), true);
  const report = JSON.parse(sim.reportJson());
  assert.equal(report.verdict, "duplicates");
  assert.deepEqual(report.crashes_fired, ["sink-commit@3"]);
  assert.equal(sim.verdict(), "duplicates");
  // Same value as the engine's pinned table.
  assert.equal(sim.traceHash(), pinnedHash("kafka-append", 7, ["sink-commit@3"]));
  assert.equal(typeof BigInt(sim.traceHash()), "bigint");
  assert.equal(JSON.parse(sim.eventsJson()).length, report.steps);
  sim.free();
});

test("the preset's own seed is used when none is given", () => {
  const a = wasm.Simulation.fromPreset("tablestore", undefined);
  const b = wasm.Simulation.fromPreset("tablestore", 7n);
  a.stepUntilConverged(100000);
  b.stepUntilConverged(100000);
  assert.equal(a.traceHash(), b.traceHash());
});

test("bad input throws an Error naming the field", () => {
  const presets = JSON.parse(wasm.presetsJson());
  const scenario = structuredClone(presets[0].scenario);
  scenario.upstream.channels = 0;
  assert.throws(() => wasm.Simulation.fromScenarioJson(JSON.stringify(scenario)), (e) => {
    assert.ok(e instanceof Error);
    assert.match(e.message, /^upstream\.channels: must be between 1 and/);
    return true;
  });
  assert.throws(() => wasm.Simulation.fromScenarioJson("{"), /^Error: scenario: /);
  const sim = wasm.Simulation.fromPreset("kafka-idempotent", undefined);
  assert.throws(() => sim.crash("sink-comit@3"), /crash point: unknown crash point `sink-comit`/);
  assert.throws(() => sim.reportJson(), /report: the run has not finished/);
  assert.throws(() => wasm.Simulation.fromPreset("nope", undefined), /preset: unknown preset `nope`/);
});

test("crash-now is recorded: replaying scenarioJson gives the same trace", () => {
  const sim = wasm.Simulation.fromPreset("tablestore", 11n);
  for (let i = 0; i < 40; i++) sim.step();
  assert.equal(sim.crashNow(), true);
  assert.equal(JSON.parse(sim.step()).kind.type, "crashed");
  assert.equal(sim.stepUntilConverged(100000), true);
  const replay = wasm.Simulation.fromScenarioJson(sim.scenarioJson());
  assert.equal(replay.stepUntilConverged(100000), true);
  assert.equal(replay.traceHash(), sim.traceHash());
});

test("the .d.ts types the JSON results", () => {
  const dts = fs.readFileSync(path.join(pkg, "batchscope_wasm.d.ts"), "utf8");
  for (const needle of [
    "export interface BatchscopeEvent",
    "export interface State",
    "export interface Report",
    "step(): JsonText<BatchscopeEvent>;",
    "stateJson(): JsonText<State>;",
    "reportJson(): JsonText<Report>;",
    "eventsJson(): JsonText<BatchscopeEvent[]>;",
    "crash(point: string): void;",
    "static fromPreset(name: string, seed?: bigint | null): Simulation;",
    "static fromScenarioJson(json: string): Simulation;",
    "export function presetsJson(): JsonText<Preset[]>;",
  ]) {
    assert.ok(dts.includes(needle), `batchscope_wasm.d.ts lacks \`${needle}\``);
  }
});
