// Every breaking step of the registry (a diff that breaks more than element types, or a change
// of meaning in the behaviour list) has an adapter row or a written reason for blocking it; and
// the data lists name real steps between adjacent versions.

import { describe, expect, it } from "vitest";
import {
  ADAPTER_ROWS,
  behaviourBreaks,
  BLOCKED_STEPS,
  adapterRow,
  behaviourBreak,
  blockedStep,
  breaksBeyondTypes,
  stepDiff,
} from "../../src/convert/index.js";
import { SchemaRegistry } from "../../src/schema/registry.js";

const registry = SchemaRegistry.default();

function adjacentSteps(): [op: string, from: number, to: number][] {
  const out: [string, number, number][] = [];
  for (const op of registry.operators()) {
    if (op.includes(".")) continue;
    const vs = registry.versions("", op);
    for (let i = 1; i < vs.length; i++)
      out.push([op, vs[i - 1]!.since, vs[i]!.since], [op, vs[i]!.since, vs[i - 1]!.since]);
  }
  return out;
}

function isStep(op: string, from: number, to: number): boolean {
  const vs = registry.versions("", op).map((v) => v.since);
  const i = vs.indexOf(from);
  if (i < 0) return false;
  if (to === 0) return i === 0;
  return vs[i + 1] === to || vs[i - 1] === to;
}

describe("converter coverage", () => {
  it("every breaking step has an adapter row or a reason to block it", () => {
    const uncovered: string[] = [];
    let breaking = 0;
    for (const [op, from, to] of adjacentSteps()) {
      const a = registry.versions("", op).find((v) => v.since === from)!;
      const b = registry.versions("", op).find((v) => v.since === to)!;
      const br = behaviourBreak("", op, from, to);
      if (!br && !breaksBeyondTypes(stepDiff(a, b))) continue;
      breaking++;
      if (adapterRow("", op, from, to)) continue;
      const reason = blockedStep("", op, from, to)?.reason ?? br?.reason;
      if (!reason || reason.trim().length < 10) uncovered.push(`${op} ${from} -> ${to}`);
    }
    expect(uncovered).toEqual([]);
    expect(breaking).toBeGreaterThan(150);
  });

  it("every row and list entry names a real step between adjacent versions", () => {
    const bad = [...ADAPTER_ROWS, ...behaviourBreaks(), ...BLOCKED_STEPS]
      .filter((s) => !isStep(s.op, s.from, s.to))
      .map((s) => `${s.op} ${s.from} -> ${s.to}`);
    expect(bad).toEqual([]);
  });

  it("LogCumSumExp below 29 says to expand it first", () => {
    expect(blockedStep("", "LogCumSumExp", 29, 0)?.reason).toMatch(/onnx-expand expand/);
  });
});
