// legalize-cast-first: a Cast after an op that only moves elements (Unsqueeze, Reshape,
// Transpose, Gather, …) made to come first, where the target runs the op on the Cast's type but
// not on the input's (a decoder's int64 position ids are unsqueezed, then cast to float;
// onnxruntime-web's WebGPU Unsqueeze takes no int64, its float Unsqueeze runs). Cast acts on each
// element alone and the op copies elements, so Cast(Move(x)) = Move(Cast(x)): the same values for
// every input. Only where the moved value has no other reader (the old op then goes dead).

import { DataType } from "../ir/types.js";
import { attrInt } from "../ir/attributes.js";
import { attrsOf, DATA_INPUTS } from "./legalize-bool-data.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

function castFirst(site: Site): boolean {
  const { node } = site;
  const [y] = node.inputs;
  const to = attrInt(node, "to");
  const p = y ? site.producer(y) : undefined;
  if (!y || to === undefined || !p || (p.domain ?? "") !== "" || site.uses(y) !== 1) return false;
  const data = DATA_INPUTS[p.opType]?.(p.inputs);
  if (!data || data.length !== 1 || data[0] !== 0 || p.outputs.length !== 1) return false;
  const x = p.inputs[0];
  const from = x ? site.elem(x) : undefined;
  if (!x || from === undefined || from === DataType.STRING) return false;
  if (site.takes(p.opType, from) || !site.takes(p.opType, to)) return false;
  const attrs = attrsOf(p);
  if (!attrs) return false;
  const cast = site.add("Cast", [x], { to });
  site.add(p.opType, [cast, ...p.inputs.slice(1)], attrs, [...site.out]);
  return true;
}

export function legalizeCastFirst(options: LegalizeOptions) {
  return legalizePass(
    "legalize-cast-first",
    ["Cast"],
    "Cast made to come before a move the target runs only on its type",
    castFirst,
    options,
    () => true,
  );
}
