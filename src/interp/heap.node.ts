// Node-only: the V8 heap's limit and use. The web build replaces this module by heap.web.ts.

import { getHeapStatistics } from "node:v8";

export function heapStatistics(): { limit: number; used: number } {
  const h = getHeapStatistics();
  return { limit: h.heap_size_limit, used: h.used_heap_size };
}
