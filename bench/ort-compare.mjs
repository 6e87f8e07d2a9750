// Runs a model and its transformed copies on onnxruntime-node on one seeded input (x: float
// [1, 4, H]) and prints, per copy, the largest absolute difference of each output from the
// original's (NaN against NaN counts as equal, NaN against a number as Infinity). Used by bench/large.ts.
//
//   node bench/ort-compare.mjs H ORIGINAL COPY...

import * as ort from "onnxruntime-node";

const [hidden, original, ...copies] = process.argv.slice(2);

async function outputs(path, feeds) {
  const s = await ort.InferenceSession.create(path, { logSeverityLevel: 3 });
  try {
    const out = await s.run(feeds);
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.data]));
  } finally {
    await s.release();
  }
}

const H = Number(hidden);
let s = 12345;
const x = new Float32Array(4 * H).map(() => {
  s = (s * 1103515245 + 12345) >>> 0;
  return (s / 4294967296 - 0.5) * 2;
});
const feeds = { x: new ort.Tensor("float32", x, [1, 4, H]) };
const ref = await outputs(original, feeds);
const lines = [];
for (const c of copies) {
  const got = await outputs(c, feeds);
  let worst = 0;
  for (const [k, v] of Object.entries(ref))
    for (let i = 0; i < v.length; i++) {
      // NaN where the original has NaN (random weights can overflow) is the same; elsewhere not.
      const a = v[i];
      const b = got[k][i];
      const d =
        Number.isNaN(a) || Number.isNaN(b) ? (Object.is(a, b) ? 0 : Infinity) : Math.abs(a - b);
      worst = Math.max(worst, d);
    }
  lines.push(`${c.split("/").slice(-2).join("/")}: ${worst}`);
}
console.log(lines.join("; "));
