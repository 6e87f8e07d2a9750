import {
  mkdtempSync,
  readFileSync,
  readdirSync,
  writeFileSync,
  rmSync,
  copyFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { OnnxError } from "../../src/errors.js";
import { OperatorFileSchema, SchemaRegistry, defaultSchemaDir } from "../../src/schema/index.js";

const dir = defaultSchemaDir();
const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "schemas-"));
  temps.push(d);
  return d;
}
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The operator files: every `*.json` directly in schemas/, sorted. */
const schemaFiles = () =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();

function errorOf(f: () => unknown): OnnxError {
  try {
    f();
  } catch (e) {
    if (e instanceof OnnxError) return e;
    throw e;
  }
  throw new Error("expected an OnnxError");
}

describe("schema files", () => {
  it("every file validates against OperatorFileSchema and names its operator", () => {
    for (const f of schemaFiles()) {
      const parsed = OperatorFileSchema.safeParse(JSON.parse(readFileSync(join(dir, f), "utf8")));
      expect(parsed.success, f).toBe(true);
      const d = parsed.data!;
      const prefix = d.registered_by ? `${d.registered_by}.` : d.domain ? `${d.domain}.` : "";
      expect(`${prefix}${d.name}.json`).toBe(f);
    }
  });

  it("holds one operator per file directly in schemas/ (the overlays in schemas/_overlay are none)", () => {
    const reg = new SchemaRegistry(dir);
    const ops = [
      ...reg.operators(),
      ...reg.runtimeRegistrations().map(([, op]) => `onnxruntime.${op}`),
    ].sort();
    expect(ops.length).toBe(schemaFiles().length);
    expect(ops.map((op) => `${op}.json`)).toEqual(schemaFiles());
  });

  it("holds every ai.onnx version of the spec, plus LogCumSumExp-29", () => {
    const spec = JSON.parse(
      readFileSync(
        fileURLToPath(new URL("../../scripts/spec/operators.json", import.meta.url)),
        "utf8",
      ),
    ).operators as Record<string, { since: number }[]>;
    const reg = new SchemaRegistry(dir);
    const ops = reg.operators().filter((o) => !o.includes("."));
    expect(ops).toEqual([...Object.keys(spec), "LogCumSumExp"].sort());
    for (const [op, versions] of Object.entries(spec)) {
      expect(
        reg.versions("ai.onnx", op).map((v) => v.since),
        op,
      ).toEqual(versions.map((v) => v.since));
    }
    expect(reg.versions("", "LogCumSumExp").map((v) => v.since)).toEqual([29]);
    const newest = Math.max(...ops.flatMap((op) => reg.versions("", op).map((v) => v.since)));
    expect(newest).toBeGreaterThanOrEqual(29);
    expect(reg.maxOpset("")).toBe(newest);
    expect(reg.maxOpset("ai.onnx")).toBe(newest);
    expect(reg.maxOpset("com.example")).toBe(0);
  });

  it("is what the generator produces from the spec and the overlay (rerunnable, nothing hand-edited is lost)", () => {
    const root = fileURLToPath(new URL("../../", import.meta.url));
    const r = spawnSync(process.execPath, ["scripts/gen-schemas.mjs", "--check"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    // And regenerating into a fresh folder gives byte-identical files.
    const out = tempDir();
    const g = spawnSync(process.execPath, ["scripts/gen-schemas.mjs", "--out", out], {
      cwd: root,
      encoding: "utf8",
    });
    expect(g.status).toBe(0);
    const a = readFileSync(join(out, "ReduceLogSum.json"), "utf8");
    expect(a).toBe(readFileSync(join(dir, "ReduceLogSum.json"), "utf8"));
    expect(JSON.parse(a).versions[3].body).toEqual({ kind: "builder", builder: "reduce_log_sum" });
  });

  it("has descriptions for the versions the project documents", () => {
    const reg = SchemaRegistry.default();
    const want: [string, number[]][] = [
      ["ReduceLogSum", [1, 11, 13, 18]],
      ["ReduceL1", [1, 11, 13, 18]],
      ["ReduceSum", [1, 11, 13]],
      ["LogCumSumExp", [29]],
    ];
    for (const [op, sinces] of want)
      for (const s of sinces)
        expect(reg.resolve("", op, s).description?.length ?? 0, `${op}-${s}`).toBeGreaterThan(40);
  });

  it("marks the bodies it can build", () => {
    const reg = SchemaRegistry.default();
    for (const op of [
      "ReduceLogSum",
      "ReduceL1",
      "ReduceL2",
      "ReduceLogSumExp",
      "ReduceSumSquare",
    ]) {
      const v = reg.resolve("", op, 18);
      expect(v.function).toBe(true);
      expect(v.body?.kind).toBe("builder");
    }
    expect(reg.resolve("", "LogCumSumExp", 29).body).toEqual({
      kind: "builder",
      builder: "log_cum_sum_exp",
    });
  });
});

describe("SchemaRegistry", () => {
  const reg = SchemaRegistry.default();

  it("loads once (the default registry is shared)", () => {
    expect(SchemaRegistry.default()).toBe(reg);
    expect(new SchemaRegistry(dir).operators()).toEqual(reg.operators());
  });

  it("resolves the version in force", () => {
    expect(reg.resolve("", "ReduceSum", 12).since).toBe(11);
    expect(reg.resolve("ai.onnx", "ReduceSum", 13).since).toBe(13);
    expect(reg.resolve("", "ReduceSum", 28).since).toBe(13);
    expect(reg.resolve("", "ReduceLogSum", 17).since).toBe(13);
    expect(reg.resolve("", "ReduceLogSum", 18).since).toBe(18);
    expect(reg.resolve("", "LogCumSumExp", 29).since).toBe(29);
    const v = reg.resolve("", "ReduceLogSum", 18);
    expect(v.name).toBe("ReduceLogSum");
    expect(v.domain).toBe("");
    expect(v.inputs.map((f) => [f.name, f.option])).toEqual([
      ["data", "single"],
      ["axes", "optional"],
    ]);
    expect(reg.tryResolve("", "LogCumSumExp", 28)).toBeUndefined();
    expect(reg.tryResolve("", "Nope", 28)).toBeUndefined();
    expect(reg.has("ai.onnx", "Abs")).toBe(true);
    expect(reg.has("", "abs")).toBe(false);
  });

  it("says why a lookup fails", () => {
    const early = errorOf(() => reg.resolve("", "LogCumSumExp", 28));
    expect(early.code).toBe("E_SCHEMA");
    expect(early.message).toBe(
      "operator 'LogCumSumExp' is not defined at opset 28 (first version: 29)",
    );
    const unknown = errorOf(() => reg.resolve("", "FooBar", 18));
    expect(unknown.code).toBe("E_SCHEMA");
    expect(unknown.message).toBe("unknown operator 'FooBar' in domain 'ai.onnx'");
    expect(errorOf(() => reg.resolve("com.example", "Abs", 18)).message).toBe(
      "unknown operator 'Abs' in domain 'com.example'",
    );
  });

  it("rejects a broken file naming the file and the field", () => {
    const d = tempDir();
    copyFileSync(join(dir, "Abs.json"), join(d, "Abs.json"));
    const broken = JSON.parse(readFileSync(join(dir, "ReduceL1.json"), "utf8"));
    broken.versions[2].attributes[1].type = "INTEGER";
    writeFileSync(join(d, "ReduceL1.json"), JSON.stringify(broken));
    const e = errorOf(() => new SchemaRegistry(d));
    expect(e.code).toBe("E_SCHEMA");
    expect(
      e.message.startsWith(`${join(d, "ReduceL1.json")}: versions[2].attributes[1].type: `),
    ).toBe(true);
    expect(e.message.split("\n").length).toBe(1);

    broken.versions[2].attributes[1].type = "INT";
    broken.versions[0].surprise = true;
    writeFileSync(join(d, "ReduceL1.json"), JSON.stringify(broken));
    expect(errorOf(() => new SchemaRegistry(d)).message).toMatch(
      /ReduceL1\.json: versions\[0\]: .*surprise/,
    );

    delete broken.versions[0].surprise;
    broken.versions[1].since = 1;
    writeFileSync(join(d, "ReduceL1.json"), JSON.stringify(broken));
    expect(errorOf(() => new SchemaRegistry(d)).message).toMatch(
      /ReduceL1\.json: versions\[1\]\.since: .*increasing/,
    );

    broken.versions[1].since = 11;
    broken.versions[1].inputs[0].type = "T9";
    writeFileSync(join(d, "ReduceL1.json"), JSON.stringify(broken));
    expect(errorOf(() => new SchemaRegistry(d)).message).toMatch(
      /versions\[1\]\.inputs\[0\]\.type: 'T9'/,
    );

    writeFileSync(join(d, "ReduceL1.json"), "{ not json");
    expect(errorOf(() => new SchemaRegistry(d)).message).toMatch(
      /ReduceL1\.json: \(file\): not valid JSON/,
    );
  });

  it("loads a folder of its own", () => {
    const d = tempDir();
    copyFileSync(join(dir, "Abs.json"), join(d, "Abs.json"));
    const small = new SchemaRegistry(d);
    expect(small.operators()).toEqual(["Abs"]);
    expect(small.maxOpset("")).toBe(13);
    expect(errorOf(() => new SchemaRegistry(join(d, "missing"))).code).toBe("E_SCHEMA");
  });
});
