// Erf on float32 (src/interp/kernels/erf.ts): `erfFloat32` against the float64 series rounded
// to float32, over every float32 bit pattern in [FROM, TO) (default: all 2^32; a few minutes per
// half on one core). Prints the count of differing results (NaN equals NaN).
//
//   npx tsx bench/interp-erf-check.ts [FROM TO]

import { erf, erfFloat32 } from "../src/interp/kernels/erf.js";

const [from, to] = process.argv.length > 3 ? process.argv.slice(2).map(Number) : [0, 2 ** 32];
const CHUNK = 1 << 20;
const bits = new Uint32Array(CHUNK);
const src = new Float32Array(bits.buffer);
const out = new Float32Array(CHUNK);
let bad = 0;
const t0 = performance.now();
for (let s = from!; s < to!; s += CHUNK) {
  const m = Math.min(CHUNK, to! - s);
  for (let i = 0; i < m; i++) bits[i] = s + i;
  const v = m === CHUNK ? src : src.subarray(0, m);
  erfFloat32(v, out);
  for (let i = 0; i < m; i++) {
    const ref = Math.fround(erf(v[i]!));
    if (Object.is(ref, out[i]) || (Number.isNaN(ref) && Number.isNaN(out[i]))) continue;
    if (bad++ < 10) console.log(`differs at ${v[i]}: series ${ref}, table ${out[i]}`);
  }
}
const range = `${from!.toString(16)}..${to!.toString(16)}`;
console.log(`${range}: ${bad} differing, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
