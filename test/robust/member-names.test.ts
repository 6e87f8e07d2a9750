// Names a model chooses are names, never members of an object: an op `constructor`, an op
// `toString` of domain `__proto__`, a graph input `__proto__`, a function of domain `constructor`
// with an attribute `__proto__` go through check --target, lower --target, run, simplify and
// expand as any other name does.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bindInputs, requestedInputs } from "../../src/app/inputs.js";
import { randomInputs } from "../../src/app/random-inputs.js";
import { expand, lower, simplify } from "../../src/app/transform.js";
import { checkModel } from "../../src/check/index.js";
import { run } from "../../src/interp/executor.js";
import { saveModel } from "../../src/io/files.js";
import { modelInfo } from "../../src/ir/info.js";
import type { Model } from "../../src/ir/types.js";
import { classifyModel } from "../../src/targets/classify.js";
import { rowFor } from "../../src/targets/profile.js";
import { shippedProfiles } from "../../src/targets/shipped.node.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { runOrt } from "../helpers/ort.js";

const webnn = shippedProfiles().find((p) => p.name === "webnn")!;
const f32 = (...v: number[]) => ({ dtype: 1, shape: [v.length], data: Float32Array.from(v) });

const CONSTRUCTOR = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y) {
  y = constructor (x)
}`);

const PROTO_DOMAIN = parseModelText(`<ir_version: 8, opset_import: ["" : 13, "__proto__" : 1]>
g (float[2] x) => (float[2] y) {
  y = __proto__.toString (x)
}`);

const PROTO_INPUT = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[2] __proto__) => (float[2] y) {
  y = Relu (__proto__)
}`);

const MEMBERS = parseModelText(`<ir_version: 8, opset_import: ["" : 13, "constructor" : 1]>
g (float[__proto__] constructor, float[toString] hasOwnProperty) => (float[__proto__] __proto__, float[toString] valueOf) {
  __proto__ = constructor.valueOf <__proto__ = 2.0> (constructor)
  toString = Relu (hasOwnProperty)
  valueOf = Identity (toString)
}
<domain: "constructor", opset_import: ["" : 13]>
valueOf <__proto__> (x) => (y) {
  a = Constant <value_float: float = @__proto__> ()
  y = Mul (x, a)
}`);

describe("object-member names in the library", () => {
  it("an op `constructor` has no profile row, no kernel, and is an unknown op", () => {
    expect(rowFor(webnn, "", "constructor")).toBeUndefined();
    expect(rowFor(webnn, "__proto__", "toString")).toBeUndefined();
    const r = classifyModel(CONSTRUCTOR, webnn);
    expect(r.byOp.constructor).toEqual({ supported: 0, partial: 0, unsupported: 1 });
    expect(checkModel(CONSTRUCTOR).problems.map((p) => p.code)).toContain("unknown-op");
    expect(modelInfo(CONSTRUCTOR, 0).ops).toEqual({ constructor: 1 });
    expect(() => run(PROTO_DOMAIN, { x: f32(1, 2) })).toThrow(
      /no kernel for op: __proto__\.toString/,
    );
  });

  it("an input `__proto__` is bound, run and compared like any other", async () => {
    const given = bindInputs(PROTO_INPUT, [{ name: "__proto__", json: "[1,-2]" }], () => {
      throw new Error("no files");
    });
    expect(Object.keys(given)).toEqual(["__proto__"]);
    const ours = run(PROTO_INPUT, given);
    expect(Array.from(ours.y!.data as Float32Array)).toEqual([1, 0]);
    const theirs = await runOrt(PROTO_INPUT, { ["__proto__"]: f32(1, -2) });
    expect(Array.from(theirs.y!.data as Float32Array)).toEqual([1, 0]);
    expect(Object.keys(randomInputs(PROTO_INPUT, 0, new Map()))).toEqual(["__proto__"]);
    expect(
      Object.keys(requestedInputs(PROTO_INPUT, { mode: "json", json: '{"__proto__": [3, 4]}' })),
    ).toEqual(["__proto__"]);
    // An input not given is not found on Object.prototype either.
    expect(() => run(MEMBERS, { hasOwnProperty: f32(1) })).toThrow(/no value was given/);
  });

  it("a function of domain `constructor` with an attribute `__proto__`: every transform", () => {
    expect(checkModel(MEMBERS).problems).toEqual([]);
    const inputs = { constructor: f32(1, 2), hasOwnProperty: f32(3, -4) };
    const want = run(MEMBERS, inputs);
    expect(Array.from(want.__proto__!.data as Float32Array)).toEqual([2, 4]);
    const dims = new Map([["__proto__", 2]]);
    for (const r of [
      simplify(MEMBERS, { dims }),
      lower(MEMBERS, { profile: webnn, dims }),
      expand(MEMBERS),
    ]) {
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      const got = run(r.model as Model, inputs);
      expect(Object.keys(got).sort()).toEqual(["__proto__", "valueOf"]);
      expect(Array.from(got.__proto__!.data as Float32Array)).toEqual([2, 4]);
      expect(Array.from(got.valueOf!.data as Float32Array)).toEqual([3, 0]);
    }
  });
});

describe("object-member names on the command line", () => {
  it("check --target webnn, lower --target webnn and run say what they say of any name", () => {
    const d = mkdtempSync(join(tmpdir(), "onnx-expand-members-"));
    const file = (name: string, m: Model) => (saveModel(m, join(d, name)), join(d, name));
    const ctor = file("ctor.onnx", CONSTRUCTOR);
    const c = runCli(["check", ctor, "--target", "webnn"]);
    expect(c.code).toBe(1);
    expect(c.stdout + c.stderr).toMatch(/unknown operator 'constructor'/);
    expect(c.stderr).not.toMatch(/internal error/);
    expectOneLineError(
      runCli(["lower", ctor, "--target", "webnn", "-o", join(d, "o.onnx")]),
      /unknown operator 'constructor'/,
    );
    const proto = file("proto.onnx", PROTO_DOMAIN);
    const p = runCli(["check", proto, "--target", "webnn"]);
    expect(p.stdout).toMatch(/__proto__\.toString is not in webnn/);
    expect(runCli(["run", proto, "x=json:[1,2]"]).stderr).toMatch(
      /^onnx-expand: error: .*no kernel for op: __proto__\.toString\n$/,
    );
    const input = file("input.onnx", PROTO_INPUT);
    const r = runCli(["run", input, "__proto__=json:[1,-2]"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^y: float \[2\] = 1, 0$/m);
    const members = file("members.onnx", MEMBERS);
    const l = runCli(["lower", members, "--target", "webnn", "-o", join(d, "l.onnx")]);
    expect(l.code).toBe(0);
    // every node of the lowered model supported (an output's Identity is gone since simplify
    // lets its producer write the output)
    expect(l.stdout).toMatch(/: (\d+) of \1 nodes supported/);
    const m = runCli([
      "run",
      join(d, "l.onnx"),
      "constructor=json:[1,2]",
      "hasOwnProperty=json:[1,-1]",
    ]);
    expect(m.stdout).toMatch(/^__proto__: float \[2\] = 2, 4$/m);
    expect(m.stdout).toMatch(/^valueOf: float \[2\] = 1, 0$/m);
  }, 120_000);
});
