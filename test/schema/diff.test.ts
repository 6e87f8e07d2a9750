import { describe, expect, it } from "vitest";
import { SchemaRegistry } from "../../src/schema/index.js";
import { diffVersions } from "../../src/schema/diff.js";
import type { OpVersion } from "../../src/schema/types.js";
import { main } from "../../src/cli/main.js";
import { runCli } from "../helpers/cli.js";

/** Runs the CLI in this process (fast); runCli spawns it as a user would. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const write = { out: process.stdout.write, err: process.stderr.write };
  process.stdout.write = ((s: string | Uint8Array) =>
    out.push(String(s)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array) =>
    err.push(String(s)) > 0) as typeof process.stderr.write;
  process.exitCode = undefined;
  try {
    await main(["node", "onnx-expand", ...args]);
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = undefined;
  return { code, stdout: out.join(""), stderr: err.join("") };
}

const reg = SchemaRegistry.default();
const at = (op: string, opset: number) => reg.resolve("", op, opset);

describe("diffVersions", () => {
  it("ReduceL1 11 -> 13: T gained bfloat16, not breaking", () => {
    const d = diffVersions(at("ReduceL1", 11), at("ReduceL1", 13));
    expect(d.typeConstraints.changed).toEqual([
      { name: "T", added: ["tensor(bfloat16)"], removed: [] },
    ]);
    expect(d.attributes).toEqual({ added: [], removed: [], changed: [] });
    expect(d.inputs.added).toEqual([]);
    expect(d.function).toBe("same");
    expect(d.verdict).toEqual({ breaking: false, reasons: [] });
  });

  it("ReduceLogSum 13 -> 18: axes moved to an optional input, noop_with_empty_axes added, now a function, breaking", () => {
    const d = diffVersions(at("ReduceLogSum", 13), at("ReduceLogSum", 18));
    expect(d.attributesToInputs.map((m) => [m.name, m.index, m.input.option])).toEqual([
      ["axes", 1, "optional"],
    ]);
    expect(d.attributes.added.map((a) => [a.name, a.default])).toEqual([
      ["noop_with_empty_axes", 0],
    ]);
    expect(d.attributes.removed.map((a) => a.name)).toEqual(["axes"]);
    expect(d.function).toBe("added");
    expect(d.verdict.breaking).toBe(true);
    expect(d.verdict.reasons).toEqual(["attribute 'axes' became an optional input (#1)"]);
  });

  it("ReduceLogSum 18 -> 13 (a downgrade): the axes input becomes an attribute, noop_with_empty_axes is lost", () => {
    const d = diffVersions(at("ReduceLogSum", 18), at("ReduceLogSum", 13));
    expect(d.inputsToAttributes.map((m) => [m.name, m.index, m.attribute.type])).toEqual([
      ["axes", 1, "INTS"],
    ]);
    expect(d.attributesToInputs).toEqual([]);
    expect(d.function).toBe("removed");
    expect(d.verdict.reasons).toEqual([
      "attribute 'noop_with_empty_axes' was removed",
      "input 'axes' (#1) became an attribute (its value must now be known before run time)",
      "at most 1 inputs are now allowed (was 2)",
    ]);
  });

  it("ReduceSum 11 -> 13 moves axes too; the same version diffs to nothing", () => {
    expect(diffVersions(at("ReduceSum", 12), at("ReduceSum", 13)).verdict.breaking).toBe(true);
    const same = diffVersions(at("ReduceSum", 13), at("ReduceSum", 20));
    expect(same.verdict).toEqual({ breaking: false, reasons: [] });
  });

  it("flags removed attributes, removed types, new required inputs and changed defaults", () => {
    const base = at("ReduceL1", 13);
    const edit = (f: (v: OpVersion) => void): OpVersion => {
      const v = structuredClone({ ...base }) as OpVersion;
      f(v);
      return v;
    };
    const noKeep = edit((v) => (v.attributes = v.attributes.filter((a) => a.name !== "keepdims")));
    expect(diffVersions(base, noKeep).verdict.reasons).toEqual([
      "attribute 'keepdims' was removed",
    ]);

    const dflt = edit((v) => (v.attributes.find((a) => a.name === "keepdims")!.default = 0));
    expect(diffVersions(base, dflt).verdict.reasons).toEqual([
      "attribute 'keepdims': default 1 -> 0",
    ]);

    const fewer = edit(
      (v) =>
        (v.type_constraints[0]!.allowed = v.type_constraints[0]!.allowed.filter(
          (t) => t !== "tensor(int32)",
        )),
    );
    const d = diffVersions(base, fewer);
    expect(d.typeConstraints.changed).toEqual([
      { name: "T", added: [], removed: ["tensor(int32)"] },
    ]);
    expect(d.verdict.reasons).toEqual([
      "input 'data' (#0) no longer accepts tensor(int32)",
      "output 'reduced' (#0) no longer accepts tensor(int32)",
    ]);

    const req = edit((v) => {
      v.inputs.push({ name: "scale", type: "T", option: "single" });
      v.min_inputs = v.max_inputs = 2;
    });
    expect(diffVersions(base, req).verdict.reasons).toEqual([
      "required input 'scale' (#1) was added",
    ]);

    const opt = edit((v) => {
      v.inputs.push({ name: "scale", type: "T", option: "optional" });
      v.max_inputs = 2;
      v.attributes.push({ name: "mode", type: "STRING", required: false, default: "x" });
    });
    expect(diffVersions(base, opt).verdict).toEqual({ breaking: false, reasons: [] });
  });

  it("treats renamed inputs as compatible and lost outputs as breaking", () => {
    const a = at("Clip", 6);
    const b = at("Clip", 11);
    const d = diffVersions(a, b);
    // Clip 6 -> 11: min/max attributes became optional inputs.
    expect(d.attributesToInputs.map((m) => m.name).sort()).toEqual(["max", "min"]);
    expect(d.verdict.breaking).toBe(true);
    const dropout = diffVersions(at("Dropout", 10), at("Dropout", 12));
    expect(dropout.attributes.removed.map((x) => x.name)).toEqual(["ratio"]);
    expect(dropout.attributesToInputs.map((x) => x.name)).toEqual(["ratio"]);
  });
});

describe("onnx-expand schema", () => {
  it("prints the ReduceL1 11 -> 13 diff", async () => {
    const r = await cli(["schema", "ReduceL1", "--diff", "11", "13"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("version 11 -> 13");
    expect(r.stdout).toContain("type constraint T: gained bfloat16");
    expect(r.stdout).toContain("breaking: no");
  });

  it("prints the ReduceLogSum 13 -> 18 diff, resolving opsets to versions in force", async () => {
    const r = await cli(["schema", "ReduceLogSum", "--diff", "15", "18"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("version 13 -> 18");
    expect(r.stdout).toContain("attribute 'axes' moved to an optional input #1");
    expect(r.stdout).toContain("+ attribute noop_with_empty_axes: INT = 0");
    expect(r.stdout).toContain("now a function");
    expect(r.stdout).toContain("breaking: yes");
    const j = await cli(["schema", "ReduceLogSum", "--diff", "13", "18", "--json"]);
    const d = JSON.parse(j.stdout);
    expect([d.from, d.to, d.verdict.breaking, d.function]).toEqual([13, 18, true, "added"]);
  });

  it("says which versions are functions with a body", async () => {
    const r = await cli(["schema", "Softmax"]);
    expect(r.stdout.match(/^Softmax-\d+ .*$/gm)).toEqual([
      "Softmax-1 (ai.onnx), since opset 1: primitive",
      "Softmax-11 (ai.onnx), since opset 11: primitive",
      "Softmax-13 (ai.onnx), since opset 13: function (body: builder softmax)",
    ]);
    const t = await cli(["schema", "GreaterOrEqual", "--opset", "16"]);
    expect(t.stdout).toMatch(/^GreaterOrEqual-16 .*: function \(body: text\)$/m);
  });

  it("shows every version, or the one in force", async () => {
    const all = await cli(["schema", "ReduceSum"]);
    expect(all.code).toBe(0);
    expect(all.stdout.match(/^ReduceSum-\d+ /gm)).toEqual([
      "ReduceSum-1 ",
      "ReduceSum-11 ",
      "ReduceSum-13 ",
    ]);
    expect(all.stdout).toContain("axes: tensor(int64) (optional)");
    expect(all.stdout).toContain("noop_with_empty_axes: INT = 0");
    const list = await cli(["schema"]);
    expect(list.code).toBe(0);
    expect(list.stdout.split("\n")).toContain("ReduceSum: 1, 11, 13");
    expect(list.stdout.split("\n")).toContain("LogCumSumExp: 29");
    const one = await cli(["schema", "LogCumSumExp", "--opset", "29", "--json"]);
    expect(one.code).toBe(0);
    const v = JSON.parse(one.stdout);
    expect([v.name, v.since, v.function, v.attributes[0].name, v.attributes[0].default]).toEqual([
      "LogCumSumExp",
      29,
      true,
      "axis",
      0,
    ]);
  });

  it("fails with one line and exit 2 on an unknown operator or an opset before the first version", async () => {
    const r = runCli(["schema", "NoSuchOp"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("onnx-expand: error: unknown operator 'NoSuchOp' in domain 'ai.onnx'\n");
    const early = await cli(["schema", "LogCumSumExp", "--opset", "28"]);
    expect(early.code).toBe(2);
    expect(early.stderr).toBe(
      "onnx-expand: error: operator 'LogCumSumExp' is not defined at opset 28 (first version: 29)\n",
    );
    expect((await cli(["schema", "ReduceSum", "--diff", "13"])).code).toBe(2);
  });
});
