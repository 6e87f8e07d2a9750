// Models of any size: external data stays in its files, is read only when needed, and is
// streamed to the output; no output protobuf reaches 2 GiB. Weights hold distinct non-zero
// values in every tensor and position (zeros would hide a wrong offset), checked byte for byte
// after each command, and the outputs run on onnxruntime with the original's numbers.

import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  copyFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as ort from "onnxruntime-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkModel } from "../../src/check/index.js";
import { convertModel } from "../../src/convert/index.js";
import { diffModels } from "../../src/diff/index.js";
import { run } from "../../src/interp/executor.js";
import { decodeValueProto, encodeTensorFiles } from "../../src/interp/value-proto.js";
import { encodeModel } from "../../src/io/codec.js";
import { fileReads, loadModel, saveModel } from "../../src/io/files.js";
import { readRange, Tensor } from "../../src/ir/tensor.js";
import { DataType } from "../../src/ir/types.js";
import { walkTensors } from "../../src/ir/visit.js";
import type { Model } from "../../src/ir/types.js";
import { fillValues, makeLargeModel } from "../../scripts/large-models.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";

const root = mkdtempSync(join(tmpdir(), "oe-large-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const H = 32;
const LAYERS = 6;
let src: string;
let srcWeights: Map<string, Uint8Array>;

/** Every tensor's raw bytes by name, read from wherever the model keeps them. */
function weightsOf(m: Model): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const t of walkTensors(m)) out.set(t.name, t.range ? readRange(t.range) : t.rawBytes());
  return out;
}

/** The model at `path` holds every weight of the source (gamma_l, w_l) byte for byte. */
function expectSameWeights(path: string): Model {
  const m = loadModel(path);
  const got = weightsOf(m);
  for (const [name, bytes] of srcWeights) {
    if (!/^(gamma|w)_\d+$/.test(name)) continue;
    const b = got.get(name);
    expect(b, name).toBeDefined();
    expect(Buffer.from(b!).equals(Buffer.from(bytes)), `tensor ${name}`).toBe(true);
  }
  return m;
}

function externalEntries(m: Model): { name: string; location: string; offset: number }[] {
  const out: { name: string; location: string; offset: number }[] = [];
  for (const t of walkTensors(m))
    if (t.data.kind === "external") {
      const e = new Map(t.data.entries);
      out.push({
        name: t.name,
        location: e.get("location")!,
        offset: Number(e.get("offset") ?? 0),
      });
    }
  return out;
}

const INPUT = (() => {
  const x = new Float32Array(1 * 3 * H);
  fillValues(x, 99);
  return new ort.Tensor(
    "float32",
    x.map((v) => v * 50),
    [1, 3, H],
  );
})();

async function ortOutputs(path: string): Promise<Float32Array[]> {
  const s = await ort.InferenceSession.create(path, { logSeverityLevel: 3 });
  try {
    const out = await s.run({ x: INPUT });
    return [out.y!.data as Float32Array, out.z!.data as Float32Array];
  } finally {
    await s.release();
  }
}

function expectClose(a: Float32Array[], b: Float32Array[]): void {
  expect(a.length).toBe(b.length);
  a.forEach((x, i) => {
    const y = b[i]!;
    expect(y.length).toBe(x.length);
    for (let k = 0; k < x.length; k++)
      expect(Math.abs(x[k]! - y[k]!)).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(x[k]!)));
  });
}

let reference: Float32Array[];

beforeAll(async () => {
  src = makeLargeModel(join(root, "src"), { hidden: H, layers: LAYERS, files: 3, fill: "values" });
  srcWeights = weightsOf(loadModel(src));
  reference = await ortOutputs(src);
}, 60_000);

/** A fresh folder under the test's root. */
let folders = 0;
function folder(): string {
  const d = join(root, `out${folders++}`);
  mkdirSync(d);
  return d;
}

/** A copy of the source model's folder (model.onnx as `model`, and its data files). */
function copyOfSource(name: string, model = "model.onnx"): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const f of readdirSync(join(root, "src")))
    copyFileSync(join(root, "src", f), join(dir, f === "model.onnx" ? model : f));
  return dir;
}

/** `convert MODEL --opset 18 -o OUT ...extra` (the source model unless `model` is given). */
const convert18 = (out: string, extra: string[] = [], model = src) =>
  runCli(["convert", model, "--opset", "18", "-o", out, ...extra]);

describe("external data into another folder", () => {
  it("convert copies every tensor into <output>.data, byte for byte, small ones packed", async () => {
    const out = folder();
    const r = runCli(["convert", src, "--opset", "18", "-o", join(out, "m.onnx")]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["m.onnx", "m.onnx.data"]);
    const m = expectSameWeights(join(out, "m.onnx"));
    const entries = externalEntries(m);
    // Every weight was external; the two small tensors made at load stay inline.
    expect(entries.map((e) => e.name).sort()).toEqual(
      [...srcWeights.keys()].filter((n) => n.startsWith("w_") || n.startsWith("gamma_")).sort(),
    );
    // Tensors under 1 MiB are packed one after the other (no 4 KiB padding between them).
    let bytes = 0;
    for (const e of entries) {
      expect(e.location).toBe("m.onnx.data");
      bytes += m.graph.initializers.find((t) => t.name === e.name)!.byteLength;
    }
    expect(statSync(join(out, "m.onnx.data")).size).toBe(bytes);
    expectClose(await ortOutputs(join(out, "m.onnx")), reference);
  });

  it("convert down and expand keep every byte, and run with the original's numbers", async () => {
    for (const args of [["convert", "--opset", "11"], ["expand"]]) {
      const out = folder();
      const r = runCli([...args, src, "-o", join(out, "m.onnx")]);
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(out).sort()).toEqual(["m.onnx", "m.onnx.data"]);
      expectSameWeights(join(out, "m.onnx"));
      expectClose(await ortOutputs(join(out, "m.onnx")), reference);
    }
  });

  it("the interpreter reads the ranges it needs and agrees with onnxruntime", () => {
    const m = loadModel(src);
    const before = fileReads.count;
    const out = run(m, { x: { dtype: 1, shape: [1, 3, H], data: INPUT.data as Float32Array } });
    // Each weight read once, when its kernel first needed it.
    expect(fileReads.count - before).toBe(2 * LAYERS);
    expectClose([out.y!.data as Float32Array, out.z!.data as Float32Array], reference);
  });

  it("runs within a budget smaller than all the weights: each is held from first to last reader", () => {
    const x = { dtype: 1, shape: [1, 3, H], data: INPUT.data as Float32Array };
    // Weights: 6 x (4096 + 128) bytes = 25 kB; one layer's, its copies and the activations fit in 18 kB.
    const out = run(loadModel(src), { x }, { maxMemory: 18_000 });
    expectClose([out.y!.data as Float32Array, out.z!.data as Float32Array], reference);
    // Read into memory at load, all the weights are held from the start: over the budget.
    expect(() => run(loadModel(src, { loadExternal: true }), { x }, { maxMemory: 18_000 })).toThrow(
      /memory|budget|bytes/,
    );
  });
});

describe("convert --output-dir", () => {
  it("writes each model's data beside it in the output folder, on worker threads too", () => {
    const other = copyOfSource("other-src", "second.onnx");
    const out = folder();
    const r = runCli([
      "convert",
      src,
      join(other, "second.onnx"),
      "--opset",
      "18",
      "--output-dir",
      out,
      "--jobs",
      "2",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual([
      "model.onnx",
      "model.onnx.data",
      "second.onnx",
      "second.onnx.data",
    ]);
    expectSameWeights(join(out, "model.onnx"));
    expectSameWeights(join(out, "second.onnx"));
  });
});

describe("external data into the model's own folder", () => {
  it("keeps the references, writes no data file and reads no weight", () => {
    const dir = copyOfSource("same");
    const before = fileReads.count;
    const m = loadModel(join(dir, "model.onnx"));
    const converted = convertModel(m, 18).model!;
    saveModel(converted, join(dir, "m18.onnx"));
    expect(fileReads.count - before).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([
      "m18.onnx",
      "model.onnx",
      "weights_0.bin",
      "weights_1.bin",
      "weights_2.bin",
    ]);
    const back = expectSameWeights(join(dir, "m18.onnx"));
    for (const e of externalEntries(back)) expect(e.location).toMatch(/^weights_\d\.bin$/);
  });

  it("a tensor a transform made goes to <output>.data; the others keep their references", () => {
    const dir = copyOfSource("made");
    const m = loadModel(join(dir, "model.onnx"));
    // As a transform would: a new 2 KiB initializer (and a small one, which stays inline).
    const made = new Float32Array(512).map((_, i) => i + 1);
    m.graph.initializers.push(
      new Tensor(
        DataType.FLOAT,
        [512],
        { kind: "raw", bytes: new Uint8Array(made.buffer) },
        "made",
      ),
      new Tensor(DataType.FLOAT, [4], { kind: "raw", bytes: new Uint8Array(16) }, "tiny"),
    );
    saveModel(m, join(dir, "out.onnx"));
    const back = loadModel(join(dir, "out.onnx"));
    const where = new Map(externalEntries(back).map((e) => [e.name, e.location]));
    expect(where.get("made")).toBe("out.onnx.data");
    expect(where.has("tiny")).toBe(false);
    expect(where.get("w_0")).toBe("weights_0.bin");
    const t = back.graph.initializers.find((x) => x.name === "made")!;
    expect(t.numbers().slice(0, 3)).toEqual([1, 2, 3]);
    expect(statSync(join(dir, "out.onnx.data")).size).toBe(2048);
  });

  it("a data file the input reads from is never written: refused with one line, --force or not", () => {
    const dir = copyOfSource("replace");
    const before = readFileSync(join(dir, "weights_0.bin"));
    for (const force of [[], ["--force"]]) {
      // Every tensor of 1 KiB or more into weights_0.bin, which the input itself reads from.
      const r = convert18(
        join(dir, "m18.onnx"),
        ["--external-data", "weights_0.bin", ...force],
        join(dir, "model.onnx"),
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /^onnx-expand: error: .*weights_0\.bin: would write over '.*weights_0\.bin', a data file that tensors of the input are read from: refused/,
      );
    }
    expect(readFileSync(join(dir, "weights_0.bin"))).toEqual(before);
    expect(existsSync(join(dir, "m18.onnx"))).toBe(false);
  });
});

describe("--external-data, --size-threshold, --inline-data", () => {
  it("moves what reaches the threshold into the named file; the rest inline", () => {
    const out = folder();
    const r = convert18(join(out, "a.onnx"), [
      "--external-data",
      "w.bin",
      "--size-threshold",
      "1000",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["a.onnx", "w.bin"]);
    const m = expectSameWeights(join(out, "a.onnx"));
    const ext = externalEntries(m).map((e) => e.name);
    // gamma_l (128 bytes) inline, w_l (4 KiB) in w.bin.
    expect(ext.sort()).toEqual(Array.from({ length: LAYERS }, (_, l) => `w_${l}`).sort());
  });

  it("--inline-data writes one self-contained file", async () => {
    const out = folder();
    const r = convert18(join(out, "a.onnx"), ["--inline-data"]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(out)).toEqual(["a.onnx"]);
    const m = expectSameWeights(join(out, "a.onnx"));
    expect(externalEntries(m)).toEqual([]);
    expectClose(await ortOutputs(join(out, "a.onnx")), reference);
  });

  it("refuses both at once, and a data file name with a folder", () => {
    const out = folder();
    let r = convert18(join(out, "a.onnx"), ["--inline-data", "--external-data", "x.bin"]);
    expectOneLineError(r, /--inline-data or --external-data, not both/);
    r = convert18(join(out, "a.onnx"), ["--external-data", "sub/x.bin"]);
    expectOneLineError(r, /must be a plain file name/);
    expect(readdirSync(out)).toEqual([]);
  });
});

describe("the 2 GiB rule", () => {
  it("a model past the limit goes to external data; inline it is refused", () => {
    const m = loadModel(src, { loadExternal: true });
    const out = folder();
    // A limit of 20 kB stands for protobuf's 2 GiB: the weights inline take ~100 kB.
    const report = saveModel(m, join(out, "m.onnx"), { limit: 20_000 });
    expect(report.data?.tensors).toBeGreaterThan(0);
    expect(statSync(join(out, "m.onnx")).size).toBeLessThanOrEqual(20_000);
    expectSameWeights(join(out, "m.onnx"));
    expect(() => saveModel(m, join(out, "n.onnx"), { limit: 20_000, inlineData: true })).toThrow(
      /past protobuf's 2 GiB limit: save it with external data/,
    );
    expect(() =>
      saveModel(m, join(out, "n.onnx"), { limit: 1_000, sizeThreshold: 1 << 30 }),
    ).toThrow(/even with every tensor of 1073741824 bytes or more in external data/);
    expect(readdirSync(out).sort()).toEqual(["m.onnx", "m.onnx.data"]);
  });
});

describe("files read in ranges", () => {
  const tests = fileURLToPath(new URL("../data/onnx-node-tests/", import.meta.url));
  it("decode the same model as a whole read, on every backend test model", () => {
    let n = 0;
    for (const d of readdirSync(tests)) {
      const path = join(tests, d, "model.onnx");
      if (!existsSync(path)) continue;
      const whole = encodeModel(loadModel(path));
      // Every raw data field of a byte or more left in the file, then written back from it.
      const ranged = loadModel(path, { rangedFrom: 0, lazyFrom: 1 });
      expect(Buffer.from(encodeModel(ranged)).equals(Buffer.from(whole)), d).toBe(true);
      n++;
    }
    expect(n).toBeGreaterThan(150);
  });

  it("an inline model read in ranges reads no weight for check, and saves byte for byte", () => {
    const out = folder();
    // Weights of 128x128 floats: more than the checker's constants (4096 elements) take.
    makeLargeModel(out, { hidden: 128, layers: 2, files: 0, fill: "values" });
    copyFileSync(join(out, "model.onnx"), join(out, "inline.onnx"));
    const m = loadModel(join(out, "inline.onnx"), { rangedFrom: 0, lazyFrom: 1024 });
    const lazy = [...walkTensors(m)].filter((t: Tensor) => t.data.kind === "lazy");
    expect(lazy.map((t) => t.name).sort()).toEqual(["w_0", "w_1"]);
    const before = fileReads.count;
    expect(checkModel(m).ok).toBe(true);
    expect(fileReads.count - before).toBe(0);
    saveModel(m, join(out, "copy.onnx"));
    expect(
      readFileSync(join(out, "copy.onnx")).equals(readFileSync(join(out, "inline.onnx"))),
    ).toBe(true);
  });

  it("a truncated file read in ranges is refused with one line", () => {
    const out = folder();
    saveModel(loadModel(src), join(out, "inline.onnx"), { inlineData: true });
    const size = statSync(join(out, "inline.onnx")).size;
    truncateSync(join(out, "inline.onnx"), size - 5000);
    expect(() => loadModel(join(out, "inline.onnx"), { rangedFrom: 0 })).toThrow(
      /not a valid ModelProto: truncated or corrupt/,
    );
  });
});

describe("bad external data", () => {
  it("a short data file is refused naming the tensor and the file", () => {
    const dir = copyOfSource("short");
    truncateSync(join(dir, "weights_2.bin"), 100);
    const r = convert18(join(dir, "x.onnx"), [], join(dir, "model.onnx"));
    expectOneLineError(
      r,
      /external data of tensor '(gamma|w)_2' .* is past the end of 'weights_2\.bin'/,
    );
    expect(existsSync(join(dir, "x.onnx"))).toBe(false);
  });
});

describe("diff of external data", () => {
  it("compares weights by content: the same range is equal unread, other bytes differ", () => {
    const m = loadModel(src);
    const before = fileReads.count;
    expect(diffModels(m, loadModel(src)).same).toBe(true);
    expect(fileReads.count - before).toBe(0);
    // The same model with one weight of all 1.0 against all 2.0, each in its own data file.
    const a = folder();
    const b = folder();
    for (const [dir, v] of [
      [a, 1],
      [b, 2],
    ] as const) {
      writeFileSync(join(dir, "model.onnx"), readFileSync(src));
      for (const f of ["weights_0.bin", "weights_1.bin", "weights_2.bin"])
        copyFileSync(join(root, "src", f), join(dir, f));
      const w = loadModel(join(dir, "model.onnx")).graph.initializers.find(
        (t) => t.name === "w_0",
      )!;
      const r = w.range!;
      const ones = new Float32Array(r.length / 4).fill(v);
      const buf = readFileSync(join(dir, "weights_0.bin"));
      Buffer.from(ones.buffer).copy(buf, r.offset);
      writeFileSync(join(dir, "weights_0.bin"), buf);
    }
    const d = diffModels(loadModel(join(a, "model.onnx")), loadModel(join(b, "model.onnx")));
    expect(d.same).toBe(false);
    expect(d.graph.initializers.map((i) => i.name)).toEqual(["w_0"]);
  });
});

// A model of more than 2 GiB of weights in a sparse file: memory stays flat, the output is
// never one protobuf past 2 GiB, and Ctrl-C while copying leaves nothing behind.
describe("a multi-GiB model (sparse)", () => {
  let big: string;
  beforeAll(() => {
    big = makeLargeModel(join(root, "big"), { hidden: 8192, layers: 9, files: 1, fill: "sparse" });
  }, 60_000);

  const bin = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));
  const tsx = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
  /** The CLI in a child process; its peak RSS in bytes. */
  function cliPeak(args: string[]): { code: number; stderr: string; peak: number } {
    const rss = join(root, `rss${folders++}`);
    const script = `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(rss)}, String(process.resourceUsage().maxRSS * 1024)));
process.argv = [process.execPath, ${JSON.stringify(bin)}, ...${JSON.stringify(args)}];
import(${JSON.stringify(bin)});`;
    const r = spawnSync(
      process.execPath,
      ["--import", tsx, "--input-type=commonjs", "-e", script],
      {
        encoding: "utf8",
      },
    );
    return { code: r.status ?? -1, stderr: r.stderr, peak: Number(readFileSync(rss, "utf8")) };
  }

  it("converts into another folder with flat memory and external data", () => {
    const out = folder();
    const r = cliPeak(["convert", big, "--opset", "18", "-o", join(out, "m.onnx")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.peak).toBeLessThan(400e6);
    expect(statSync(join(out, "m.onnx")).size).toBeLessThan(1 << 20);
    expect(statSync(join(out, "m.onnx.data")).size).toBeGreaterThan(2 ** 31);
    const m = loadModel(join(out, "m.onnx"));
    expect(externalEntries(m).length).toBe(18);
  }, 120_000);

  it("refuses --inline-data past 2 GiB with one line and writes nothing", () => {
    const out = folder();
    const r = runCli(["convert", big, "--opset", "18", "-o", join(out, "m.onnx"), "--inline-data"]);
    expectOneLineError(r, /past protobuf's 2 GiB limit: save it with external data/);
    expect(readdirSync(out)).toEqual([]);
  }, 120_000);

  it("Ctrl-C while copying leaves no model and no data file", async () => {
    const out = folder();
    const child = spawn(
      process.execPath,
      ["--import", tsx, bin, "convert", big, "--opset", "18", "-o", join(out, "m.onnx")],
      { stdio: "ignore" },
    );
    // Wait for the temporary files, then interrupt.
    const t0 = Date.now();
    while (Date.now() - t0 < 30_000 && !readdirSync(out).some((f) => f.endsWith(".tmp")))
      await new Promise((r) => setTimeout(r, 5));
    expect(readdirSync(out).some((f) => f.endsWith(".tmp"))).toBe(true);
    child.kill("SIGINT");
    await new Promise((r) => child.on("exit", r));
    const t1 = Date.now();
    while (Date.now() - t1 < 5_000 && readdirSync(out).length > 0)
      await new Promise((r) => setTimeout(r, 20));
    expect(readdirSync(out)).toEqual([]);
  }, 120_000);
});

describe("run --output-dir past 2 GiB", () => {
  it("a tensor whose message would pass the limit is written beside it and read back", () => {
    const out = folder();
    const data = new Float32Array(5000);
    fillValues(data, 7);
    const t = { dtype: 1, shape: [50, 100], data };
    // A limit of 10 kB stands for protobuf's 2 GiB.
    const files = encodeTensorFiles(t, "y", "output_0.pb.data", 10_000);
    expect(files.data?.length).toBe(20_000);
    writeFileSync(join(out, "output_0.pb"), Buffer.concat(files.message));
    writeFileSync(join(out, "output_0.pb.data"), files.data!);
    const back = decodeValueProto(readFileSync(join(out, "output_0.pb")), undefined, "x", out);
    expect(back.name).toBe("y");
    const v = back.value as { shape: number[]; data: Float32Array };
    expect(v.shape).toEqual([50, 100]);
    expect(
      Buffer.from(v.data.buffer, v.data.byteOffset, v.data.byteLength).equals(
        Buffer.from(data.buffer),
      ),
    ).toBe(true);
    // Under the limit, one message as before.
    expect(encodeTensorFiles(t, "y", "output_0.pb.data").data).toBeUndefined();
  });
});
