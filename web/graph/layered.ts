// A layered drawing of one level of a graph, top to bottom, in time near-linear in its size and
// with no recursion: longest-path layers from the sources (a source other than a graph input sits
// just above its first consumer), a barycenter sweep down, up and down to order each layer, and
// x coordinates from each box's wish (the mean of its neighbours' centres) made to fit without
// overlap by pooling adjacent boxes (so a chain is one straight column). An edge spanning a few
// layers goes through one dummy point per layer; a longer one is drawn straight.

export interface LevelInput {
  n: number;
  w: ArrayLike<number>;
  h: ArrayLike<number>;
  /** 1: stays in the top layer (a graph input); other sources sink to just above a consumer. */
  top: ArrayLike<number>;
  /** Edges as pairs: source, target. */
  edges: ArrayLike<number>;
}

export interface LevelResult {
  /** Top-left corner of each box. */
  x: Float64Array;
  y: Float64Array;
  layer: Int32Array;
  width: number;
  height: number;
  /** Per edge: the points between its ends (x0, y0, x1, y1, …), empty when it goes straight. */
  bends: number[][];
}

export const H_GAP = 18;
export const V_GAP = 30;
const DUMMY_W = 6;
/** Edges spanning more layers than this get no dummy points. */
export const MAX_SPAN = 12;

function csr(n: number, from: Int32Array, count: number): { start: Int32Array; list: Int32Array } {
  const start = new Int32Array(n + 1);
  for (let e = 0; e < count; e++) start[from[e]! + 1]!++;
  for (let v = 0; v < n; v++) start[v + 1]! += start[v]!;
  const fill = start.slice(0, n);
  const list = new Int32Array(count);
  for (let e = 0; e < count; e++) list[fill[from[e]!]!++] = e;
  return { start, list };
}

export function layered(input: LevelInput): LevelResult {
  const { n, w, h, top } = input;
  const m = input.edges.length >> 1;
  const src = new Int32Array(m);
  const dst = new Int32Array(m);
  for (let e = 0; e < m; e++) {
    src[e] = input.edges[2 * e]!;
    dst[e] = input.edges[2 * e + 1]!;
  }
  const out = csr(n, src, m);
  const inc = csr(n, dst, m);

  // topological order (Kahn, index order among ready nodes; a cycle is broken at its lowest node)
  const indeg = new Int32Array(n);
  for (let e = 0; e < m; e++) if (src[e] !== dst[e]) indeg[dst[e]!]!++;
  const order = new Int32Array(n);
  const rank = new Int32Array(n).fill(-1);
  let head = 0;
  let tail = 0;
  let next = 0;
  const push = (v: number) => {
    rank[v] = tail;
    order[tail++] = v;
  };
  for (let v = 0; v < n; v++) if (indeg[v] === 0) push(v);
  while (tail < n) {
    if (head === tail) {
      while (rank[next] !== -1) next++;
      push(next);
    }
    const v = order[head++]!;
    for (let k = out.start[v]!; k < out.start[v + 1]!; k++) {
      const t = dst[out.list[k]!]!;
      if (rank[t] === -1 && --indeg[t]! === 0) push(t);
    }
  }

  // longest path from the sources
  const layer = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const v = order[k]!;
    let l = 0;
    for (let j = inc.start[v]!; j < inc.start[v + 1]!; j++) {
      const u = src[inc.list[j]!]!;
      if (rank[u] < rank[v] && layer[u]! + 1 > l) l = layer[u]! + 1;
    }
    layer[v] = l;
  }
  // sources sink to just above their nearest consumer
  for (let v = 0; v < n; v++) {
    if (top[v] || inc.start[v + 1]! > inc.start[v]!) continue;
    let l = Infinity;
    for (let k = out.start[v]!; k < out.start[v + 1]!; k++)
      l = Math.min(l, layer[dst[out.list[k]!]!]!);
    if (l !== Infinity && l - 1 > layer[v]!) layer[v] = l - 1;
  }

  // virtual graph: boxes, then dummies; segments join adjacent layers
  const vLayer: number[] = Array.from(layer);
  const vW: number[] = Array.from({ length: n }, (_, v) => w[v]!);
  const segA: number[] = [];
  const segB: number[] = [];
  const dummies: Int32Array[] = new Array<Int32Array>(m);
  const empty = new Int32Array(0);
  for (let e = 0; e < m; e++) {
    const a = src[e]!;
    const b = dst[e]!;
    const span = layer[b]! - layer[a]!;
    if (span === 1) {
      segA.push(a);
      segB.push(b);
    }
    if (span < 2 || span > MAX_SPAN) {
      dummies[e] = empty;
      continue;
    }
    const ds = new Int32Array(span - 1);
    let prev = a;
    for (let k = 0; k < span - 1; k++) {
      const d = vLayer.length;
      vLayer.push(layer[a]! + 1 + k);
      vW.push(DUMMY_W);
      ds[k] = d;
      segA.push(prev);
      segB.push(d);
      prev = d;
    }
    segA.push(prev);
    segB.push(b);
    dummies[e] = ds;
  }
  const N = vLayer.length;
  const sa = Int32Array.from(segA);
  const sb = Int32Array.from(segB);
  const sOut = csr(N, sa, sa.length);
  const sIn = csr(N, sb, sb.length);

  // layers in first-seen order: boxes in topological order, each followed by its edges' dummies
  let layers = 0;
  for (let v = 0; v < N; v++) if (vLayer[v]! + 1 > layers) layers = vLayer[v]! + 1;
  const rows: number[][] = Array.from({ length: layers }, () => []);
  for (let k = 0; k < n; k++) {
    const v = order[k]!;
    rows[vLayer[v]!]!.push(v);
    for (let j = out.start[v]!; j < out.start[v + 1]!; j++)
      for (const d of dummies[out.list[j]!]!) rows[vLayer[d]!]!.push(d);
  }
  const pos = new Float64Array(N);
  const index = () => {
    for (const row of rows) row.forEach((v, i) => (pos[v] = i));
  };
  index();
  const key = new Float64Array(N);
  /**
   * Visits the layers down (or up), setting each box's wish to the mean of `value` over its
   * neighbours in the layer before (its own value when it has none), then `settle`s the row.
   */
  const visit = (
    down: boolean,
    value: Float64Array,
    wish: Float64Array,
    settle: (row: number[]) => void,
  ) => {
    const adj = down ? sIn : sOut;
    const other = down ? sa : sb;
    for (let s = 0; s < layers; s++) {
      const row = rows[down ? s : layers - 1 - s]!;
      for (const v of row) {
        let sum = 0;
        let k = 0;
        for (let j = adj.start[v]!; j < adj.start[v + 1]!; j++) {
          sum += value[other[adj.list[j]!]!]!;
          k++;
        }
        wish[v] = k ? sum / k : value[v]!;
      }
      settle(row);
    }
  };
  const sweep = (down: boolean) =>
    visit(down, pos, key, (row) => {
      row.sort((a, b) => key[a]! - key[b]! || pos[a]! - pos[b]!);
      row.forEach((v, i) => (pos[v] = i));
    });
  sweep(true);
  sweep(false);
  sweep(true);

  // x: each box where its neighbours want it, overlaps pooled away
  const cx = new Float64Array(N);
  for (const row of rows) {
    let x = 0;
    for (const v of row) {
      cx[v] = x + vW[v]! / 2;
      x += vW[v]! + H_GAP;
    }
  }
  const want = new Float64Array(N);
  let widest = 0;
  for (const row of rows) widest = Math.max(widest, row.length);
  const scratch: Scratch = {
    bStart: new Int32Array(widest),
    bN: new Int32Array(widest),
    bW: new Float64Array(widest),
    bS: new Float64Array(widest),
  };
  const place = (down: boolean) => visit(down, cx, want, (row) => pool(row, vW, want, cx, scratch));
  place(true);
  place(false);
  place(true);

  // y: each layer as tall as its tallest box, boxes centred in it
  const layerH = new Float64Array(layers);
  for (let v = 0; v < n; v++) layerH[layer[v]!] = Math.max(layerH[layer[v]!]!, h[v]!);
  const layerY = new Float64Array(layers);
  let y = 0;
  for (let l = 0; l < layers; l++) {
    layerY[l] = y;
    y += layerH[l]! + V_GAP;
  }
  let minX = Infinity;
  let maxX = -Infinity;
  for (let v = 0; v < N; v++) {
    minX = Math.min(minX, cx[v]! - vW[v]! / 2);
    maxX = Math.max(maxX, cx[v]! + vW[v]! / 2);
  }
  if (N === 0) minX = maxX = 0;
  const x = new Float64Array(n);
  const yy = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    x[v] = cx[v]! - w[v]! / 2 - minX;
    yy[v] = layerY[layer[v]!]! + (layerH[layer[v]!]! - h[v]!) / 2;
  }
  const bends: number[][] = new Array<number[]>(m);
  for (let e = 0; e < m; e++) {
    const ds = dummies[e]!;
    const pts: number[] = [];
    for (const d of ds) {
      const l = vLayer[d]!;
      pts.push(cx[d]! - minX, layerY[l]!, cx[d]! - minX, layerY[l]! + layerH[l]!);
    }
    bends[e] = pts;
  }
  return {
    x,
    y: yy,
    layer,
    width: maxX - minX,
    height: layers ? y - V_GAP : 0,
    bends,
  };
}

interface Scratch {
  bStart: Int32Array;
  bN: Int32Array;
  bW: Float64Array;
  bS: Float64Array;
}

/**
 * Places a row's boxes (in order, H_GAP apart) as near their wished centres as they fit, in the
 * least-squares sense: adjacent boxes that would overlap are pooled into one block at the mean
 * of their wishes, repeatedly (linear in the row's length).
 */
function pool(
  row: number[],
  w: number[],
  want: Float64Array,
  cx: Float64Array,
  scratch: Scratch,
): void {
  const k = row.length;
  const { bStart, bN, bW, bS } = scratch;
  let top = -1;
  for (let i = 0; i < k; i++) {
    const v = row[i]!;
    top++;
    bStart[top] = i;
    bN[top] = 1;
    bW[top] = w[v]!;
    bS[top] = want[v]! - w[v]! / 2;
    while (top > 0 && bS[top - 1]! / bN[top - 1]! + bW[top - 1]! + H_GAP > bS[top]! / bN[top]!) {
      const shift = bW[top - 1]! + H_GAP;
      bS[top - 1] = bS[top - 1]! + bS[top]! - bN[top]! * shift;
      bN[top - 1] = bN[top - 1]! + bN[top]!;
      bW[top - 1] = shift + bW[top]!;
      top--;
    }
  }
  for (let b = 0; b <= top; b++) {
    let left = bS[b]! / bN[b]!;
    const end = b < top ? bStart[b + 1]! : k;
    for (let i = bStart[b]!; i < end; i++) {
      const v = row[i]!;
      cx[v] = left + w[v]! / 2;
      left += w[v]! + H_GAP;
    }
  }
}
