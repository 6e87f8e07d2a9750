// A helper thread of the interpreter's matrix products (src/interp/kernels/wasm/gemm-threads.ts):
// a nested Web Worker the interpreter's worker (worker.ts) starts when the page is cross-origin
// isolated. It is handed the control words, the shared memory and the compiled module in one
// message, then runs the same task loop as every other thread until it is ended. Built as a
// classic script of its own (dist/web/helper.js), so the page's CSP needs no blob: or eval.

import { runGemmHelper, type GemmHelperData } from "../src/interp/kernels/wasm/gemm-threads.js";

onmessage = (ev: MessageEvent<GemmHelperData & { kind: string }>) => {
  onmessage = null; // one message: the loop below never returns to the event loop
  if (ev.data.kind === "gemm") runGemmHelper(ev.data);
};
