// Scan 8 <-> 9: the batch axis and sequence_lens.

import { describe, expect, it } from "vitest";
import { convertAndCompare, convertText, nodeLines } from "../../helpers/convert.js";

const head = (opset: number, ir = 7) => `<ir_version: ${ir}, opset_import: ["" : ${opset}]>`;

describe("Scan 8 <-> 9", () => {
  const body = `body (float[2] s_in, float[2] x_in) => (float[2] s_out, float[2] y_out) {
    s_out = Add(s_in, x_in)
    y_out = Identity(s_out)
  }`;
  it("Scan-8's batch becomes an outer Scan-9; Scan-9 goes down with a batch of 1", async () => {
    const m8 = `${head(8, 3)}
g (float[3,2] s0, float[3,4,2] xs) => (float[3,2] s, float[3,4,2] ys) {
  s, ys = Scan<num_scan_inputs = 1, body = ${body}>(, s0, xs)
}`;
    const t9 = await convertAndCompare({ text: m8, target: 9 });
    expect(t9).toMatch(/s_batch_entry \(float\[2\] s0_entry, float\[4,2\] xs_entry\)/);
    const m9 = `${head(9, 4)}
g (float[2] s0, float[4,2] xs) => (float[2] s, float[4,2] ys) {
  s, ys = Scan<num_scan_inputs = 1, scan_input_directions = [1], body = ${body}>(s0, xs)
}`;
    const t8 = await convertAndCompare({ text: m9, target: 8 });
    expect(nodeLines(t8).at(-1)).toBe("ys = Squeeze <axes: ints = [0]> (ys_batch)");
  });
  it("sequence lengths shorter than the sequence block the step up", () => {
    const m8 = `${head(8, 3)}
g (float[1,2] s0, float[1,4,2] xs) => (float[1,2] s, float[1,4,2] ys) <int32[1] lens = {2}> {
  s, ys = Scan<num_scan_inputs = 1, body = ${body}>(lens, s0, xs)
}`;
    expect(() => convertText(m8, 9)).toThrow(/sequence_lens/);
  });
});
