// The body of SequenceMap-17: a Loop over the positions of input_sequence that runs the `body`
// graph on the items at that position (of every sequence input; tensor inputs as they are) and
// appends its outputs to the output sequences (SequenceEmpty of the body outputs' element types,
// then SequenceInsert). The inputs and outputs are variadic: the body's formal names are
// input_sequence, additional_inputs, additional_inputs__2, ... and out_sequence,
// out_sequence__1, ..., one per position of the call. Needs every input's type (sequence or
// tensor, input_sequence aside) and the body outputs' element types; a body graph that reads names of the caller's
// scope is not inlined (its references would be renamed).

import { OnnxError, UnknownTypeError } from "../../errors.js";
import type { Graph, Node, ValueInfo } from "../../ir/types.js";
import { freeNames } from "../../ir/graph.js";
import { TextWriter } from "./writer.js";
import type { BodyBuilder } from "./context.js";

const node = (
  opType: string,
  inputs: string[],
  outputs: string[],
  attributes: Node["attributes"] = [],
): Node => ({
  opType,
  domain: "",
  inputs,
  outputs,
  attributes,
});

export const sequenceMapBuilder: BodyBuilder = (args) => {
  const a = args.ctx.attributes.find((x) => x.name === "body");
  if (!a || a.type !== "GRAPH" || !a.value)
    throw new OnnxError(
      "E_UNSUPPORTED",
      `the body of ${args.label} needs the graph of 'body' (not a reference)`,
    );
  const g: Graph = a.value;
  const outer = [...freeNames(g)];
  if (outer.length)
    throw new OnnxError(
      "E_UNSUPPORTED",
      `the body of ${args.label} cannot inline a 'body' graph that reads '${outer[0]}' from the caller`,
    );
  const count = args.ctx.inputTypes.length;
  if (g.inputs.length !== count)
    throw new OnnxError(
      "E_MODEL",
      `${args.label}: 'body' has ${g.inputs.length} inputs, the call ${count}`,
    );
  const inputs = Array.from({ length: count }, (_, i) =>
    i === 0 ? "input_sequence" : i === 1 ? "additional_inputs" : `additional_inputs__${i}`,
  );
  const outputs = g.outputs.map((_, k) => (k === 0 ? "out_sequence" : `out_sequence__${k}`));
  // input_sequence is a sequence by its constraint; the others may be either.
  const isSeq = args.ctx.inputTypes.map((t, i) => {
    if (i === 0) return true;
    if (!t || (t.kind !== "sequence" && t.kind !== "tensor"))
      throw new UnknownTypeError(`the body of ${args.label} needs the type of input ${i}`);
    return t.kind === "sequence";
  });
  const elems = g.outputs.map((o) => {
    const t = o.type;
    if (!t || t.kind !== "tensor" || !t.elemType)
      throw new UnknownTypeError(
        `the body of ${args.label} needs the element type of body output '${o.name}'`,
      );
    return t.elemType;
  });

  const w = new TextWriter("_seqmap_");
  const len = w.op("SequenceLength", ["input_sequence"]);
  const empties = elems.map((e) => w.op("SequenceEmpty", [], `dtype: int = ${e}`));
  const finals = outputs.map((o) => (args.hasOutput(outputs.indexOf(o)) ? o : w.fresh("unused")));
  w.opN("Loop", [len, "", ...empties], finals, "body: graph = placeholder () => () {}");
  const nodes = w.nodes(`${args.label} body`);

  // The loop body, built directly: the items at position i, the body graph's nodes, the appends.
  const iter = "_seqmap_i";
  const cond = "_seqmap_cond";
  const accs = elems.map((_, k) => `_seqmap_acc${k}`);
  const steps: Node[] = [];
  g.inputs.forEach((v, j) =>
    steps.push(
      isSeq[j]
        ? node("SequenceAt", [inputs[j]!, iter], [v.name])
        : node("Identity", [inputs[j]!], [v.name]),
    ),
  );
  steps.push(...g.nodes);
  const next = accs.map((acc, k) => {
    const out = `_seqmap_next${k}`;
    steps.push(node("SequenceInsert", [acc, g.outputs[k]!.name], [out]));
    return out;
  });
  steps.push(node("Identity", [cond], ["_seqmap_cond_out"]));
  const seqType = (e: number): ValueInfo["type"] => ({
    kind: "sequence",
    elem: { kind: "tensor", elemType: e },
  });
  const loopBody: Graph = {
    name: "sequence_map_step",
    nodes: steps,
    inputs: [
      { name: iter, type: { kind: "tensor", elemType: 7, shape: [] } },
      { name: cond, type: { kind: "tensor", elemType: 9, shape: [] } },
      ...accs.map((name, k) => ({ name, type: seqType(elems[k]!) })),
    ],
    outputs: [
      { name: "_seqmap_cond_out", type: { kind: "tensor", elemType: 9, shape: [] } },
      ...next.map((name, k) => ({ name, type: seqType(elems[k]!) })),
    ],
    initializers: [...g.initializers],
    sparseInitializers: [...g.sparseInitializers],
    valueInfo: [],
  };
  const loop = nodes.find((n) => n.opType === "Loop")!;
  loop.attributes = [{ name: "body", type: "GRAPH", value: loopBody }];
  return { nodes, opsetImports: [{ domain: "", version: 17 }], inputs, outputs };
};
