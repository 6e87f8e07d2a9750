// Which function ops lowering for a target should keep rather than expand: those whose body, all
// the way down, still holds an op the target lacks. Expanding one of them swaps one unsupported
// node for several (Range's body is a Loop, which WebNN lacks as well), and the reason to give is
// the op's own. A body built from the call's types (a builder) is built for each call, with the
// types inference gives; one that cannot be built here is expanded as before. A body is judged
// as lowering leaves it: with `settle` (lower gives fold-constants and remove-dead-values), run
// on the body as a model of the call's types, so what folds once the dims are fixed (the Shape
// and CastLike of LayerNormalization's body) and the outputs the call does not use (its
// InvStdDev's Reciprocal) do not count; an op of the settled body the target takes only with a
// constant input, fed a value computed at run time (DynamicQuantizeLinear's QuantizeLinear, its
// scale from x, for NNAPI), counts as lacking.

import { DEFAULT_FOLD_LIMIT, MAX_CONST_ELEMENTS } from "../check/consts.js";
import { analysisOf } from "../check/infer.js";
import { opsetMap } from "../ir/opsets.js";
import { Tensor } from "../ir/tensor.js";
import { hasGraphAttribute, walkNodes } from "../ir/visit.js";
import type { Model, Node, Type, ValueInfo } from "../ir/types.js";
import { functionBody, hasFunctionBody } from "../schema/body.js";
import { SchemaRegistry } from "../schema/registry.js";
import { rowFor, versionSupported, type Profile } from "./profile.js";

/** Ops of `model` (at ai.onnx opset `opset`) the target lacks and cannot get by expansion. */
export function opsWorthKeeping(
  model: Model,
  profile: Profile,
  opset: number,
  registry = SchemaRegistry.default(),
  standardQuantOps = true,
  settle?: (body: Model) => Model,
): { domain: string; op: string }[] {
  const opsets = opsetMap(model.opsetImports);
  const at = (domain: string) => (domain === "" ? opset : (opsets.get(domain) ?? 1));
  let types: Map<string, Type> | undefined;
  try {
    types = analysisOf(model).types.get(model.graph);
  } catch {
    // without types, builder bodies are built from what the calls say
  }
  const norm = (d: string | undefined) => (d === "ai.onnx" ? "" : (d ?? ""));
  const supported = (domain: string, op: string, since: number) => {
    // Constant is data: every backend takes it (as an initializer), as profileOps says.
    if (domain === "" && op === "Constant") return true;
    const row = rowFor(profile, domain, op);
    return row !== undefined && versionSupported(row, since);
  };
  /** Whether expanding node n as far as it goes still leaves an op the target lacks. */
  const lacks = (n: Node, depth: number): boolean => {
    const domain = norm(n.domain);
    const v = registry.tryResolve(domain, n.opType, at(domain));
    if (!v) return true;
    if (supported(domain, n.opType, v.since)) return false;
    if (!v.function || !hasFunctionBody(v)) return true;
    if (depth > 8) return false;
    let body: Node[];
    try {
      const inputTypes = n.inputs.map((x) => (x ? types?.get(x) : undefined));
      const built = functionBody(v, {
        inputTypes,
        attributes: n.attributes,
        inputPresent: n.inputs.map((x) => x !== ""),
        standardQuantOps,
      });
      body = built.nodes;
      const s = settle && depth === 0 ? settled(built, v, n, inputTypes) : undefined;
      if (s) {
        body = s.graph.nodes;
        // An op the target has only with a constant input (NNAPI's QuantizeLinear scale) fed a
        // value computed at run time: the target lacks it there as well (a legalization of the
        // op itself, such as legalize-dynamic-quantize's, may write it in arithmetic instead).
        const ins = built.inputs ?? v.inputs.map((f) => f.name);
        if (needsConstant(s, n, ins)) return true;
      }
    } catch {
      return false; // not buildable here: the expander will say
    }
    if (depth > 0 || domain === "") return body.some((b) => lacks(b, depth + 1));
    // An op of another domain (com.microsoft) whose body lacks one plain ai.onnx node (Gelu's
    // Erf, EmbedLayerNormalization's int32 mask ReduceSum, for NNAPI) is expanded: one node the
    // target lacks for another, but a standard one, and the rest of the body in its partitions.
    const lacking = body.filter((b) => lacks(b, depth + 1));
    const [one] = lacking;
    if (!one) return false;
    return !(lacking.length === 1 && norm(one.domain) === "" && !hasGraphAttribute(one));
  };
  /** The body as lowering leaves it: run through `settle` as a model of the call's types. */
  const settled = (
    built: {
      nodes: Node[];
      opsetImports: Model["opsetImports"];
      inputs?: string[];
      outputs?: string[];
    },
    v: NonNullable<ReturnType<typeof registry.tryResolve>>,
    n: Node,
    inputTypes: (Type | undefined)[],
  ): Model | undefined => {
    const ins = built.inputs ?? v.inputs.map((f) => f.name);
    const outs = built.outputs ?? v.outputs.map((f) => f.name);
    if (ins.length < n.inputs.length || outs.length < n.outputs.length) return undefined;
    const inputs: ValueInfo[] = [];
    const initializers: Tensor[] = [];
    for (let k = 0; k < n.inputs.length; k++) {
      if (!n.inputs[k]) continue;
      // A constant argument (a scale, a zero point, a weight) stays one: what folds and
      // legalizes with it (a QuantizeLinear's zero point before its Round, the int32 column
      // sums of DynamicQuantizeLSTM's R) does so in the body too, as in the model.
      const c = boundConstants.get(n.inputs[k]!);
      if (c) {
        initializers.push(new Tensor(c.dataType, c.dims, c.data, ins[k]!));
        continue;
      }
      const t = inputTypes[k];
      if (!t) return undefined;
      inputs.push({ name: ins[k]!, type: t });
    }
    const outputs: ValueInfo[] = outs.filter((_, k) => !!n.outputs[k]).map((name) => ({ name }));
    const domains = new Map(model.opsetImports.map((o) => [o.domain, o.version] as const));
    for (const o of built.opsetImports) domains.set(o.domain, o.version);
    const m: Model = {
      ...model,
      functions: [],
      opsetImports: [...domains].map(([domain, version]) => ({ domain, version })),
      graph: {
        ...model.graph,
        nodes: built.nodes,
        inputs,
        outputs,
        initializers,
        sparseInitializers: [],
        valueInfo: [],
      },
    };
    return settle!(m);
  };
  /**
   * Whether a node of the settled body has a constant-input constraint (NNAPI's QuantizeLinear
   * scale) that a value computed at run time fails: one that depends on an argument of the call
   * that is not a constant of the model.
   */
  const needsConstant = (m: Model, n: Node, ins: string[]): boolean => {
    const runtime = new Set<string>();
    n.inputs.forEach((x, k) => {
      if (x && !initializers.has(x) && ins[k]) runtime.add(ins[k]!);
    });
    for (const b of m.graph.nodes) {
      const row = rowFor(profile, norm(b.domain), b.opType);
      for (const c of row?.constraints ?? [])
        if (c.kind === "constant-input" && runtime.has(b.inputs[c.input] ?? "")) return true;
      if (b.inputs.some((x) => runtime.has(x))) for (const o of b.outputs) runtime.add(o);
    }
    return false;
  };
  const initializers = new Set(model.graph.initializers.map((t) => t.name));
  // Bound up to fold-constants' default limit (1 MiB), what lowering folds in the model.
  const boundConstants = new Map(
    model.graph.initializers
      .filter(
        (t) =>
          t.elementCount <= MAX_CONST_ELEMENTS ||
          (t.readable && t.byteLength <= DEFAULT_FOLD_LIMIT),
      )
      .map((t) => [t.name, t] as const),
  );
  const keep = new Map<string, { domain: string; op: string }>();
  const judged = new Set<string>();
  for (const { node: n } of walkNodes(model)) {
    const domain = norm(n.domain);
    // Judged on its first call (a later call's body differs only in what it is built for).
    const key = `${domain}:${n.opType}`;
    if (judged.has(key)) continue;
    judged.add(key);
    const v = registry.tryResolve(domain, n.opType, at(domain));
    if (!v?.function || supported(domain, n.opType, v.since)) continue;
    if (lacks(n, 0)) keep.set(key, { domain, op: n.opType });
  }
  return [...keep.values()];
}

/**
 * The ops of the model's graphs (not of the bodies it would expand into) that expansion could
 * replace: schema function ops (ai.onnx at `opset`) and the model's own functions.
 */
export function functionOpsOf(
  model: Model,
  opset: number,
  registry = SchemaRegistry.default(),
): { domain: string; op: string }[] {
  const opsets = opsetMap(model.opsetImports);
  const norm = (d: string | undefined) => (d === "ai.onnx" ? "" : (d ?? ""));
  const local = new Set(model.functions.map((f) => `${norm(f.domain)}:${f.name}`));
  const out = new Map<string, { domain: string; op: string }>();
  for (const { node: n } of walkNodes(model)) {
    const domain = norm(n.domain);
    const key = `${domain}:${n.opType}`;
    if (out.has(key)) continue;
    const v = registry.tryResolve(
      domain,
      n.opType,
      domain === "" ? opset : (opsets.get(domain) ?? 1),
    );
    if (local.has(key) || v?.function) out.set(key, { domain, op: n.opType });
  }
  return [...out.values()];
}
