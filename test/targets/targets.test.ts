// Target profiles and check --target (issue 31, items 1 and 2): every shipped profile validates;
// webnn's and webgpu's rows hold the facts of onnxruntime-web's own tables (the dev dependency's
// docs/), and no op those tables limit is recorded as fully supported; nodes are classified
// supported / partial (with the failing constraint) / unsupported (op, version, type) in the
// graph, its subgraphs and its functions; the CLI's exit codes and JSON.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { classifyModel, fullySupported } from "../../src/targets/classify.js";
import { listProfiles, loadProfile } from "../../src/targets/load.js";
import { parseProfile, versionSupported } from "../../src/targets/profile.js";
import type { OpsProbe } from "../../scripts/targets/webgpu-ops.js";
import { SchemaRegistry } from "../../src/schema/registry.js";
import { parseModelText } from "../../src/text/parse.js";
import { runCli } from "../helpers/cli.js";

const root = join(import.meta.dirname, "..", "..");
const docs = join(root, "node_modules", "onnxruntime-web", "docs");

/** The source table's rows: op → comment, for the domains a profile records. */
function sourceRows(file: string, comment: number): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of readFileSync(join(docs, file), "utf8").split("\n")) {
    const c = line.split("|").map((x) => x.trim());
    if (c.length < 4 || !/^[A-Z]\w*$/.test(c[1] ?? "")) continue;
    for (const m of c[2]!.matchAll(/(ai\.onnx|com\.microsoft)\(/g)) {
      // onnxruntime's internal ops listed under ai.onnx (MemcpyFromHost, …) are left out
      if (m[1] === "ai.onnx" && !SchemaRegistry.default().has("", c[1]!)) continue;
      rows.set(m[1] === "ai.onnx" ? c[1]! : `com.microsoft.${c[1]}`, c[comment] ?? "");
    }
  }
  return rows;
}

describe("profiles as data", () => {
  it("every shipped profile validates, and names its source and date", () => {
    const all = listProfiles();
    expect(all.map((p) => p.name).sort()).toEqual(expect.arrayContaining(["webgpu", "webnn"]));
    for (const p of all) {
      expect(p.source.url).toMatch(/^https:\/\//);
      expect(p.source.date).toMatch(/^\d{4}-\d\d-\d\d$/);
    }
  });

  it("webnn: one row per op of onnxruntime-web's table; every limited op keeps its limit", () => {
    const p = loadProfile("webnn");
    const src = sourceRows("webnn-operators.md", 4);
    expect(Object.keys(p.ops).sort()).toEqual([...src.keys()].sort());
    for (const [op, text] of src) {
      const row = p.ops[op]!;
      // a comment that only describes (performance, how the EP runs it) limits nothing
      if (text && !/^need perf optimization|no GPU kernel/.test(text))
        expect(row.constraints.length > 0 || row.caveat !== undefined, op).toBe(true);
    }
  });

  it("webgpu: the ops and versions the release's C++ provider placed on WebGPU (webgpu-ops.json)", () => {
    const p = loadProfile("webgpu");
    const probe = JSON.parse(
      readFileSync(join(root, "test", "data", "targets", "webgpu-ops.json"), "utf8"),
    ) as OpsProbe;
    expect(probe.release).toBe(p.backendVersion);
    expect(p.source.commit).toContain(`onnxruntime-web@${probe.release}`);
    expect(p.opset).toEqual({ min: probe.opsets[0], max: probe.opsets.at(-1) });
    const registry = SchemaRegistry.default();
    const rows = new Set<string>();
    for (const [key, r] of Object.entries(probe.ops)) {
      const op = r.domain ? key.slice(r.domain.length + 1) : key;
      const row = p.ops[key];
      if (!r.webgpu.length) {
        expect(row, key).toBeUndefined();
        continue;
      }
      if (!row) continue; // placed only where it is on CPU too (a version in halves)
      rows.add(key);
      if (!registry.has(r.domain, op)) continue;
      // every opset at which it went to WebGPU and not to CPU: its version there is supported;
      // every opset at which it went to CPU: not
      for (const o of probe.opsets) {
        const v = registry.tryResolve(r.domain, op, r.domain ? 1 : o);
        if (!v) continue;
        if (r.cpu.includes(o)) expect(versionSupported(row, v.since), `${key} at ${o}`).toBe(false);
      }
      for (const o of r.webgpu) {
        const v = registry.tryResolve(r.domain, op, r.domain ? 1 : o)!;
        const span = registry.versions(r.domain, op).find((x) => x.since === v.since);
        const cpuToo = probe.opsets.some(
          (x) => r.cpu.includes(x) && registry.tryResolve(r.domain, op, r.domain ? 1 : x) === span,
        );
        if (!cpuToo) expect(versionSupported(row, v.since), `${key} at ${o}`).toBe(true);
      }
    }
    // no row the probe did not give
    expect(Object.keys(p.ops).filter((k) => !rows.has(k))).toEqual([]);
    // the C++ provider against JSEP's table: it runs these, which the table lacks, and not
    // QLinearConv
    const jsep = sourceRows("webgpu-operators.md", 3);
    for (const op of ["PRelu", "GRU", "LSTM", "ScatterElements", "TopK", "And", "Identity"]) {
      expect(p.ops[op], op).toBeDefined();
      expect(jsep.has(op), op).toBe(false);
    }
    expect(p.ops.QLinearConv).toBeUndefined();
    expect(probe.ops.QLinearConv!.cpu).toContain(21);
  });

  it("webgpu's element types are those the release's WebGPU kernels ran (webgpu-kernels.json)", () => {
    const p = loadProfile("webgpu");
    const k = JSON.parse(
      readFileSync(join(root, "test", "data", "targets", "webgpu-kernels.json"), "utf8"),
    ) as {
      release: string;
      ops: Record<string, { types: string[]; indices?: string[] }>;
      cast: string[];
    };
    expect(k.release).toBe(p.backendVersion);
    for (const [op, r] of Object.entries(k.ops)) {
      const row = p.ops[op];
      if (!row || !r.types.length) continue;
      expect(row.types, op).toEqual([...new Set([...r.types, ...(r.indices ?? [])])].sort());
      if (r.indices)
        expect(row.constraints, op).toContainEqual(
          expect.objectContaining({ kind: "input-types", input: 0, types: [...r.types].sort() }),
        );
    }
    // without its int64 option (out of a page's reach in this release) no kernel of the C++
    // provider reads int64 but as an index (Gather's, GatherElements'); Cast writes it, and its
    // row lists the types it casts from
    expect(p.ops.Cast!.types).toEqual(["bool", "float", "float16", "int32", "uint32", "uint8"]);
    expect(k.cast).toContain("float>int64");
    expect(k.cast.filter((c) => c.startsWith("int64>"))).toEqual([]);
    for (const op of ["Flatten", "Reshape", "Unsqueeze", "Equal", "Where", "Mul", "ReduceMax"])
      expect(p.ops[op]!.types, op).not.toContain("int64");
  });

  it("webnn's facts: counts and rows read from the source", () => {
    const p = loadProfile("webnn");
    const rows = Object.values(p.ops);
    expect(rows.length).toBe(114);
    expect(rows.reduce((n, r) => n + r.constraints.length, 0)).toBe(75);
    // GatherBlockQuantized's 4-bit data in uint8: quantize_axis the last axis
    expect(rows.filter((r) => r.caveat).length).toBe(1);
    // "7-12, 13+": 7 is onnxruntime's opset floor (the profile's opset.min), not Abs's version
    expect(p.ops.Abs!.versions).toEqual([{ from: 1, to: 12 }, { from: 13 }]);
    expect(p.opset.min).toBe(7);
    expect(p.ops.Conv!.constraints).toEqual([{ kind: "rank", input: 0, min: 3, max: 4 }]);
    expect(p.ops.Expand!.constraints).toEqual([
      { kind: "constant-input", input: 1, name: "shape" },
    ]);
    expect(p.ops.Reshape!.constraints).toContainEqual({
      kind: "input-values",
      input: 1,
      name: "shape",
      notIn: [0],
    });
    expect(p.ops.BatchNormalization!.constraints).toContainEqual({
      kind: "attribute",
      name: "training_mode",
      in: [0],
    });
  });

  it("tensorrt's facts (onnx-tensorrt's operator matrix at its commit): counts and rows", () => {
    const p = loadProfile("tensorrt");
    expect(p.backendVersion).toBe("10.0");
    expect(p.opset).toEqual({ min: 9, max: 20 });
    expect(p.source.commit).toMatch(/^[0-9a-f]{40}$/);
    const rows = Object.values(p.ops);
    expect(rows.length).toBe(147);
    // the types of CumSum, QuantizeLinear and DequantizeLinear are their data input's (4 more)
    expect(rows.reduce((n, r) => n + r.constraints.length, 0)).toBe(55);
    expect(rows.filter((r) => r.caveat).length).toBe(5);
    expect(p.ops.Slice!.constraints).toEqual([{ kind: "constant-input", input: 3, name: "axes" }]);
    expect(p.ops.MaxPool!.constraints).toEqual([
      { kind: "rank", input: 0, min: 4, max: 5 },
      { kind: "absent-output", output: 1, name: "Indices" },
      { kind: "attribute", name: "dilations", in: [1] },
    ]);
    expect(p.ops.Abs!.types).toEqual(["float", "float16", "bfloat16", "int32", "int64"]);
    expect(p.ops.AffineGrid).toBeUndefined(); // "N" in the matrix
  });

  it("every profile's ai.onnx rows name ops the schemas know", async () => {
    const reg = SchemaRegistry.default();
    for (const p of listProfiles())
      for (const [key, row] of Object.entries(p.ops))
        if (row.domain === "") expect(reg.has("", key), `${p.name}: ${key}`).toBe(true);
  });

  it("names: name@version, a file of one's own, ai.onnx-N; bad ones said in one line", () => {
    expect(loadProfile("webnn@2").name).toBe("webnn");
    expect(() => loadProfile("webnn@7")).toThrow(/no target 'webnn@7'/);
    expect(() => loadProfile("tpu")).toThrow(/no target 'tpu' \(targets: .*webnn.*ai\.onnx-<N>/);
    const p = loadProfile("ai.onnx-13");
    expect(p.ops.Abs!.versions).toEqual([{ from: 13, to: 13 }]);
    expect(p.ops.Range).toBeUndefined(); // a function op at 13
    const dir = mkdtempSync(join(tmpdir(), "profile-"));
    try {
      const own = join(dir, "npu.json");
      writeFileSync(
        own,
        JSON.stringify({
          name: "npu",
          version: 2,
          backend: "an NPU SDK",
          backendVersion: "3.1",
          source: { url: "https://example.invalid/ops", date: "2026-12-05" },
          opset: { min: 13, max: 17 },
          ops: { Relu: { versions: [{ from: 6 }], types: ["float16"] } },
        }),
      );
      expect(loadProfile(own).ops.Relu!.types).toEqual(["float16"]);
      expect(() =>
        parseProfile(JSON.stringify({ name: "x", version: 1, ops: {} }), "bad.json"),
      ).toThrow(/^bad\.json: backend: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("nodes classified against a profile", () => {
  const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18]>
g (float[1,2,3,4,5] x, int64[3] s, float[2,3] v, bool c) => (float[6] y, float[2,3] z, float[2,3] w) {
  k = Conv <kernel_shape: ints = [1, 1, 1]> (x, wt)
  y = Reshape (v, s)
  z = Abs (v)
  w = If (c) <then_branch = t () => (float[2,3] a) { a = Neg (v) },
              else_branch = e () => (float[2,3] b) { b = Celu (v) }>
  wt = Constant <value: tensor = float[1,2,1,1,1] {1, 1}> ()
}`);

  it("webnn: partial with the failing constraint, unsupported with the op, in subgraphs too", () => {
    const r = classifyModel(m, loadProfile("webnn"));
    const by = (op: string) => r.nodes.find((n) => n.op === op)!;
    expect(by("Conv").verdict).toBe("partial");
    expect(by("Conv").reasons).toContain("input 0 has rank 5, the target takes 3 to 4");
    expect(by("Reshape").verdict).toBe("partial");
    expect(by("Reshape").reasons[0]).toBe("input 'shape' is computed, not constant");
    expect(by("Abs").verdict).toBe("supported");
    expect(by("Constant").verdict).toBe("supported");
    expect(by("Celu").verdict).toBe("unsupported");
    expect(by("Celu").where).toMatch(/Celu/);
    expect(by("Neg").verdict).toBe("supported");
    expect(fullySupported(r)).toBe(false);
    // the Constant is data: counted apart, as the partitions leave it out
    expect(r.coverage).toMatchObject({ nodes: 6, constants: 1, inFunctions: 0 });
    expect(r.partitions.nodes).toBe(r.coverage.nodes);
    expect(r.partitions.supported).toBe(r.coverage.supported);
  });

  it("ai.onnx-N: the opset outside the range, and function ops named as such", () => {
    const r = classifyModel(m, loadProfile("ai.onnx-17"));
    expect(r.model).toEqual(["ai.onnx opset 18 is outside ai.onnx-17's range 17 to 17"]);
    const celu = r.nodes.find((n) => n.op === "Celu")!;
    expect(celu.reasons[0]).toMatch(/Celu-12 is a function op, not in ai\.onnx-17: expand it/);
  });
});

describe("the command line", () => {
  const dir = mkdtempSync(join(tmpdir(), "targets-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it("targets lists the profiles with their sources", () => {
    const r = runCli(["targets"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^webnn@2: onnxruntime-web, WebNN execution provider .*\(https:/m);
    expect(r.stdout).toMatch(/^ai\.onnx-<N>: /m);
  });

  it("check --target: exit 0 when all is supported, 1 otherwise; --json carries the report", () => {
    const ok = file(
      "abs.onnxtxt",
      `<ir_version: 9, opset_import: ["" : 18]> g (float[2] x) => (float[2] y) { y = Abs (x) }`,
    );
    const good = runCli(["check", ok, "--target", "webnn"]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/target webnn@2: 1 of 1 nodes supported \(100\.0%\)/);
    const bad = file(
      "celu.onnxtxt",
      `<ir_version: 9, opset_import: ["" : 18]> g (float[2] x) => (float[2] y) { y = Celu (x) }`,
    );
    const r = runCli(["check", bad, "--target", "webnn", "--json"]);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout) as { ok: boolean; target: { nodes: { verdict: string }[] } };
    expect(j.ok).toBe(true);
    expect(j.target.nodes[0]!.verdict).toBe("unsupported");
    const withConstant = file(
      "constant.onnxtxt",
      `<ir_version: 9, opset_import: ["" : 18]> g (float[2] x) => (float[2] y) {
        c = Constant <value: tensor = float[2] {1, 2}> ()
        a = Add (x, c)
        y = Celu (a)
      }`,
    );
    // the coverage line and the partitions line count the same nodes, the Constant apart
    const text = runCli(["check", withConstant, "--target", "webnn"]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(
      /target webnn@2: 1 of 2 nodes supported \(50\.0%\) \(1 Constant node not counted: onnxruntime folds them into initializers\)\n/,
    );
    expect(text.stdout).toMatch(/partitions: 1 partition \(nodes 1\) covering 1 of 2 nodes/);
    expect(text.stdout.trimEnd().split("\n").at(-1)).toMatch(
      /^not supported: .*: target webnn@2: 1 of 2 nodes not supported \(1 unsupported, 0 partial\), 1 partition$/,
    );
    const json = JSON.parse(runCli(["check", withConstant, "--target", "webnn", "--json"]).stdout);
    expect(json.target.coverage).toMatchObject({ nodes: 2, supported: 1, constants: 1 });
    expect(json.target.partitions).toMatchObject({ nodes: 2, supported: 1 });
    const unknown = runCli(["check", ok, "--target", "tpu"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no target 'tpu'/);
  });
});

describe("expand --target", () => {
  const dir = mkdtempSync(join(tmpdir(), "targets-expand-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const bert = join(root, "test", "data", "deployed", "bert_fp32", "model.onnx");

  it("expands the function ops ai.onnx-14 lacks; the result is fully supported and runs as before", async () => {
    const out = join(dir, "bert14.onnx");
    const r = runCli(["expand", bert, "--target", "ai.onnx-14", "-o", out]);
    expect(r.code).toBe(0);
    expect(runCli(["check", out, "--target", "ai.onnx-14"]).code).toBe(0);
    const { loadModel } = await import("../../src/io/files.js");
    const { randomInputs, parseDims } = await import("../../src/app/index.js");
    const { runOrt } = await import("../helpers/ort.js");
    const { compareTensors } = await import("../../src/interp/backend-test.js");
    const a = loadModel(bert);
    const b = loadModel(out);
    const inputs = randomInputs(a, 1, parseDims("batch=2,sequence=5")) as Record<
      string,
      import("../../src/interp/types.js").RTensor
    >;
    const [x, y] = [await runOrt(a, inputs), await runOrt(b, inputs)];
    for (const k of Object.keys(x))
      expect(compareTensors(y[k]!, x[k]!, { rtol: 1e-5, atol: 1e-6 }), k).toBeUndefined();
  });

  it("webnn: what it lacks and cannot be expanded is left with a warning, and check names it", () => {
    const out = join(dir, "bertw.onnx");
    const r = runCli(["expand", bert, "--target", "webnn", "-o", out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: .*\(Loop\): left: Loop-\d+ is not in the target op list/);
    const c = runCli(["check", out, "--target", "webnn"]);
    expect(c.code).toBe(1);
    expect(c.stdout).toMatch(/unsupported: graph > node .*\(Loop\): Loop is not in webnn/);
  });
});

describe("lower --target", () => {
  const dir = mkdtempSync(join(tmpdir(), "targets-lower-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const bert = join(root, "test", "data", "deployed", "bert_fp32", "model.onnx");

  it("BERT for webnn with fixed dims: shape chains fold, nothing is unsupported, same numbers", async () => {
    const { loadModel } = await import("../../src/io/files.js");
    const { lower, parseDims, randomInputs } = await import("../../src/app/index.js");
    const { runOrt } = await import("../helpers/ort.js");
    const { compareTensors } = await import("../../src/interp/backend-test.js");
    const m = loadModel(bert);
    const dims = parseDims("batch=1,sequence=8");
    const r = lower(m, { profile: loadProfile("webnn"), dims });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const left = r.report.nodes.filter((n) => n.verdict !== "supported");
    // nothing remains: the Reshapes' shapes are constants with no 0, as webnn asks
    expect(left).toEqual([]);
    const inputs = randomInputs(m, 2, dims) as Record<
      string,
      import("../../src/interp/types.js").RTensor
    >;
    const [a, b] = [await runOrt(m, inputs), await runOrt(r.model, inputs)];
    for (const k of Object.keys(a))
      expect(compareTensors(b[k]!, a[k]!, { rtol: 1e-5, atol: 1e-6 }), k).toBeUndefined();
  });

  it("webgpu at opset 23: Cos-22 has no WebGPU kernel, Cos-7 has; lowering goes to opset 21, same numbers", async () => {
    const { lower } = await import("../../src/app/index.js");
    const { runOrt } = await import("../helpers/ort.js");
    const { compareTensors } = await import("../../src/interp/backend-test.js");
    const m = parseModelText(`<ir_version: 10, opset_import: ["" : 23]>
g (float[4] x) => (float[4] y) {
  s = Sin (x)
  y = Cos (s) }`);
    const p = loadProfile("webgpu");
    const before = classifyModel(m, p).nodes.filter((n) => n.verdict !== "supported");
    expect(before.map((n) => n.op).sort()).toEqual(["Cos", "Sin"]);
    const r = lower(m, { profile: p, dims: new Map() });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.model.opsetImports.find((o) => o.domain === "")?.version).toBe(21);
    expect(r.report.nodes.filter((n) => n.verdict !== "supported")).toEqual([]);
    const x = { x: { dtype: 1, shape: [4], data: new Float32Array([0.1, 1, -2, 3]) } };
    const [a, b] = [await runOrt(m, x as never), await runOrt(r.model, x as never)];
    expect(compareTensors(b.y!, a.y!, { rtol: 0, atol: 0 })).toBeUndefined();
  });

  it("the command: ai.onnx-13 fully supported (exit 0 with --strict); webnn --strict exits 1", () => {
    const out = join(dir, "b13.onnx");
    const r = runCli([
      "lower",
      bert,
      "--target",
      "ai.onnx-13",
      "--dim",
      "batch=1,sequence=8",
      "--strict",
      "-o",
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/target ai\.onnx-13@1: (\d+) of \1 nodes supported \(100\.0%\)/);
    const w = runCli(["lower", bert, "--target", "webnn", "--strict", "-o", join(dir, "w.onnx")]);
    expect(w.code).toBe(1);
    expect(w.stdout).toMatch(/partial: .*\(Reshape\)/);
    // What remains is said once, by the final report (the expand step's view named ops that
    // the last folding removes).
    expect(w.stderr).not.toMatch(/left: /);
    expect(w.stdout).toMatch(/unsupported: .*\(Range\)/);
  });

  it("a quantized model stays quantized where the target has QuantizeLinear/DequantizeLinear", async () => {
    const { loadModel } = await import("../../src/io/files.js");
    const { lower, randomInputs } = await import("../../src/app/index.js");
    const { runOrt } = await import("../helpers/ort.js");
    const { compareTensors } = await import("../../src/interp/backend-test.js");
    // onnxruntime's own QuantizeLinear/DequantizeLinear (com.microsoft), int8 weights.
    const m = loadModel(
      join(root, "test", "data", "deployed", "cnn_qdq_s8s8_contrib", "model.onnx"),
    );
    const ops = (x: typeof m) =>
      x.graph.nodes.map((n) => `${n.domain ? `${n.domain}.` : ""}${n.opType}`);
    const dims = new Map([["batch", 1]]);
    const inputs = randomInputs(m, 2, dims) as Record<
      string,
      import("../../src/interp/types.js").RTensor
    >;
    const before = await runOrt(m, inputs);
    const dq = ops(m).filter((o) => o === "com.microsoft.DequantizeLinear").length;
    const t = lower(m, { profile: loadProfile("tensorrt"), dims });
    expect(t.ok).toBe(true);
    if (!t.ok) return;
    // The pairs in ai.onnx (repeated ones merged): the int8 weights are not folded into float.
    expect(ops(t.model).filter((o) => o === "DequantizeLinear").length).toBeGreaterThan(dq / 2);
    const int8 = (x: typeof m) => x.graph.initializers.filter((i) => i.dataType === 3).length;
    expect(int8(t.model)).toBe(int8(m));
    const after = await runOrt(t.model, inputs);
    for (const k of Object.keys(before))
      expect(compareTensors(after[k]!, before[k]!, { rtol: 0, atol: 0 }), k).toBeUndefined();
    // CoreML has neither: float arithmetic, and nothing left unsupported for it.
    const c = lower(m, { profile: loadProfile("coreml"), dims });
    expect(c.ok && ops(c.model).some((o) => /QuantizeLinear/.test(o))).toBe(false);
  });

  it("an op with no body for its call is left, with a warning, and reported", () => {
    // GroupQueryAttention with smooth_softmax: `expand` refuses it, `lower` keeps it.
    const gqa = join(dir, "gqa.onnxtxt");
    writeFileSync(
      gqa,
      `<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (float[1,2,32] q, float[1,2,16] k, float[1,2,16] v, int32[1] s) => (float[1,2,32] y) {
  t = Constant <value = int32 {2}> ()
  y = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 1, smooth_softmax = 1> (q, k, v, , , s, t)
}`,
    );
    const r = runCli(["lower", gqa, "--target", "coreml", "-o", join(dir, "gqa.onnx")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: .*GroupQueryAttention.*left as it is: .*no body here/);
    expect(r.stdout).toMatch(/unsupported: .*\(com\.microsoft\.GroupQueryAttention\)/);
  });
});
