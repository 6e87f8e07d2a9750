// legalize-bool-logic: And, Or and Xor of bool masks as arithmetic on 0 and 1, for a target that
// lacks them and runs no bool but its Cast (onnxruntime-web 1.24.1's WebGPU kernels had no And,
// Or or Xor, 1.30.0's C++ ones no Or or Xor, and onnxruntime's CPU Where takes no bool, so
// Where(a, b, false) would not run there):
// a and b cast to int32 (else float), And as a·b, Or as a + b, Xor as a − b, the result cast
// back to bool. Each is 0 exactly where the op is false (a·b ∈ {0, 1}, a + b ∈ {0, 1, 2},
// a − b ∈ {−1, 0, 1}), and Cast to bool is "not 0": the same values for every input, broadcast
// as the op broadcasts. legalize-bool-data's Casts between 0/1 values fold with these.

import { DataType } from "../ir/types.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";

const BOOL = DataType.BOOL;
const ARITH: Record<string, string> = { And: "Mul", Or: "Add", Xor: "Sub" };

function arithmetic(site: Site): boolean {
  const { node } = site;
  const [a, b] = node.inputs;
  if (!a || !b || site.elem(a) !== BOOL || site.elem(b) !== BOOL) return false;
  const op = ARITH[node.opType]!;
  if (!site.takes("Cast", BOOL)) return false;
  const t = [DataType.INT32, DataType.FLOAT].find(
    (c) => site.takes(op, c) && site.takes("Cast", c),
  );
  if (t === undefined) return false;
  const [ma, mb] = [site.add("Cast", [a], { to: t }), site.add("Cast", [b], { to: t })];
  site.add("Cast", [site.add(op, [ma, mb])], { to: BOOL }, [...site.out]);
  return true;
}

export function legalizeBoolLogic(options: LegalizeOptions) {
  return legalizePass(
    "legalize-bool-logic",
    Object.keys(ARITH),
    "And/Or/Xor made arithmetic on 0 and 1",
    arithmetic,
    options,
  );
}
