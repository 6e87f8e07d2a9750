// Which element types onnxruntime-web's WebGPU execution provider runs, per op, read from the
// release package.json pins (node_modules/onnxruntime-web) by asking it: for each op below, one
// small model per opset holds one node per element type the ONNX signature allows (the op's
// data type variable; Gather's, GatherElements' and GatherND's indices separately, the data
// float), each node reading graph inputs, so nothing folds. onnxruntime-web places the model on
// WebGPU (scripts/targets/webgpu-judge.ts); a node it leaves on CPU has no WebGPU kernel for
// that type ("webgpu kernel not found in registries" in its log: the kernels' type constraints
// are compiled into the release's wasm, its operator table lists no types). Nothing runs.
//
//   npx tsx scripts/targets/webgpu-kernels.ts      (writes test/data/targets/webgpu-kernels.json)
//
// scripts/targets/from-ort-web.ts reads that file into targets/webgpu.json's `types`.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { dtypeByName } from "../../src/ir/dtype.js";
import { saveModel } from "../../src/io/files.js";
import { SchemaRegistry } from "../../src/schema/registry.js";
import { parseModelText } from "../../src/text/parse.js";
import { ORT_WEB_VERSION, WebgpuJudge } from "./webgpu-judge.js";

const root = join(import.meta.dirname, "..", "..");
export const KERNELS_FILE = join(root, "test", "data", "targets", "webgpu-kernels.json");

/** The opsets probed: the ai.onnx opsets `lower --target webgpu` leaves the corpus at. */
export const PROBE_OPSETS = [17, 21] as const;

/**
 * A node of the op for element type t: its inputs (name → type text) and initializers (text),
 * the node's text (`y` its first output, `z` its second) and its outputs' types.
 */
interface Case {
  inputs: Record<string, string>;
  inits?: string[];
  node: string;
  outputs: Record<string, string>;
}
type Make = (t: string, opset: number) => Case;

const X = "[2,4]";
const same = (op: string, arity: number, attrs = ""): Make => {
  const names = ["a", "b", "c"].slice(0, arity);
  return (t) => ({
    inputs: Object.fromEntries(names.map((n) => [n, `${t}${X}`])),
    node: `y = ${op}${attrs} (${names.join(", ")})`,
    outputs: { y: `${t}${X}` },
  });
};
const compare =
  (op: string): Make =>
  (t) => ({
    inputs: { a: `${t}${X}`, b: `${t}${X}` },
    node: `y = ${op} (a, b)`,
    outputs: { y: `bool${X}` },
  });
const reduce =
  (op: string): Make =>
  (t, opset) =>
    op === "ReduceSum" || opset >= 18
      ? {
          inputs: { a: `${t}${X}` },
          inits: ["int64[1] axes = {1}"],
          node: `y = ${op} (a, axes)`,
          outputs: { y: `${t}[2,1]` },
        }
      : {
          inputs: { a: `${t}${X}` },
          node: `y = ${op} <axes = [1]> (a)`,
          outputs: { y: `${t}[2,1]` },
        };
const withShape =
  (op: string, init: string, out: string, attrs = ""): Make =>
  (t) => ({
    inputs: { a: `${t}${X}` },
    inits: [init],
    node: `y = ${op}${attrs} (a, s)`,
    outputs: { y: `${t}${out}` },
  });

/** The ops probed (what lowering's rewrites and the corpus's models use), by name. */
export const PROBES: Record<string, Make> = {
  Abs: same("Abs", 1),
  Add: same("Add", 2),
  Sub: same("Sub", 2),
  Mul: same("Mul", 2),
  Div: same("Div", 2),
  Pow: same("Pow", 2),
  Neg: same("Neg", 1),
  Sqrt: same("Sqrt", 1),
  Exp: same("Exp", 1),
  Erf: same("Erf", 1),
  Tanh: same("Tanh", 1),
  Sigmoid: same("Sigmoid", 1),
  Relu: same("Relu", 1),
  Reciprocal: same("Reciprocal", 1),
  Min: same("Min", 2),
  Max: same("Max", 2),
  Not: same("Not", 1),
  And: same("And", 2),
  Or: same("Or", 2),
  Xor: same("Xor", 2),
  Equal: compare("Equal"),
  Greater: compare("Greater"),
  Less: compare("Less"),
  GreaterOrEqual: compare("GreaterOrEqual"),
  LessOrEqual: compare("LessOrEqual"),
  Where: (t) => ({
    inputs: { c: `bool${X}`, a: `${t}${X}`, b: `${t}${X}` },
    node: "y = Where (c, a, b)",
    outputs: { y: `${t}${X}` },
  }),
  Identity: same("Identity", 1),
  Flatten: same("Flatten", 1, " <axis = 1>"),
  Transpose: (t) => ({
    inputs: { a: `${t}${X}` },
    node: "y = Transpose <perm = [1, 0]> (a)",
    outputs: { y: `${t}[4,2]` },
  }),
  Reshape: withShape("Reshape", "int64[2] s = {4, 2}", "[4,2]"),
  Expand: withShape("Expand", "int64[3] s = {3, 2, 4}", "[3,2,4]"),
  Tile: withShape("Tile", "int64[2] s = {1, 2}", "[2,8]"),
  Unsqueeze: withShape("Unsqueeze", "int64[1] s = {0}", "[1,2,4]"),
  Squeeze: (t) => ({
    inputs: { a: `${t}[1,4]` },
    inits: ["int64[1] s = {0}"],
    node: "y = Squeeze (a, s)",
    outputs: { y: `${t}[4]` },
  }),
  Slice: (t) => ({
    inputs: { a: `${t}${X}` },
    inits: ["int64[1] s0 = {0}", "int64[1] s1 = {1}"],
    node: "y = Slice (a, s0, s1, s1)",
    outputs: { y: `${t}[2,1]` },
  }),
  Concat: (t) => ({
    inputs: { a: `${t}${X}`, b: `${t}${X}` },
    node: "y = Concat <axis = 0> (a, b)",
    outputs: { y: `${t}[4,4]` },
  }),
  Split: (t) => ({
    inputs: { a: `${t}${X}` },
    inits: ["int64[2] s = {2, 2}"],
    node: "y, z = Split <axis = 1> (a, s)",
    outputs: { y: `${t}[2,2]`, z: `${t}[2,2]` },
  }),
  Pad: withShape("Pad", "int64[4] s = {0, 1, 0, 1}", "[2,6]"),
  Gather: (t) => ({
    inputs: { a: `${t}${X}`, i: "int64[3]" },
    node: "y = Gather (a, i)",
    outputs: { y: `${t}[3,4]` },
  }),
  GatherElements: (t) => ({
    inputs: { a: `${t}${X}`, i: "int64[2,4]" },
    node: "y = GatherElements (a, i)",
    outputs: { y: `${t}${X}` },
  }),
  GatherND: (t) => ({
    inputs: { a: `${t}${X}`, i: "int64[3,1]" },
    node: "y = GatherND (a, i)",
    outputs: { y: `${t}[3,4]` },
  }),
  CumSum: (t) => ({
    inputs: { a: `${t}${X}` },
    inits: ["int64 s = {1}"],
    node: "y = CumSum (a, s)",
    outputs: { y: `${t}${X}` },
  }),
  Range: (t) => ({
    inputs: { a: t, b: t, c: t },
    node: "y = Range (a, b, c)",
    outputs: { y: `${t}[?]` },
  }),
  ReduceSum: reduce("ReduceSum"),
  ReduceMax: reduce("ReduceMax"),
  ReduceMean: reduce("ReduceMean"),
  MatMul: (t) => ({
    inputs: { a: `${t}${X}`, b: `${t}[4,3]` },
    node: "y = MatMul (a, b)",
    outputs: { y: `${t}[2,3]` },
  }),
  Softmax: same("Softmax", 1, " <axis = -1>"),
  // a symbolic dim: onnxruntime folds the Shape of a static shape before placing anything
  Shape: (t) => ({ inputs: { a: `${t}[N,4]` }, node: "y = Shape (a)", outputs: { y: "int64[2]" } }),
  ArgMax: (t) => ({
    inputs: { a: `${t}${X}` },
    node: "y = ArgMax <axis = 1> (a)",
    outputs: { y: "int64[2,1]" },
  }),
};

/**
 * The index inputs whose type is a variable of its own (Gather's and GatherElements' indices,
 * Slice's starts/ends/axes/steps, CumSum's axis), probed with float data.
 */
const INDEX_PROBES: Record<string, Make> = {
  Slice: (t) => ({
    inputs: { a: `float${X}` },
    inits: [`${t}[1] s0 = {0}`, `${t}[1] s1 = {1}`],
    node: "y = Slice (a, s0, s1, s1)",
    outputs: { y: "float[2,1]" },
  }),
  CumSum: (t) => ({
    inputs: { a: `float${X}` },
    inits: [`${t} s = {1}`],
    node: "y = CumSum (a, s)",
    outputs: { y: `float${X}` },
  }),
  Gather: (t) => ({
    inputs: { a: `float${X}`, i: `${t}[3]` },
    node: "y = Gather (a, i)",
    outputs: { y: "float[3,4]" },
  }),
  GatherElements: (t) => ({
    inputs: { a: `float${X}`, i: `${t}[2,4]` },
    node: "y = GatherElements (a, i)",
    outputs: { y: `float${X}` },
  }),
};

/** The element types considered (those a WebGPU kernel could hold; no strings, no 4-bit). */
const TYPES = ["float", "float16", "double", "int8", "uint8", "int32", "uint32", "int64", "bool"];

/**
 * The element types ONNX lets a type variable of the op take at the opset (`variable`: the k-th
 * distinct type variable of its inputs: Where's data is its second, after the condition's).
 */
function allowed(op: string, opset: number, variable: number): string[] {
  const v = SchemaRegistry.default().tryResolveStandard("", op, opset);
  if (!v) return [];
  const names = [...new Set(v.inputs.map((i) => i.type))];
  const tc = v.type_constraints.find((c) => c.name === names[variable]);
  if (!tc) return [];
  return TYPES.filter((t) => tc.allowed.includes(`tensor(${t})`));
}

interface Entry {
  make: Make;
  t: string;
  /** What the entry stands for in the answer ("Gather float", "Gather indices int32"). */
  key: string;
}

/** One model: a node per entry, each with its own inputs and outputs. */
function modelOf(entries: Entry[], opset: number): { text: string; names: Map<string, string> } {
  const names = new Map<string, string>();
  const inputs: string[] = [];
  const outputs: string[] = [];
  const inits: string[] = [];
  const nodes: string[] = [];
  for (const [k, e] of entries.entries()) {
    const c = e.make(e.t, opset);
    const rename = (x: string) => `${x}_${k}`;
    for (const [x, ty] of Object.entries(c.inputs)) inputs.push(`${ty} ${rename(x)}`);
    for (const i of c.inits ?? [])
      inits.push(i.replace(/ (\w+) =/, (_, n: string) => ` ${rename(n)} =`));
    for (const [x, ty] of Object.entries(c.outputs)) outputs.push(`${ty} ${rename(x)}`);
    const at = c.node.indexOf(" = ");
    const [lhs, rhs] = [c.node.slice(0, at), c.node.slice(at + 3)];
    const op = /^\w+/.exec(rhs)![0];
    const args = /\(([^)]*)\)\s*$/.exec(rhs)![1]!;
    const attrs = /<.*>/.exec(rhs)?.[0] ?? "";
    const outs = lhs.split(",").map((x) => rename(x.trim()));
    const ins = args.split(",").map((x) => rename(x.trim()));
    nodes.push(`  [n${k}] ${outs.join(", ")} = ${op} ${attrs} (${ins.join(", ")})`);
    names.set(`n${k}`, e.key);
  }
  const text = `<ir_version: 8, opset_import: ["" : ${opset}]>
probe (${inputs.join(", ")}) => (${outputs.join(", ")})
${inits.length ? `  <${inits.join(", ")}>\n` : ""}{
${nodes.join("\n")}
}`;
  return { text, names };
}

/** The nodes of a model that onnxruntime-web places on CPU (throws when it makes no session). */
async function onCpu(judge: WebgpuJudge, dir: string, text: string, file: string) {
  const path = join(dir, `${file}.onnx`);
  const model = parseModelText(text);
  saveModel(model, path);
  const r = await judge.run(path);
  // "All nodes placed on [CPUExecutionProvider]" lists none of them
  if (!Object.keys(r.byProvider).some((ep) => ep !== "CPUExecutionProvider"))
    return new Set(model.graph.nodes.map((n) => n.name ?? ""));
  if (r.cpuNames.length !== r.cpuNodes)
    throw new Error(`${file}: ${r.cpuNodes} nodes on CPU, ${r.cpuNames.length} named in the log`);
  return new Set(r.cpuNames);
}

/**
 * The entries onnxruntime-web runs on WebGPU at one opset. When the model makes no session (a
 * type that no provider of the release runs, as Erf on double), it is asked in halves, and an
 * entry that alone makes no session is refused.
 */
async function probe(
  judge: WebgpuJudge,
  dir: string,
  entries: Entry[],
  opset: number,
  file: string,
): Promise<string[]> {
  const m = modelOf(entries, opset);
  try {
    const cpu = await onCpu(judge, dir, m.text, file);
    return [...m.names].filter(([n]) => !cpu.has(n)).map(([, key]) => key);
  } catch (e) {
    if (process.env.PROBE_DEBUG) console.error(file, String(e).slice(0, 300));
    if (entries.length === 1) return [];
    const half = Math.ceil(entries.length / 2);
    return [
      ...(await probe(judge, dir, entries.slice(0, half), opset, `${file}a`)),
      ...(await probe(judge, dir, entries.slice(half), opset, `${file}b`)),
    ];
  }
}

const castMake =
  (to: string): Make =>
  (t) => ({
    inputs: { x: `${t}${X}` },
    node: `y = Cast <to = ${dtypeByName(to)!.id}> (x)`,
    outputs: { y: `${to}${X}` },
  });

export interface KernelTypes {
  release: string;
  opsets: number[];
  /**
   * Per op: the data types every probed opset runs on WebGPU, the indices' types for the index
   * ops, and the types ONNX allows that it refuses.
   */
  ops: Record<string, { types: string[]; indices?: string[]; refused: string[] }>;
  /** Cast's pairs "from>to" every probed opset runs on WebGPU. */
  cast: string[];
}

export async function probeKernels(judge: WebgpuJudge): Promise<KernelTypes> {
  const dir = mkdtempSync(join(tmpdir(), "webgpu-kernels-"));
  try {
    let runs: Set<string> | undefined;
    const tried = new Map<string, Set<string>>();
    for (const opset of PROBE_OPSETS) {
      const entries: Entry[] = [];
      for (const [op, make] of Object.entries(PROBES)) {
        for (const t of allowed(op, opset, op === "Where" ? 1 : 0)) {
          entries.push({ make, t, key: `${op} ${t}` });
          tried.set(op, (tried.get(op) ?? new Set()).add(t));
        }
        const idx = INDEX_PROBES[op];
        if (idx)
          for (const t of allowed(op, opset, 1))
            entries.push({ make: idx, t, key: `${op} indices ${t}` });
      }
      for (const from of TYPES)
        for (const to of TYPES)
          entries.push({ make: castMake(to), t: from, key: `Cast ${from}>${to}` });
      const got = new Set(await probe(judge, dir, entries, opset, `probe-${opset}`));
      runs = runs ? new Set([...runs].filter((k) => got.has(k))) : got;
    }
    const ops: KernelTypes["ops"] = {};
    for (const [op, all] of tried) {
      const types = [...all].filter((t) => runs!.has(`${op} ${t}`));
      const indices = INDEX_PROBES[op]
        ? TYPES.filter((t) => runs!.has(`${op} indices ${t}`))
        : undefined;
      ops[op] = {
        types,
        ...(indices ? { indices } : {}),
        refused: [...all].filter((t) => !types.includes(t)),
      };
    }
    const cast = [...runs!].filter((k) => k.startsWith("Cast ")).map((k) => k.slice(5));
    return { release: ORT_WEB_VERSION, opsets: [...PROBE_OPSETS], ops, cast };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const judge = await WebgpuJudge.open();
  try {
    const k = await probeKernels(judge);
    writeFileSync(KERNELS_FILE, `${JSON.stringify(k, null, 2)}\n`);
    for (const [op, r] of Object.entries(k.ops))
      console.log(
        `${op}: ${r.types.join(" ")}${r.indices ? ` (indices ${r.indices.join(" ")})` : ""}${r.refused.length ? `; not: ${r.refused.join(" ")}` : ""}`,
      );
    console.log(`Cast: ${k.cast.join(" ")}`);
  } finally {
    await judge.close();
  }
}
