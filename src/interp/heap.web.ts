// Browser build: stands in for heap.node.ts. Chromium reports its heap (performance.memory);
// elsewhere a 2 GiB limit is assumed.

export function heapStatistics(): { limit: number; used: number } {
  const m = (
    globalThis as { performance?: { memory?: { jsHeapSizeLimit: number; usedJSHeapSize: number } } }
  ).performance?.memory;
  return m ? { limit: m.jsHeapSizeLimit, used: m.usedJSHeapSize } : { limit: 2 ** 31, used: 0 };
}
