// legalize-matmul-integer: MatMulInteger (the integer product of onnxruntime's dynamically
// quantized MatMuls), for a target without it (CoreML, NNAPI), in float arithmetic with the same
// numbers: MatMul((A − a_zp), (B − b_zp)) in float, cast to int32,
// where the inner dim K is static and K · 255 · 255 < 2^24: each product and every partial sum
// is then an integer float32 holds exactly, in any order of summation. A zero point per tensor
// (or B's per column); A's per row is left.

import { DataType } from "../ir/types.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";

const F = DataType.FLOAT;
const EIGHT_BITS: readonly number[] = [DataType.UINT8, DataType.INT8];

function matMulInteger(site: Site): boolean {
  const [a, b, azp, bzp] = site.node.inputs;
  if (!a || !b || !["Cast", "Sub", "MatMul"].every((op) => site.has(op))) return false;
  if (!EIGHT_BITS.includes(site.elem(a)!) || !EIGHT_BITS.includes(site.elem(b)!)) return false;
  const bShape = site.type(b);
  const kDim = bShape?.kind === "tensor" ? bShape.shape?.[bShape.shape.length - 2] : undefined;
  if (typeof kDim !== "number" || kDim * 255 * 255 >= 2 ** 24) return false;
  const perTensor = (z: string) => {
    const t = site.type(z);
    const s = t?.kind === "tensor" ? t.shape : undefined;
    return !!s && s.every((d) => d === 1);
  };
  if (azp && !perTensor(azp)) return false;
  const bRank = bShape?.kind === "tensor" ? bShape.shape?.length : undefined;
  if (bzp && !perTensor(bzp) && bRank !== 2) return false; // [N] per column broadcasts on B [K, N]
  const centred = (v: string, z: string | undefined) => {
    const f = site.add("Cast", [v], { to: F });
    return z ? site.add("Sub", [f, site.add("Cast", [z], { to: F })]) : f;
  };
  const acc = site.add("MatMul", [centred(a, azp || undefined), centred(b, bzp || undefined)]);
  site.add("Cast", [acc], { to: DataType.INT32 }, [...site.out]);
  return true;
}

export function legalizeMatMulInteger(options: LegalizeOptions): Pass {
  return legalizePass(
    "legalize-matmul-integer",
    ["MatMulInteger"],
    "MatMulInteger made a float MatMul",
    matMulInteger,
    options,
  );
}
