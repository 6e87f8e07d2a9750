// What a refusal of the converter says to do next: the step that would get the blocked node
// through, when there is one, in the words of the commands (`--dim` with the model's own dim
// names, `lower --target ai.onnx-N`, `expand`), or that none exists. The reason stays what the
// adapter said; this is the hint after it.

import type { Graph, Model, Node } from "../ir/types.js";

/** The symbolic dims of the model's inputs, as `--dim` takes them: "batch=…,sequence=…". */
function dimArgument(model: Model): string | undefined {
  const init = new Set(model.graph.initializers.map((t) => t.name));
  const names = new Set<string>();
  for (const v of model.graph.inputs) {
    if (init.has(v.name) || v.type?.kind !== "tensor") continue;
    for (const d of v.type.shape ?? []) if (typeof d === "string" && d !== "") names.add(d);
  }
  return names.size ? [...names].map((n) => `${n}=…`).join(",") : undefined;
}

/** Ops whose output depends on their input's shape only, not on its values. */
const SHAPE_ONLY = new Set(["Shape", "Size"]);

/** Values looked at, at most, before `readsInputData` gives up (and says it cannot tell). */
const MAX_WALK = 100_000;

/**
 * The graph input whose values `name` is computed from (through anything but Shape and Size),
 * found by walking producers back in its graph; undefined when there is none or it cannot tell
 * (a value from an outer scope or a function's input, a walk past MAX_WALK).
 */
export function readsInputData(
  name: string,
  graph: Graph,
  producer: (name: string) => Node | undefined,
): string | undefined {
  const init = new Set(graph.initializers.map((t) => t.name));
  const inputs = new Set(graph.inputs.map((v) => v.name).filter((n) => !init.has(n)));
  const isInput = (n: string) => inputs.has(n);
  const seen = new Set<string>([name]);
  const stack = [name];
  while (stack.length) {
    if (seen.size > MAX_WALK) return undefined;
    const v = stack.pop()!;
    if (isInput(v)) return v;
    const p = producer(v);
    if (!p || SHAPE_ONLY.has(p.opType)) continue;
    for (const x of p.inputs)
      if (x && !seen.has(x)) {
        seen.add(x);
        stack.push(x);
      }
  }
  return undefined;
}

/** The hint of a node that needs a value the model's input `input` gives at run time. */
export function inputDataHint(input: string): string {
  return `it comes from the values of input '${input}', known only at run time: ${NO_NEXT_STEP}`;
}

/** The hint of a node blocked for a value, rank or shape not known before run time. */
export function nextStepHint(model: Model, target: number): string {
  const dims = dimArgument(model);
  if (!dims)
    return "with every input dim static, `onnx-expand simplify` (constant folding) first may make it known, then convert";
  return `it may be known once the symbolic dims are fixed: \`onnx-expand simplify --dim ${dims}\`, then convert; or \`onnx-expand lower --target ai.onnx-${target} --dim ${dims}\``;
}

/**
 * The hint of a node blocked inside the body a function op was lowered to (convertOnce): the
 * body's values fold only once it is expanded, so the way is expand, fix the dims, convert.
 */
export function loweredNextStepHint(model: Model, target: number): string {
  const dims = dimArgument(model);
  const simplify = dims ? `\`onnx-expand simplify --dim ${dims}\`` : "`onnx-expand simplify`";
  return `\`onnx-expand expand\`, then ${simplify}, then \`convert --opset ${target}\` may get past it`;
}

/** The hint of a node no step gets past (an op with no form at the target, a change of meaning). */
export const NO_NEXT_STEP = "no step of onnx-expand gets past it";
