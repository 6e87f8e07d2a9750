// Deep models through every command and the library's Session (docs/semantics.md, Nesting): a
// chain of 5,000 nested model-local functions, the same chain with each call inside an If branch
// (calls and bodies alternating 10,000 deep), and If nested as deep as the decoder reads. Nothing
// recurses along calls, and subgraphs recurse no deeper than the decoder lets them nest.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Session } from "../../src/app/index.js";
import { encodeModel } from "../../src/io/codec.js";
import { saveModel } from "../../src/io/save.js";
import { emptyFunction, graph, model, node, valueInfo } from "../../src/ir/builder.js";
import type { Graph, Model, Node } from "../../src/ir/types.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";

const DEPTH = 5000;
const OPSETS = [
  { domain: "", version: 18 },
  { domain: "local", version: 1 },
];
const call = (k: number, inputs: string[], out: string): Node =>
  node(`F${k}`, inputs, [out], {}, { domain: "local" });

/** F0 calls F1 ... calls F(n-1), which applies `last`; `viaIf`: each call sits in an If branch. */
function chain(n: number, last: string, viaIf: boolean): Model {
  const inputs = viaIf ? ["x", "c"] : ["x"];
  const g = graph({
    nodes: [call(0, inputs, "y")],
    inputs: [valueInfo("x", "float", [2]), ...(viaIf ? [valueInfo("c", "bool", [])] : [])],
    outputs: [valueInfo("y", "float", [2])],
  });
  const m = model(g, OPSETS);
  for (let k = 0; k < n; k++) {
    const f = emptyFunction();
    Object.assign(f, { name: `F${k}`, domain: "local", opsetImports: OPSETS, outputs: ["b"] });
    f.inputs = viaIf ? ["a", "c"] : ["a"];
    const next = k < n - 1 ? call(k + 1, f.inputs, "t") : node(last, ["a"], ["t"]);
    if (!viaIf) f.nodes = [{ ...next, outputs: ["b"] }];
    else {
      const then = graph({ nodes: [next], outputs: [valueInfo("t")] });
      const other = graph({ nodes: [node("Abs", ["a"], ["e"])], outputs: [valueInfo("e")] });
      f.nodes = [node("If", ["c"], ["b"], { then_branch: then, else_branch: other })];
    }
    m.functions.push(f);
  }
  return m;
}

/** If nested `depth` deep in its then branches; the innermost applies `last`. */
function nestedIf(depth: number, last: string): Model {
  const body = (k: number): Graph => {
    const y = `y${k}`;
    if (k === depth)
      return graph({ nodes: [node(last, ["x"], [y])], outputs: [valueInfo(y, "float", [2])] });
    const other = graph({
      nodes: [node("Abs", ["x"], [`z${k}`])],
      outputs: [valueInfo(`z${k}`, "float", [2])],
    });
    return graph({
      nodes: [node("If", ["c"], [y], { then_branch: body(k + 1), else_branch: other })],
      outputs: [valueInfo(y, "float", [2])],
    });
  };
  const g = body(0);
  g.inputs = [valueInfo("x", "float", [2]), valueInfo("c", "bool", [])];
  return model(g, 18);
}

/** The deepest If nesting the encoder writes (and so the decoder reads): one more is refused. */
function deepestIf(): number {
  let d = 1;
  while (encodes(nestedIf(d + 1, "Neg"))) d++;
  return d;
}

function encodes(m: Model): boolean {
  try {
    encodeModel(m);
    return true;
  } catch (e) {
    expect(String(e)).toMatch(/messages nest more than \d+ levels deep/);
    return false;
  }
}

const X = "x=json:[1,-2]";
const C = "c=json:true";

/** Every command on `file` (and `other`, the same model with Abs for Neg at the bottom). */
function everyCommand(file: string, other: string, args: string[], expands = true): void {
  const dir = mkdtempSync(join(tmpdir(), "onnx-expand-deep-out-"));
  const ok = (r: ReturnType<typeof runCli>) => {
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    return r.stdout;
  };
  expect(ok(runCli(["check", file]))).toMatch(/^ok: /);
  expect(ok(runCli(["run", file, ...args]))).toMatch(/= -1, 2$/m);
  // The results are run in the Session (inSession), which converts and expands the same way.
  if (expands) ok(runCli(["expand", file, "-o", join(dir, "e.onnx")]));
  ok(runCli(["convert", file, "--opset", "13", "-o", join(dir, "c.onnx")]));
  expect(ok(runCli(["convert", file, "--opset", "13", "--plan"]))).toMatch(/result: ok/);
  ok(runCli(["simplify", file, "-o", join(dir, "s.onnx")]));
  expect(ok(runCli(["diff", file, other]))).toMatch(/\+ \w+ = Abs \((a|x)\)/);
  expect(ok(runCli(["print", file]))).toMatch(/ = Neg \((a|x)\)/);
}

/** Through the library's Session, as the page uses it. */
function inSession(m: Model, json: string, expands = true): void {
  const s = new Session();
  s.load("deep.onnx", encodeModel(m));
  const expected = [-1, 2];
  const runs = (): void => {
    const r = s.run({ mode: "json", json });
    expect(Array.from((r.outputs[0]!.a as { data: Float32Array }).data)).toEqual(expected);
    if (s.b) expect(r.outputs[0]!.difference!.abs).toBe(0);
  };
  runs();
  s.convert(13);
  runs();
  if (expands) {
    s.expand({}, "expanded");
    runs();
  }
}

describe("deep models in every command and the Session", () => {
  const dir = mkdtempSync(join(tmpdir(), "onnx-expand-deep-"));
  const write = (name: string, m: Model) => {
    const file = join(dir, name);
    saveModel(m, file);
    return file;
  };

  it(`a chain of ${DEPTH} nested local functions`, () => {
    const file = write("chain.onnx", chain(DEPTH, "Neg", false));
    const other = write("chain-abs.onnx", chain(DEPTH, "Abs", false));
    everyCommand(file, other, [X]);
    inSession(chain(DEPTH, "Neg", false), '{"x": [1, -2]}');
  }, 600_000);

  it(`a chain of ${DEPTH} local functions, each call in an If branch`, () => {
    const file = write("if-chain.onnx", chain(DEPTH, "Neg", true));
    const other = write("if-chain-abs.onnx", chain(DEPTH, "Abs", true));
    // Expanding would nest If 5,000 deep, past what a file may hold: refused, in one line.
    everyCommand(file, other, [X, C], false);
    expectOneLineError(runCli(["expand", file, "-o", join(dir, "never.onnx")]), /./);
    inSession(chain(DEPTH, "Neg", true), '{"x": [1, -2], "c": true}', false);
  }, 600_000);

  it("If nested as deep as the decoder reads", () => {
    const depth = deepestIf();
    expect(depth).toBeGreaterThanOrEqual(30);
    const file = write("if.onnx", nestedIf(depth, "Neg"));
    everyCommand(file, write("if-abs.onnx", nestedIf(depth, "Abs")), [X, C]);
    inSession(nestedIf(depth, "Neg"), '{"x": [1, -2], "c": true}');
  }, 600_000);
});
