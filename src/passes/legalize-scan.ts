// legalize-scan: a Scan (opset 9 on) of a static length, for a target without it (CoreML, NNAPI),
// unrolled: each scan input Split along its axis into its steps (Squeezed), the body copied once a
// step with its values renamed (the names it reads from outside kept), the states carried from
// one copy to the next, and each scan output's steps Unsqueezed and Concat'ed along its axis, in
// the order its direction gives; the last states are the state outputs. The body's nodes are the
// same nodes on the same values, so the numbers are the same. It is unrolled only where the
// target has what the unrolled form needs: Split, Squeeze, Unsqueeze and Concat, and every op of
// the body, or of the body as the legalizations leave it (judged on the body as a model of the
// Scan's types, with the small constants it reads from outside); what the body needs beyond that
// is said in a note. The body's initializers become Constants, one each, read by every step. Left:
// a body with subgraphs, a length that is not static.

import { attrInt, attrInts, getAttr } from "../ir/attributes.js";
import { node as makeNode } from "../ir/builder.js";
import { Tensor } from "../ir/tensor.js";
import type { Graph, Model, Node, Type, ValueInfo } from "../ir/types.js";
import {
  ints,
  legalizePass,
  normAxis,
  squeezeLike,
  type LegalizeOptions,
  type Site,
} from "./legalize-kit.js";

/** How the legalizations leave a graph (the body, judged as a model): for the judgement. */
export type LegalizeBody = (m: Model) => Model;

const hasSubgraph = (n: Node) =>
  n.attributes.some((a) => a.type === "GRAPH" || a.type === "GRAPHS");

/** The names a body reads from the graphs around it. */
function outerNames(body: Graph): string[] {
  const own = new Set([
    ...body.inputs.map((v) => v.name),
    ...body.initializers.map((t) => t.name),
    ...body.nodes.flatMap((n) => n.outputs),
  ]);
  const outer = new Set<string>();
  for (const n of body.nodes) for (const x of n.inputs) if (x && !own.has(x)) outer.add(x);
  for (const o of body.outputs) if (!own.has(o.name)) outer.add(o.name);
  return [...outer];
}

/** The ops of the body (as the legalizations leave it, when they are given) the target lacks. */
function lacking(
  site: Site,
  body: Graph,
  inputTypes: Type[],
  legalizeBody: LegalizeBody | undefined,
): string[] | undefined {
  const missing = (nodes: Node[]) => [
    ...new Set(
      nodes
        .filter((n) => ((n.domain ?? "") !== "" && n.domain !== "ai.onnx") || !site.has(n.opType))
        .map((n) => n.opType),
    ),
  ];
  const direct = missing(body.nodes);
  if (!direct.length || !legalizeBody) return direct;
  const inputs: ValueInfo[] = body.inputs.map((v, i) => ({ name: v.name, type: inputTypes[i]! }));
  const initializers: Tensor[] = [...body.initializers];
  for (const x of outerNames(body)) {
    const v = site.value(x);
    if (v) initializers.push(Tensor.from(v.elemType, v.dims, v.values, x));
    else {
      const type = site.type(x);
      if (!type) return undefined;
      inputs.push({ name: x, type });
    }
  }
  const m: Model = {
    irVersion: 8,
    opsetImports: [{ domain: "", version: site.opset }],
    functions: [],
    graph: {
      name: "scan_body",
      nodes: body.nodes,
      inputs,
      outputs: body.outputs.map((o) => ({ name: o.name })),
      initializers,
      sparseInitializers: [],
      valueInfo: [],
    },
  };
  return missing(legalizeBody(m).graph.nodes);
}

function unrollScan(site: Site, legalizeBody?: LegalizeBody): boolean {
  const n = site.node;
  if (site.opset < 9) return site.leave("a Scan before opset 9 (batched, with sequence_lens)");
  const a = getAttr(n, "body");
  if (a?.type !== "GRAPH" || !a.value) return false;
  const body = a.value;
  const M = attrInt(n, "num_scan_inputs", 0);
  const N = n.inputs.length - M;
  const K = body.outputs.length - N;
  if (M < 1 || N < 0 || K < 0 || body.inputs.length !== N + M) return false;
  if (body.nodes.some(hasSubgraph)) return site.leave("its body has subgraphs");
  if (body.sparseInitializers.length) return site.leave("its body has sparse initializers");
  const scans = n.inputs.slice(N);
  const shapes = scans.map((x) => (x ? site.shape(x) : undefined));
  if (shapes.some((s) => !s)) return site.leave("a scan input's shape is not static");
  const inDirs = attrInts(n, "scan_input_directions") ?? new Array<number>(M).fill(0);
  const outDirs = attrInts(n, "scan_output_directions") ?? new Array<number>(K).fill(0);
  const inAxes = (attrInts(n, "scan_input_axes") ?? new Array<number>(M).fill(0)).map((x, j) =>
    normAxis(x, shapes[j]!.length),
  );
  if (inAxes.some((x) => x === undefined)) return false;
  const T = shapes[0]![inAxes[0]!]!;
  if (T < 1 || shapes.some((s, j) => s![inAxes[j]!] !== T))
    return site.leave("its scan inputs differ in length, or have none");
  // the body's input types: the states' own, each scan input without its axis
  const inputTypes: Type[] = [];
  for (let i = 0; i < N + M; i++) {
    const t = site.type(n.inputs[i]!);
    if (t?.kind !== "tensor") return site.leave("an input's type is not known");
    if (i < N) inputTypes.push(t);
    else {
      const s = shapes[i - N]!.filter((_, k) => k !== inAxes[i - N]);
      inputTypes.push({ ...t, shape: s });
    }
  }
  const outAxes: number[] = [];
  for (let j = 0; j < K; j++) {
    const rank = (body.outputs[N + j]?.type as { shape?: unknown[] } | undefined)?.shape?.length;
    const axis = (attrInts(n, "scan_output_axes") ?? [])[j] ?? 0;
    if (axis < 0 && rank === undefined) return site.leave("a scan output's rank is not known");
    outAxes.push(axis < 0 ? axis + rank! + 1 : axis);
  }
  const needs = ["Split", "Squeeze", "Unsqueeze", "Concat"];
  const missingOp = needs.find((op) => !site.has(op));
  if (missingOp) return site.leave(`the unrolled form needs ${missingOp}, which the target lacks`);
  const left = lacking(site, body, inputTypes, legalizeBody);
  if (!left) return site.leave("a value its body reads has no known type");
  if (left.length) return site.leave(`its body needs ${left.join(", ")}, which the target lacks`);

  // each scan input's steps, in its direction
  const steps = scans.map((x, j) => {
    const axis = inAxes[j]!;
    const parts = T === 1 ? [x!] : Array.from({ length: T }, () => site.fresh("step"));
    if (T > 1) {
      const sizes = new Array<number>(T).fill(1);
      if (site.opset < 13) site.add("Split", [x!], { axis, split: sizes }, parts);
      else site.add("Split", [x!, ints(site, "split", sizes)], { axis }, parts);
    }
    const at = parts.map((p) => squeezeLike(site, "Squeeze", p, [axis])!);
    return inDirs[j] ? at.reverse() : at;
  });
  // the body's initializers: a Constant each, read by every step
  const consts = new Map<string, string>();
  for (const t of body.initializers) {
    const name = site.fresh(t.name);
    const c = makeNode("Constant", [], [name]);
    site.emit({ ...c, attributes: [{ name: "value", type: "TENSOR", value: t }] }, [], [name]);
    consts.set(t.name, name);
  }
  const used = (k: number) => !!site.out[k] && site.uses(site.out[k]!) > 0;
  let states = n.inputs.slice(0, N);
  const outs: string[][] = Array.from({ length: K }, () => []);
  for (let t = 0; t < T; t++) {
    const names = new Map<string, string>(consts);
    body.inputs.forEach((v, i) => names.set(v.name, i < N ? states[i]! : steps[i - N]![t]!));
    // the last copy writes the state outputs itself where a node of the body makes them
    if (t === T - 1)
      body.outputs.slice(0, N).forEach((o, i) => {
        const made = body.nodes.some((b) => b.outputs.includes(o.name));
        if (made && used(i) && !names.has(o.name)) names.set(o.name, site.out[i]!);
      });
    const rename = (x: string) => (x ? (names.get(x) ?? x) : x);
    for (const b of body.nodes) {
      const outputs = b.outputs.map((o) => {
        if (!o) return o;
        if (!names.has(o)) names.set(o, site.fresh(o));
        return names.get(o)!;
      });
      site.emit(b, b.inputs.map(rename), outputs);
    }
    states = body.outputs.slice(0, N).map((o) => rename(o.name));
    body.outputs.slice(N).forEach((o, j) => outs[j]!.push(rename(o.name)));
  }
  for (let i = 0; i < N; i++)
    if (used(i) && states[i] !== site.out[i]) {
      if (!site.has("Identity")) return site.leave("a state output needs Identity");
      site.add("Identity", [states[i]!], {}, [site.out[i]!]);
    }
  for (let j = 0; j < K; j++) {
    if (!used(N + j)) continue;
    const axis = outAxes[j]!;
    const own = T === 1 ? [site.out[N + j]!] : undefined;
    const at = outs[j]!.map((v) => squeezeLike(site, "Unsqueeze", v, [axis], own)!);
    if (outDirs[j]) at.reverse();
    if (T > 1) site.add("Concat", at, { axis }, [site.out[N + j]!]);
  }
  return true;
}

export function legalizeScan(options: LegalizeOptions, legalizeBody?: LegalizeBody) {
  return legalizePass(
    "legalize-scan",
    ["Scan"],
    "Scan unrolled into its body once a step",
    (site) => unrollScan(site, legalizeBody),
    options,
  );
}
