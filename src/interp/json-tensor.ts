// Tensors written as JSON literals (nested arrays or a scalar), as the CLI's --input takes them.

import { OnnxError } from "../errors.js";
import { dtypeName, numberToBfloat16Bits, numberToFloat16Bits } from "../ir/dtype.js";
import { DataType } from "../ir/types.js";
import { allocStorage } from "./tensor.js";
import type { RTensor } from "./types.js";

/** Most dimensions a JSON tensor may have (deeper nesting is refused before it is walked). */
const MAX_JSON_RANK = 64;

/**
 * A tensor from a JSON literal (nested arrays or a scalar) of the given dtype. Numbers, true/false,
 * strings for string tensors; "nan", "inf", "-inf" are accepted for floats; int64 values may be
 * written as strings to keep precision.
 */
export function parseJsonTensor(text: string, dtype: number, where?: string): RTensor {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new OnnxError("E_USAGE", `invalid JSON: ${(e as Error).message}`, where);
  }
  const shape: number[] = [];
  let probe: unknown = value;
  while (Array.isArray(probe)) {
    shape.push(probe.length);
    probe = probe[0];
    if (shape.length > MAX_JSON_RANK)
      throw new OnnxError(
        "E_USAGE",
        `JSON arrays nest more than ${MAX_JSON_RANK} deep; a tensor given as JSON has at most ${MAX_JSON_RANK} dimensions`,
        where,
      );
  }
  const flat: unknown[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth === shape.length) {
      if (Array.isArray(v))
        throw new OnnxError(
          "E_USAGE",
          "nested arrays are ragged (not a rectangular tensor)",
          where,
        );
      flat.push(v);
      return;
    }
    if (!Array.isArray(v) || v.length !== shape[depth])
      throw new OnnxError("E_USAGE", "nested arrays are ragged (not a rectangular tensor)", where);
    for (const x of v) walk(x, depth + 1);
  };
  walk(value, 0);
  const n = flat.length;
  // A JSON number as the user wrote it (JSON.parse rounds 9007199254740993 and prints 1e+23).
  const literal = (i: number, num: number | bigint): string =>
    typeof flat[i] === "number"
      ? (numberLiterals(text)[flat.slice(0, i).filter((v) => typeof v === "number").length] ??
        String(num))
      : String(num);
  const data = allocStorage(dtype, n);
  for (let i = 0; i < n; i++) {
    const v = flat[i];
    if (Array.isArray(data)) {
      if (typeof v !== "string")
        throw new OnnxError("E_USAGE", `element ${i} is not a string`, where);
      data[i] = v;
      continue;
    }
    let num: number | bigint;
    if (typeof v === "boolean") num = v ? 1 : 0;
    else if (typeof v === "number") num = v;
    else if (typeof v === "string") {
      const s = v.trim().toLowerCase();
      if (s === "nan") num = NaN;
      else if (s === "inf" || s === "+inf" || s === "infinity") num = Infinity;
      else if (s === "-inf" || s === "-infinity") num = -Infinity;
      else if (
        /^[-+]?\d+$/.test(s) &&
        (data instanceof BigInt64Array || data instanceof BigUint64Array)
      )
        num = BigInt(s);
      else if (s !== "" && !Number.isNaN(Number(s))) num = Number(s);
      else throw new OnnxError("E_USAGE", `element ${i} ('${v}') is not a number`, where);
    } else throw new OnnxError("E_USAGE", `element ${i} is not a number`, where);
    if (data instanceof BigInt64Array || data instanceof BigUint64Array) {
      if (typeof num === "number" && !Number.isInteger(num))
        throw new OnnxError(
          "E_USAGE",
          `element ${i} (${literal(i, num)}) is not an integer`,
          where,
        );
      if (typeof num === "number" && !Number.isSafeInteger(num))
        throw new OnnxError(
          "E_USAGE",
          `element ${i} (${literal(i, num)}) is too large to be exact as a JSON number; write it as a string`,
          where,
        );
      const big = typeof num === "bigint" ? num : BigInt(num);
      const fits =
        data instanceof BigInt64Array
          ? BigInt.asIntN(64, big) === big
          : BigInt.asUintN(64, big) === big;
      if (!fits)
        throw new OnnxError(
          "E_USAGE",
          `element ${i} (${big}) is out of range for ${dtypeName(dtype)}`,
          where,
        );
      data[i] = big;
    } else if (dtype === DataType.FLOAT16)
      (data as Uint16Array)[i] = numberToFloat16Bits(Number(num));
    else if (dtype === DataType.BFLOAT16)
      (data as Uint16Array)[i] = numberToBfloat16Bits(Number(num));
    else if (dtype === DataType.BOOL) (data as Uint8Array)[i] = Number(num) !== 0 ? 1 : 0;
    else {
      const x = Number(num);
      if (dtype !== DataType.FLOAT && dtype !== DataType.DOUBLE && !Number.isInteger(x))
        throw new OnnxError("E_USAGE", `element ${i} (${literal(i, x)}) is not an integer`, where);
      (data as Float64Array)[i] = x;
      // Integer arrays wrap silently (300 becomes 44 in int8): refuse instead.
      if (dtype !== DataType.FLOAT && dtype !== DataType.DOUBLE && data[i] !== x)
        throw new OnnxError(
          "E_USAGE",
          `element ${i} (${literal(i, x)}) is out of range for ${dtypeName(dtype)}`,
          where,
        );
    }
  }
  return { dtype, shape, data };
}

/** The number tokens of a JSON text, in order, as written (strings skipped). */
function numberLiterals(text: string): string[] {
  const out: string[] = [];
  const token = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g;
  for (const m of text.matchAll(token)) if (m[0][0] !== '"') out.push(m[0]);
  return out;
}
