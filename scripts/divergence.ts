// Where the interpreter and onnxruntime part ways on a model: both run on the same inputs with
// every intermediate value of the main graph kept (onnxruntime-node with its graph optimizations
// off, so that its values are those of the model's own nodes), and the first diverging nodes in
// execution order are printed, those whose outputs differ while their inputs do not (src/app's
// firstDivergences), with the count of differing elements and their largest difference in ulps.
//
//   npx tsx scripts/divergence.ts MODEL [--inputs DIR] [--seed N] [--dim name=v,...]
//                                 [--threshold ULPS] [--show N] [--window NODES]
//
// Inputs: DIR/input_<i>.pb in the order of the graph's inputs (backend-test layout); without
// --inputs, MODEL's folder's test_data_set_0 when there is one, else seeded random inputs (the
// same as `run --random`). Values are compared in windows of NODES nodes in execution order (each
// window one run of both sides; default 200), so that a large model's values need not all be held
// at once; the hunt stops after the window that holds the first N diverging nodes (default 5).
// Exit 0 when nothing diverges, 1 when something does, 2 on an error.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as ort from "onnxruntime-node";
import {
  firstDivergences,
  valueDivergence,
  type NodeDivergence,
  type ValueDivergence,
} from "../src/app/divergence.js";
import { parseDims } from "../src/app/dims.js";
import { randomInputs } from "../src/app/random-inputs.js";
import { run } from "../src/interp/executor.js";
import type { RTensor, RValue } from "../src/interp/types.js";
import { decodeTensorProto } from "../src/interp/value-proto.js";
import { encodeModel, loadModel } from "../src/io/files.js";
import { topologicalOrder } from "../src/ir/graph.js";
import { walkTensors } from "../src/ir/visit.js";
import type { Model } from "../src/ir/types.js";
import { fromOrt, toOrt } from "../test/helpers/ort-tensors.js";

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const num = (name: string, dflt: number): number => {
  const v = opt(name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) die(`${name} must be a number >= 0, not '${v}'`);
  return n;
};
function die(msg: string): never {
  process.stderr.write(`divergence: ${msg}\n`);
  process.exit(2);
}

const path = args.find(
  (a, i) => !a.startsWith("--") && (i === 0 || !args[i - 1]!.startsWith("--")),
);
if (!path)
  die(
    "usage: divergence MODEL [--inputs DIR] [--seed N] [--dim k=v] [--threshold ULPS] [--show N] [--window NODES]",
  );
const threshold = num("--threshold", 0);
const show = Math.max(1, num("--show", 5));
const window = Math.max(1, num("--window", 200));

let model: Model;
try {
  model = loadModel(path, { loadExternal: true });
} catch (e) {
  die((e as Error).message);
}

/** The inputs: a folder's input_<i>.pb, the model folder's test_data_set_0, or seeded random ones. */
function inputs(m: Model): { feeds: Record<string, RValue>; from: string } {
  const given =
    opt("--inputs") ??
    (existsSync(join(dirname(path!), "test_data_set_0"))
      ? join(dirname(path!), "test_data_set_0")
      : undefined);
  if (given === undefined) {
    const seed = num("--seed", 0);
    const dims = parseDims(...(opt("--dim") ? [opt("--dim")!] : []));
    return { feeds: randomInputs(m, seed, dims), from: `random inputs, seed ${seed}` };
  }
  const inits = new Set(m.graph.initializers.map((t) => t.name));
  const feeds: Record<string, RValue> = {};
  m.graph.inputs
    .filter((vi) => !inits.has(vi.name))
    .forEach((vi, i) => {
      const f = join(given, `input_${i}.pb`);
      if (!existsSync(f)) die(`${f} is missing (input '${vi.name}')`);
      feeds[vi.name] = decodeTensorProto(readFileSync(f)).tensor;
    });
  return { feeds, from: given };
}

const { feeds, from } = inputs(model);
const g = model.graph;
const order = topologicalOrder(g);
const produced = order.flatMap((i) => g.nodes[i]!.outputs.filter((o) => o !== ""));

// One onnxruntime session with every value a graph output; each window fetches its own.
const external = [...walkTensors(model)].some((t) => t.data.kind === "external");
const all: Model = {
  ...model,
  graph: {
    ...g,
    outputs: [
      ...g.outputs,
      ...produced.filter((n) => !g.outputs.some((o) => o.name === n)).map((name) => ({ name })),
    ],
  },
};
const session = await ort.InferenceSession.create(encodeModel(all), {
  logSeverityLevel: 3,
  graphOptimizationLevel: "disabled",
  ...(external
    ? { extra: { session: { model_external_initializers_file_folder_path: dirname(path) } } }
    : {}),
});
const ortFeeds: Record<string, ort.Tensor> = {};
for (const [k, v] of Object.entries(feeds)) {
  if (!("dtype" in v)) die(`input '${k}' is not a tensor`);
  ortFeeds[k] = toOrt(v);
}

console.log(`${path}: ${g.nodes.length} nodes; inputs: ${from}; threshold ${threshold} ulps`);
const diverged = new Set<string>();
const found: NodeDivergence[] = [];
const outputs = new Map<string, ValueDivergence>();
const outputNames = new Set(g.outputs.map((o) => o.name));
for (let start = 0; start < order.length && found.length < show; start += window) {
  const nodes = new Set(order.slice(start, start + window));
  const names = [...nodes].flatMap((i) => g.nodes[i]!.outputs.filter((o) => o !== ""));
  process.stderr.write(
    `nodes ${start + 1}-${Math.min(start + window, order.length)} of ${order.length}...\n`,
  );
  const ours = run(model, feeds, { keepIntermediates: names });
  const got = await session.run(ortFeeds, names);
  const theirs: Record<string, RTensor> = {};
  for (const [k, v] of Object.entries(got)) {
    try {
      theirs[k] = fromOrt(v as ort.Tensor);
    } catch {
      // not a tensor onnxruntime-node can hand over: not compared
    }
  }
  for (const d of firstDivergences(g, ours, theirs, { threshold, diverged, nodes })) found.push(d);
  for (const n of names)
    if (outputNames.has(n) && ours[n] && theirs[n])
      outputs.set(n, valueDivergence(n, ours[n]!, theirs[n]!, threshold));
}
await session.release();

const fmt = (v: ValueDivergence) =>
  `'${v.name}': ${v.count} of ${v.total} differ, largest ${v.ulps === Infinity ? "∞" : v.ulps} ulp${v.ulps === 1 ? "" : "s"} (abs ${v.abs.toPrecision(3)})`;
if (found.length === 0) console.log("no node diverges");
else {
  console.log(`first diverging nodes, in execution order:`);
  for (const d of found.slice(0, show)) {
    const n = d.node;
    const op = (n.domain && n.domain !== "ai.onnx" ? `${n.domain}.` : "") + n.opType;
    console.log(`  #${d.position} ${op} '${n.name ?? ""}'`);
    for (const v of d.outputs) console.log(`      ${fmt(v)}`);
  }
}
for (const v of outputs.values()) console.log(`graph output ${fmt(v)}`);
process.exitCode = found.length ? 1 : 0;
