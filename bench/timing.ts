// Shared by the benchmarks: warm up, then the median of timed runs.

/** Median wall time in ms of `runs` calls of f, after `warmup` untimed calls. */
export async function median(
  f: () => unknown | Promise<unknown>,
  runs: number,
  warmup = 2,
): Promise<number> {
  for (let i = 0; i < warmup; i++) await f();
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const a = performance.now();
    await f();
    t.push(performance.now() - a);
  }
  t.sort((a, b) => a - b);
  return t[Math.floor(t.length / 2)]!;
}
