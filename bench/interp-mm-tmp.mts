import { runOne } from "/work/wt/interp/test/helpers/interp.ts";
import { DataType } from "/work/wt/interp/src/ir/types.js";
import { setGemmThreads, gemmHelpersReady } from "/work/wt/interp/src/interp/kernels/wasm/gemm-threads.js";
import { gemmArena } from "/work/wt/interp/src/interp/kernels/wasm/gemm.js";
const r = (shape: number[]) => ({ dtype: DataType.FLOAT, shape, data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => Math.random()) });
const a = r([1, 3136, 96]), b = r([96, 384]);
for (const th of [1, 2]) {
  setGemmThreads(th, 1 << 21);
  if (th > 1) console.log("ready", await gemmHelpersReady(gemmArena()!));
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    runOne({ op: "MatMul", inputs: [a, b] });
    const ms = performance.now() - t;
    console.log(th, ms.toFixed(1), "ms", (3136 * 96 * 384 / ms / 1e6).toFixed(2), "GMAC/s");
  }
}
process.exit(0);
