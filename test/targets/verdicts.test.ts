// Target profiles, round two: profiles read from the release that judges them (coreml and nnapi
// from onnxruntime 1.30's own EP tables, the ones its usability checker reads; webgpu and webnn
// from the onnxruntime-web release package.json pins), every note of every shipped profile read
// into a checkable constraint or a caveat (never a blanket "partial"), each held to what it
// became by a golden file, verdicts that a node earns, and the partitions onnxruntime would form.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadModel } from "../../src/io/files.js";
import { classifyModel, type TargetReport } from "../../src/targets/classify.js";
import { listProfiles, loadProfile } from "../../src/targets/load.js";
import { parseProfile, type Constraint } from "../../src/targets/profile.js";
import { parseModelText } from "../../src/text/parse.js";
import { findPython } from "../../scripts/corpus/python.js";
import { ortTableRows } from "../../scripts/targets/common.js";
import { estimateOf, usability, usabilityPython } from "../../scripts/targets/ort-usability.js";
import { runCli } from "../helpers/cli.js";
import { expectGolden } from "../helpers/golden.js";

const root = join(import.meta.dirname, "..", "..");
const RELEASE = "1.30.0";
const tables = join(root, "test", "data", "targets", `onnxruntime-${RELEASE}`);

describe("profiles from the release that judges them", () => {
  for (const [name, file] of [
    ["coreml", "coreml_supported_mlprogram_ops.md"],
    ["nnapi", "nnapi_supported_ops.md"],
  ] as const)
    it(`${name}: onnxruntime ${RELEASE}'s table, op for op`, () => {
      const p = loadProfile(name);
      expect(p.backendVersion).toBe(`onnxruntime ${RELEASE}`);
      expect(p.source.url).toContain(`/blob/v${RELEASE}/`);
      const rows = ortTableRows(readFileSync(join(tables, file), "utf8"));
      const key = (d: string, op: string) => (d ? `${d}.${op}` : op === "Argmax" ? "ArgMax" : op);
      expect(Object.keys(p.ops).sort()).toEqual(rows.map((r) => key(r.domain, r.op)).sort());
      // the checker's own requirement on every node: fixed input shapes
      expect(p.everyNode).toContainEqual({ kind: "static-dims", nonEmpty: true });
    });

  it("the facts the issue named: coreml has And and Where, not Range; nnapi has LeakyRelu", () => {
    const c = loadProfile("coreml");
    expect(c.ops.And && c.ops.Where).toBeDefined();
    expect(c.ops.Range).toBeUndefined();
    expect(c.ops.QuantizeLinear).toBeUndefined();
    expect(loadProfile("nnapi").ops.LeakyRelu).toBeDefined();
  });

  const py = findPython(["onnxruntime"]);
  it.skipIf(!py)("the copies are the installed wheel's tables (skipped without its Python)", () => {
    const r = spawnSync(
      py!,
      [
        "-c",
        "import onnxruntime, os, onnxruntime.tools.mobile_helpers as m; print(onnxruntime.__version__); print(os.path.dirname(m.__file__))",
      ],
      { encoding: "utf8" },
    );
    const [version, dir] = r.stdout.trim().split("\n");
    if (version !== RELEASE) return; // another release installed: the copies stand for theirs
    for (const f of ["coreml_supported_mlprogram_ops.md", "nnapi_supported_ops.md"])
      expect(readFileSync(join(tables, f), "utf8")).toBe(readFileSync(join(dir!, f), "utf8"));
  });

  it("webgpu and webnn: the onnxruntime-web release package.json pins", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    const pinned = pkg.devDependencies["onnxruntime-web"];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    const installed = JSON.parse(
      readFileSync(join(root, "node_modules", "onnxruntime-web", "package.json"), "utf8"),
    ) as { version: string };
    expect(installed.version).toBe(pinned);
    for (const name of ["webgpu", "webnn"]) expect(loadProfile(name).backendVersion).toBe(pinned);
  });

  // The scripts, rerun on the release's tables, write the shipped profiles (the day they were
  // read aside): a profile edited by hand, or a script changed without rerunning it, fails here.
  const tsx = join(root, "node_modules", "tsx", "dist", "loader.mjs");
  for (const [script, args, names] of [
    ["from-coreml.ts", [join(tables, "coreml_supported_mlprogram_ops.md"), RELEASE], ["coreml"]],
    ["from-nnapi.ts", [join(tables, "nnapi_supported_ops.md"), RELEASE], ["nnapi"]],
    ["from-ort-web.ts", [], ["webnn", "webgpu"]],
  ] as const)
    it(`${script} rewrites ${names.join(" and ")} as shipped`, () => {
      const out = mkdtempSync(join(tmpdir(), "profiles-"));
      try {
        const date = loadProfile(names[0]).source.date;
        const r = spawnSync(
          process.execPath,
          ["--import", tsx, join(root, "scripts", "targets", script), ...args, date],
          { encoding: "utf8", env: { ...process.env, TARGETS_OUT: out } },
        );
        expect(r.status, r.stderr).toBe(0);
        for (const name of names) {
          const written = JSON.parse(readFileSync(join(out, `${name}.json`), "utf8"));
          const shipped = JSON.parse(readFileSync(join(root, "targets", `${name}.json`), "utf8"));
          written.source.date = shipped.source.date;
          expect(written, name).toEqual(shipped);
        }
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    }, 60_000);

  it("a profile with the old `partial` is refused in one line", () => {
    const p = JSON.parse(readFileSync(join(root, "targets", "webnn.json"), "utf8"));
    p.ops.Abs.partial = "limited";
    expect(() => parseProfile(JSON.stringify(p), "x.json")).toThrow(
      /ops\.Abs\.partial: no longer read; write the limit as constraints, or as a .caveat./,
    );
  });
});

/** A constraint in a few words, for the golden readings. */
function said(c: Constraint): string {
  switch (c.kind) {
    case "attribute":
      return `attribute ${c.name}${c.absent ? " absent" : ""}${c.in ? ` in ${JSON.stringify(c.in)}` : ""}${c.notIn ? ` not in ${JSON.stringify(c.notIn)}` : ""}${c.min !== undefined ? ` >= ${c.min}` : ""}${c.max !== undefined ? ` <= ${c.max}` : ""}`;
    case "any":
      return `any of (${c.of.map((alt) => alt.map(said).join(" and ")).join(") or (")})`;
    case "rank":
      return `rank of ${c.input === undefined ? "every input" : `input ${c.input}`} ${c.min}-${c.max}`;
    case "input-types":
    case "output-types":
      return `${c.name} is ${c.types.join("|")}`;
    case "input-values": {
      const { kind, input, name, ...rest } = c;
      void kind;
      void input;
      return `values of ${name} ${JSON.stringify(rest)}`;
    }
    case "static-dims":
      return `static dims${c.input !== undefined ? ` of input ${c.input}` : ""}${c.output !== undefined ? ` of output ${c.output}` : ""}${c.axisFrom ? ` at '${c.axisFrom}'` : ""}${c.nonEmpty ? ", none 0" : ""}`;
    case "absent-output":
      return `absent-output ${c.name}`;
    case "constant-input":
    case "absent-input":
    case "given-input":
      return `${c.kind} ${c.name}`;
    case "dims-equal":
      return `dim ${c.axis} of input ${c.input} = of output ${c.output}`;
    case "max-outputs":
      return `at most ${c.max} outputs`;
    case "every-axis":
      return `attribute ${c.attribute} absent or every axis in order`;
    default:
      return c.kind;
  }
}

describe("every note read: a constraint or a caveat, held by a golden file per profile", () => {
  for (const p of listProfiles())
    it(`${p.name}@${p.version}`, () => {
      const lines: string[] = [];
      if (p.everyNode) lines.push(`every node: ${p.everyNode.map(said).join("; ")}`);
      for (const [op, r] of Object.entries(p.ops)) {
        if (!r.constraints.length && !r.caveat) continue;
        lines.push(
          `${op}: ${[...r.constraints.map(said), ...(r.caveat ? [`caveat: ${r.caveat}`] : [])].join("; ")}`,
        );
      }
      expectGolden(
        join(root, "test", "golden", "targets", `${p.name}.txt`),
        lines.join("\n") + "\n",
      );
    });
});

const verdictOf = (r: TargetReport, op: string) => r.nodes.filter((n) => n.op === op);

describe("verdicts a node earns", () => {
  it("webnn Reshape: a constant shape with no 0 is supported; a 0 or a computed shape is not", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18]>
g (float[2,3,4] x) => (float[6,4] a, float[2,12] b, float[2,3,4] c) {
  s1 = Constant <value: tensor = int64[2] {6, -1}> ()
  a = Reshape (x, s1)
  s2 = Constant <value: tensor = int64[2] {0, 12}> ()
  b = Reshape (x, s2)
  s3 = Shape (x)
  c = Reshape (x, s3)
}`);
    const [a, b, c] = verdictOf(classifyModel(m, loadProfile("webnn")), "Reshape");
    expect(a!.verdict).toBe("supported");
    expect(b!.verdict).toBe("partial");
    expect(b!.reasons).toEqual(["input 'shape' holds 0, which the target does not take"]);
    expect(c!.verdict).toBe("partial");
    // said once, not again by the constraint on its values
    expect(c!.reasons).toEqual(["input 'shape' is computed, not constant"]);
  });

  it("coreml MatMul is supported (the table's note is Gemm's); Pow only with both inputs float32", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 17]>
g (float[2,3] x, float[3,4] w, float[2,3] e, int32[2,3] k) => (float[2,4] y, float[2,3] p, float[2,3] q) {
  y = MatMul (x, w)
  p = Pow (x, e)
  q = Pow (x, k)
}`);
    const r = classifyModel(m, loadProfile("coreml"));
    expect(verdictOf(r, "MatMul")[0]!.verdict).toBe("supported");
    expect(r.coverage.macs).toEqual({ total: 24, supported: 24 });
    const [p, q] = verdictOf(r, "Pow");
    expect(p!.verdict).toBe("supported");
    expect(q!.verdict).toBe("partial");
    expect(q!.reasons).toEqual(["input 'Y' is int32, the target takes float"]);
  });

  it("webnn Pad: constant mode supported, wrap not", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 19]>
g (float[2,3] x) => (float[2,5] a, float[2,5] b) {
  p = Constant <value: tensor = int64[4] {0, 1, 0, 1}> ()
  a = Pad <mode = "constant"> (x, p)
  b = Pad <mode = "wrap"> (x, p)
}`);
    const [a, b] = verdictOf(classifyModel(m, loadProfile("webnn")), "Pad");
    expect(a!.verdict).toBe("supported");
    expect(b!.verdict).toBe("partial");
    expect(b!.reasons).toEqual([`attribute 'mode' = "wrap", the target takes not "wrap"`]);
  });

  it("a caveat leaves the node supported and is listed beside it", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y) { y = Reciprocal (x) }`);
    const r = classifyModel(m, loadProfile("coreml"));
    expect(r.nodes[0]!.verdict).toBe("supported");
    expect(r.nodes[0]!.caveat).toMatch(/epsilon/);
    expect(r.caveats).toEqual([{ op: "Reciprocal", caveat: r.nodes[0]!.caveat, nodes: 1 }]);
  });

  it("coreml: an empty input (a dim of 0) fails, as the checker counts it not fixed", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 17]>
g (float[2,0] x, float[2,3] z) => (float[2,0] y, float[2,3] w) { y = Relu (x)  w = Relu (z) }`);
    const [y, w] = classifyModel(m, loadProfile("coreml")).nodes;
    expect(y!.reasons).toEqual(["input 'x' is empty (a dim of 0), which the target does not take"]);
    expect(w!.verdict).toBe("supported");
  });

  it("nnapi: dims not known before running fail the checker's rule; Gather's indices int32 or constant", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 17]>
g (float[N,3] x, float[2,3] z, int64[2] i, int32[2] j) => (float[N,3] y, float[2,3] a, float[2,3] b) {
  y = Relu (x)
  a = Gather (z, i)
  b = Gather (z, j)
}`);
    const r = classifyModel(m, loadProfile("nnapi"));
    expect(verdictOf(r, "Relu")[0]!.reasons[0]).toMatch(/dims not known before running/);
    const [a, b] = verdictOf(r, "Gather");
    expect(a!.verdict).toBe("partial");
    expect(a!.reasons[0]).toMatch(
      /^none of the cases the target takes: input 'indices' is computed/,
    );
    expect(b!.verdict).toBe("supported");
  });
});

describe("a note held where an older op version takes its input as an attribute", () => {
  it("nnapi Split: equal parts only, the sizes given as an input or (before 13) an attribute", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 13]>
g (float[2,6] x) => (float[2,3] a, float[2,3] b, float[2,2] c, float[2,4] d, float[2,3] e, float[2,3] f) {
  s1 = Constant <value: tensor = int64[2] {3, 3}> ()
  a, b = Split <axis = 1> (x, s1)
  s2 = Constant <value: tensor = int64[2] {2, 4}> ()
  c, d = Split <axis = 1> (x, s2)
  e, f = Split <axis = 1> (x)
}`);
    const [a, c, e] = verdictOf(classifyModel(m, loadProfile("nnapi")), "Split");
    expect(a!.verdict).toBe("supported");
    expect(c!.verdict).toBe("partial");
    expect(c!.reasons).toEqual(["split sizes [2,4] differ; the target takes equal parts only"]);
    expect(e!.verdict).toBe("supported");
    const old = parseModelText(`<ir_version: 7, opset_import: ["" : 11]>
g (float[2,6] x) => (float[2,2] c, float[2,4] d, float[2,3] e, float[2,3] f) {
  c, d = Split <axis = 1, split = [2, 4]> (x)
  e, f = Split <axis = 1, split = [3, 3]> (x)
}`);
    const [c11, e11] = verdictOf(classifyModel(old, loadProfile("nnapi")), "Split");
    expect(c11!.reasons).toEqual(["split sizes [2,4] differ; the target takes equal parts only"]);
    expect(e11!.verdict).toBe("supported");
  });

  it("onnx-mlir ReduceSum: axes given (an attribute at opset 11, an input at 13), not left to the default", () => {
    const m11 = parseModelText(`<ir_version: 7, opset_import: ["" : 11]>
g (float[2,3] x) => (float[2,1] a, float[1,1] b) {
  a = ReduceSum <axes = [1]> (x)
  b = ReduceSum (x)
}`);
    const [a, b] = verdictOf(classifyModel(m11, loadProfile("onnx-mlir")), "ReduceSum");
    expect(a!.verdict).toBe("supported");
    expect(b!.verdict).toBe("partial");
    expect(b!.reasons).toEqual(["input 'axes' is not given; the target needs it"]);
    const m13 = parseModelText(`<ir_version: 7, opset_import: ["" : 13]>
g (float[2,3] x) => (float[2,1] a, float[1,1] b) {
  k = Constant <value: tensor = int64[1] {1}> ()
  a = ReduceSum (x, k)
  b = ReduceSum (x)
}`);
    const [a13, b13] = verdictOf(classifyModel(m13, loadProfile("onnx-mlir")), "ReduceSum");
    expect(a13!.verdict).toBe("supported");
    expect(b13!.verdict).toBe("partial");
  });
});

describe("tensorrt: notes read as onnx-tensorrt's matrix means them", () => {
  it("Resize with scales: `axes`, when set, is every axis in order", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 19]>
g (float[1,2,4,4] x) => (float[1,2,8,8] a, float[1,2,8,8] b, float[1,2,8,8] c) {
  s4 = Constant <value: tensor = float[4] {1, 1, 2, 2}> ()
  s2 = Constant <value: tensor = float[2] {2, 2}> ()
  a = Resize <axes = [0, 1, 2, 3]> (x, , s4)
  b = Resize <axes = [2, 3]> (x, , s2)
  c = Resize (x, , s4)
}`);
    const [a, b, c] = verdictOf(classifyModel(m, loadProfile("tensorrt")), "Resize");
    expect(a!.verdict).toBe("supported");
    expect(b!.verdict).toBe("partial");
    expect(b!.reasons[0]).toMatch(
      /attribute 'axes' = \[2,3\], the target takes every axis of the rank-4 input in order/,
    );
    expect(c!.verdict).toBe("supported");
  });

  it('ConstantOfShape makes int64 (the matrix spells it "INF64")', () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 17]>
g (int64[2] s) => (int64[?,?] y) { y = ConstantOfShape <value = int64[1] {7}> (s) }`);
    expect(classifyModel(m, loadProfile("tensorrt")).nodes[0]!.verdict).toBe("supported");
  });
});

describe("partitions, as onnxruntime forms them", () => {
  it("an unsupported node between two supported ones splits them; one beside them does not", () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 17]>
g (float[2,3] x) => (float[2,3] y, float[2,3] z) {
  a = Relu (x)
  b = Erf (a)
  y = Relu (b)
  z = Erf (x)
}`);
    const r = classifyModel(m, loadProfile("nnapi"));
    expect(r.partitions.count).toBe(2);
    expect(r.partitions.groups.map((g) => g.nodes)).toEqual([1, 1]);
    expect(r.partitions.splitters.map((i) => r.nodes[i]!.op)).toEqual(["Erf"]);
    expect(r.nodes.map((n) => n.partition)).toEqual([0, undefined, 1, undefined]);
  });

  const checkerPython = usabilityPython();
  it.skipIf(!checkerPython)(
    "the same count as onnxruntime's usability checker on deployed models (skipped without its Python)",
    () => {
      const models = ["bert_fp32", "cnn_fp32", "cnn_qdq_per_tensor"].map((d) =>
        join(root, "test", "data", "deployed", d, "model.onnx"),
      );
      usability(checkerPython!, models, 240_000).forEach((row, i) => {
        const model = loadModel(models[i]!);
        for (const t of ["coreml", "nnapi"] as const) {
          const ours = classifyModel(model, loadProfile(t)).partitions;
          expect(
            ours.groups.map((g) => g.nodes),
            `${models[i]} ${t}`,
          ).toEqual(estimateOf(row.raw?.[t])?.sizes);
        }
      });
    },
    300_000,
  );
});

describe("check --target: one closing line that agrees with the exit code", () => {
  const dir = mkdtempSync(join(tmpdir(), "verdicts-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it("not supported: exit 1, no `ok:` line, partitions said; --json the same summary", () => {
    const f = file(
      "erf.onnxtxt",
      `<ir_version: 9, opset_import: ["" : 17]> g (float[2] x) => (float[2] y) { a = Relu (x)  b = Erf (a)  y = Relu (b) }`,
    );
    const r = runCli(["check", f, "--target", "nnapi"]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(/^ok:/m);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toContain(
      `${f}: partitions: 2 partitions (nodes 1, 1) covering 2 of 3 nodes (66.7%), split by 1 node(s)`,
    );
    expect(lines.at(-1)).toBe(
      `not supported: ${f}: target nnapi@2: 1 of 3 nodes not supported (1 unsupported, 0 partial), 2 partitions`,
    );
    const j = runCli(["check", f, "--target", "nnapi", "--json"]);
    expect(j.code).toBe(1);
    const out = JSON.parse(j.stdout) as {
      summary: string;
      exitCode: number;
      target: TargetReport;
    };
    expect(out.summary).toBe(lines.at(-1));
    expect(out.exitCode).toBe(1);
    expect(out.target.partitions.count).toBe(2);
  });

  it("supported: exit 0 and `ok:` with the target's verdict", () => {
    const f = file(
      "relu.onnxtxt",
      `<ir_version: 9, opset_import: ["" : 17]> g (float[2] x) => (float[2] y) { y = Relu (x) }`,
    );
    const r = runCli(["check", f, "--target", "coreml"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n").at(-1)).toBe(
      `ok: ${f} (target coreml@2: every node supported, 1 partition)`,
    );
  });
});
