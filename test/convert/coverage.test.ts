// Every breaking step of the registry (a diff that breaks more than element types, or a change
// of meaning the schemas record) has an adapter row or a reason to block a node with: the
// change of meaning, the diff itself, or a written reason for what the diff cannot say; no
// written reason stands for a step that has a row (it could never be shown); and the data lists
// name real steps between adjacent versions.

import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ADAPTER_ROWS,
  adapterRow,
  behaviourBreaks,
  BLOCKED_STEPS,
  breakingSteps,
  convertModel,
} from "../../src/convert/index.js";
import * as families from "../../src/convert/adapters/families.js";
import { SchemaRegistry } from "../../src/schema/registry.js";
import { parseModelText } from "../../src/text/parse.js";

const registry = SchemaRegistry.default();

function isStep(op: string, from: number, to: number): boolean {
  const vs = registry.versions("", op).map((v) => v.since);
  const i = vs.indexOf(from);
  if (i < 0) return false;
  if (to === 0) return i === 0;
  return vs[i + 1] === to || vs[i - 1] === to;
}

describe("converter coverage", () => {
  it("every breaking step has an adapter row or a reason to block it", () => {
    const steps = breakingSteps();
    const uncovered = steps
      .filter((s) => !s.row && s.reason.trim().length < 10)
      .map((s) => `${s.op} ${s.from} -> ${s.to}`);
    expect(uncovered).toEqual([]);
    expect(steps.length).toBeGreaterThan(150);
    // Most reasons are the diff's own; a written one is the exception.
    const bySource = (k: string) => steps.filter((s) => !s.row && s.source === k).length;
    expect(bySource("diff")).toBeGreaterThan(30);
    expect(bySource("written")).toBe(BLOCKED_STEPS.length);
  });

  it("no written reason stands for a step that has a row", () => {
    const shadowed = BLOCKED_STEPS.filter((s) =>
      adapterRow(s.domain ?? "", s.op, s.from, s.to),
    ).map((s) => `${s.op} ${s.from} -> ${s.to}`);
    expect(shadowed).toEqual([]);
  });

  it("every row and list entry names a real step between adjacent versions", () => {
    const bad = [...ADAPTER_ROWS, ...behaviourBreaks(), ...BLOCKED_STEPS]
      .filter((s) => !isStep(s.op, s.from, s.to))
      .map((s) => `${s.op} ${s.from} -> ${s.to}`);
    expect(bad).toEqual([]);
  });

  it("a function op below its first version says to expand it first (LogCumSumExp below 29)", () => {
    const m = parseModelText(`<ir_version: 10, opset_import: ["" : 29]>
      g (float[4] x) => (float[4] y) { y = LogCumSumExp (x) }`);
    const r = convertModel(m, 28);
    expect(r.model).toBeUndefined();
    expect(r.plan.blocked[0]!.message).toMatch(
      /LogCumSumExp does not exist before opset 29; it is a function op: expand it first \(`onnx-expand expand`\)/,
    );
  });

  it("every family of adapters has its test file, which names every op it has a row for", () => {
    const missing: string[] = [];
    for (const [family, rows] of Object.entries(families)) {
      const file = new URL(`./adapters/${family}.test.ts`, import.meta.url);
      if (!existsSync(file)) {
        missing.push(`${family}: no test/convert/adapters/${family}.test.ts`);
        continue;
      }
      const text = readFileSync(file, "utf8");
      for (const op of new Set(rows.map((r) => r.op)))
        if (!new RegExp(`\\b${op}\\b`).test(text)) missing.push(`${family}: ${op}`);
    }
    expect(missing).toEqual([]);
  });
});
