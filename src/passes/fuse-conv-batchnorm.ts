// fuse-conv-batchnorm: a BatchNormalization in inference form that reads a Conv's (or a group-1
// ConvTranspose's) output, and nothing else reads it, is folded into the Conv's weights and bias (y = s·(conv(x, W) + B − mean)
// + beta with s = scale / sqrt(var + epsilon), per output channel: W' = s·W, B' = s·(B − mean) +
// beta), so one Conv remains. Only where W, B and the four BatchNormalization tensors are
// initializers (not graph inputs) of a float type, in the same graph (the main graph or a
// subgraph; a subgraph's own initializers, never what it reads from outside), and BatchNormalization has
// one output (no training outputs), `training_mode` 0 and, before opset 9, `spatial` 1. The new
// weights are computed in float64 and rounded once to the weights' type: the results move by
// rounding (onnxruntime's and onnxscript's optimizers make the same fusion).

import { fromIRTensor } from "../interp/ir-tensors.js";
import { isFloatType, toFloat64 } from "../interp/tensor.js";
import { Tensor } from "../ir/tensor.js";
import { outerNamesUsedBy } from "../ir/graph.js";
import { hasGraphAttribute } from "../ir/visit.js";
import type { Graph, Model, Node } from "../ir/types.js";
import { counted, countedResult, type Pass } from "./pass.js";
import { eachScope } from "./scopes.js";

/** How often each name is read by a graph's nodes (a node's subgraphs reading it count once). */
function reads(g: Graph, into: Map<string, number>): void {
  const add = (x: string) => into.set(x, (into.get(x) ?? 0) + 1);
  for (const n of g.nodes) {
    for (const x of n.inputs) if (x) add(x);
    if (hasGraphAttribute(n)) for (const x of outerNamesUsedBy(n)) add(x);
  }
}

const attr = (n: Node, name: string) => n.attributes.find((a) => a.name === name)?.value;

export function fuseConvBatchNorm(): Pass {
  return {
    name: "fuse-conv-batchnorm",
    run(model: Model) {
      let fused = 0;
      const out = eachScope(
        model,
        (g, scope) => {
          const inputs = new Set(g.inputs.map((v) => v.name));
          const inits = new Map(
            g.initializers.filter((t) => !inputs.has(t.name)).map((t) => [t.name, t]),
          );
          const uses = new Map<string, number>();
          reads(g, uses);
          for (const v of g.outputs) uses.set(v.name, (uses.get(v.name) ?? 0) + 1);
          const producer = new Map<string, number>();
          g.nodes.forEach((n, i) => n.outputs.forEach((o) => o && producer.set(o, i)));
          const fresh = scope.fresh;
          const replace = new Map<number, Node>();
          const drop = new Set<number>();
          const added: Tensor[] = [];
          g.nodes.forEach((bn, bi) => {
            if (bn.opType !== "BatchNormalization" || (bn.domain ?? "") !== "") return;
            if (bn.outputs.filter((o) => o).length !== 1 || bn.inputs.length !== 5) return;
            if (Number(attr(bn, "training_mode") ?? 0n) !== 0) return;
            if (Number(attr(bn, "spatial") ?? 1n) !== 1) return;
            if (attr(bn, "is_test") !== undefined && Number(attr(bn, "is_test")) !== 1) return;
            const y = bn.inputs[0]!;
            const ci = producer.get(y);
            if (ci === undefined || uses.get(y) !== 1 || replace.has(ci)) return;
            const conv = g.nodes[ci]!;
            // ConvTranspose's weights are [C_in, C_out / group, ...]: its output channels are axis 1
            // (group 1 only here).
            const transposed = conv.opType === "ConvTranspose";
            if ((conv.opType !== "Conv" && !transposed) || (conv.domain ?? "") !== "") return;
            if (transposed && Number(attr(conv, "group") ?? 1n) !== 1) return;
            const w = inits.get(conv.inputs[1] ?? "");
            const b = conv.inputs[2] ? inits.get(conv.inputs[2]) : undefined;
            if (!w || (conv.inputs[2] && !b) || !isFloatType(w.dataType) || w.dims.length < 3)
              return;
            const p = bn.inputs.slice(1).map((x) => inits.get(x));
            if (p.some((t) => !t || t.dataType !== w.dataType)) return;
            const m = w.dims[transposed ? 1 : 0]!;
            if (p.some((t) => t!.elementCount !== m) || (b && b.elementCount !== m)) return;
            const [scale, beta, mean, v] = p.map((t) => toFloat64(fromIRTensor(t!)));
            const eps = Number(attr(bn, "epsilon") ?? 1e-5);
            const wv = toFloat64(fromIRTensor(w));
            const bv = b ? toFloat64(fromIRTensor(b)) : new Float64Array(m);
            // Weight element i belongs to output channel (i / inner) mod m: inner is the kernel's
            // size (ConvTranspose) or everything after axis 0 (Conv, where the mod does nothing).
            const inner = wv.length / (transposed ? w.dims[0]! * m : m);
            const s = Float64Array.from(
              { length: m },
              (_, c) => scale![c]! / Math.sqrt(v![c]! + eps),
            );
            const w2 = wv.map((x, i) => x * s[Math.floor(i / inner) % m]!);
            const b2 = Float64Array.from(
              { length: m },
              (_, c) => (bv[c]! - mean![c]!) * s[c]! + beta![c]!,
            );
            const wName = fresh(`${w.name}_bn`);
            const bName = fresh(`${b?.name ?? `${w.name}_bias`}_bn`);
            added.push(Tensor.from(w.dataType, w.dims, w2, wName));
            added.push(Tensor.from(w.dataType, [m], b2, bName));
            replace.set(ci, {
              ...conv,
              inputs: [conv.inputs[0]!, wName, bName],
              outputs: [bn.outputs[0]!],
            });
            drop.add(bi);
          });
          if (!drop.size) return g;
          const nodes = g.nodes.map((n, i) => replace.get(i) ?? n).filter((_, i) => !drop.has(i));
          // Tensors only the fused nodes read go (remove-dead-values would too; a pass leaves no debris).
          const still = new Map<string, number>();
          reads({ ...g, nodes }, still);
          for (const v of g.outputs) still.set(v.name, 1);
          const keep = g.initializers.filter((t) => inputs.has(t.name) || still.has(t.name));
          fused += drop.size;
          return { ...g, nodes, initializers: [...keep, ...added] };
        },
        { functions: false },
      );
      return countedResult(
        model,
        out,
        fused,
        (k) =>
          `fused ${counted(k, "BatchNormalization node")} into the Conv before ${k === 1 ? "it" : "them"}`,
      );
    },
  };
}
