// Expanding a model with many function calls: calls per second at 10,000 and 100,000 calls, the
// time ratio between the two (linear growth gives 10), and peak RSS. The model is a chain in
// which every node is a call: ReduceL1-18 (schema body: Abs + ReduceSum), ReduceLogSum-18, and a
// model-local function whose body has two nodes, in turn.
//
//   npx tsx --expose-gc bench/expand.ts   (after `npx tsc -p tsconfig.json`; npm run bench builds first)
//
// It times the compiled library in dist/, which is what the CLI and the package run: the same
// code through tsx's on-the-fly transform (which wraps every function in a keep-names helper)
// measured 25-35% slower side by side (100k calls: 640-740 ms CPU from dist, 870-1020 ms via tsx).

import { expandChain } from "./chains.js";
import { median } from "./timing.js";
import { expandPipeline } from "../dist/expand/pipeline.js";
import { runPass } from "../dist/passes/manager.js";
import { modelOf, passContext } from "../dist/passes/pass.js";

const MiB = 2 ** 20;
const gc = (globalThis as { gc?: () => void }).gc;

async function main(): Promise<void> {
  const ctx = passContext();
  const pass = expandPipeline();
  const times: Record<number, number> = {};
  const cpuTimes: Record<number, number> = {};
  let peak = process.memoryUsage().rss;
  const sample = () => (peak = Math.max(peak, process.memoryUsage().rss));
  const timer = setInterval(sample, 5);
  console.log("calls   wall ms     calls/s   cpu ms (mean, all threads)   nodes after");
  for (const calls of [10_000, 100_000]) {
    const m = expandChain(calls);
    gc?.();
    let nodes = 0;
    const cpu0 = process.cpuUsage();
    let runs = 0;
    const ms = await median(
      () => {
        nodes = modelOf(runPass(pass, m, ctx)).graph.nodes.length;
        runs++;
      },
      calls > 10_000 ? 3 : 5,
      1,
    );
    const c = process.cpuUsage(cpu0);
    const cpuMs = (c.user + c.system) / 1000 / runs;
    times[calls] = ms;
    cpuTimes[calls] = cpuMs;
    console.log(
      `${String(calls).padStart(7)} ${ms.toFixed(0).padStart(8)} ${Math.round((calls / ms) * 1000)
        .toString()
        .padStart(11)} ${cpuMs.toFixed(0).padStart(8)} ${String(nodes).padStart(28)}`,
    );
  }
  clearInterval(timer);
  sample();
  const ratio = times[100_000]! / times[10_000]!;
  console.log(
    `time ratio 100k/10k: ${ratio.toFixed(1)} (linear: 10; target <= 12); calls/s at 100k: ${Math.round(
      (100_000 / times[100_000]!) * 1000,
    )} (target >= 200,000); peak RSS ${(peak / MiB).toFixed(0)} MiB`,
  );
  console.log(
    `by CPU time: ratio ${(cpuTimes[100_000]! / cpuTimes[10_000]!).toFixed(1)}, calls/s at 100k ${Math.round((100_000 / cpuTimes[100_000]!) * 1000)}`,
  );
}

await main();
