// The float16 conversions in ir/dtype.ts are hand-written for speed (35-100x faster than
// @petamoriken/float16 per element, measured side by side): the library stays as the independent
// reference they must agree with, bit for bit.

import { getFloat16, setFloat16 } from "@petamoriken/float16";
import { describe, expect, it } from "vitest";
import { float16BitsToNumber, numberToFloat16Bits } from "../../src/ir/dtype.js";
import { seededRandom } from "../../src/interp/random.js";

const dv = new DataView(new ArrayBuffer(2));
const libToBits = (x: number): number => {
  setFloat16(dv, 0, x, true);
  return dv.getUint16(0, true);
};
const libToNumber = (bits: number): number => {
  dv.setUint16(0, bits, true);
  return getFloat16(dv, 0, true);
};

describe("float16 conversions agree with @petamoriken/float16", () => {
  it("decode every bit pattern", () => {
    for (let h = 0; h < 65536; h++)
      expect(
        Object.is(float16BitsToNumber(h), libToNumber(h)) ||
          (Number.isNaN(float16BitsToNumber(h)) && Number.isNaN(libToNumber(h))),
      ).toBe(true);
  });

  it("round every float16 value, every midpoint and its neighbours, and random doubles", () => {
    const xs: number[] = [
      0,
      -0,
      Infinity,
      -Infinity,
      65504,
      65520,
      65519.99,
      1e-8,
      -1e-8,
      2 ** -25,
      2 ** -24,
    ];
    for (let h = 0; h < 0x7c00; h++) {
      const a = libToNumber(h);
      const b = libToNumber(h + 1);
      const mid = (a + b) / 2;
      xs.push(a, -a, mid, -mid, mid * (1 + 2 ** -40), mid * (1 - 2 ** -40));
    }
    const r = seededRandom(16);
    for (let i = 0; i < 20000; i++) xs.push((r.next() - 0.5) * 2 ** r.range(-30, 20));
    const wrong = xs.filter((x) => numberToFloat16Bits(x) !== libToBits(x));
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(numberToFloat16Bits(NaN) & 0x7c00).toBe(0x7c00);
  });
});
