// The layout of a scene (worker side, pure): what is visible given the open groups (a collapsed
// group is one box, an open one a frame around its own layout), each open group laid out by
// layered.ts on its own, innermost first, and the frames placed in their parents. Constants are
// folded into their consumers unless asked for as nodes. Edges join visible boxes (an edge into a
// collapsed group ends at its box); several values between the same two boxes make one edge.

import { layered, type LevelResult } from "./layered.js";
import { groupNodes, marksOf, openGroups, type Scene } from "./scene.js";
import type { Layout, LayoutEdge, LayoutFrame, LayoutItem, LayoutOptions, Mark } from "./types.js";

const CHAR = 7.2;
/** Pairs of indices as one number key (a layout has fewer boxes than this). */
const PAIR = 2 ** 26;
const FOLD_ROW = 13;
const FOLD_ROWS = 4;
/** Frame padding: sides and bottom, and the top (the frame's title). */
export const PAD = 10;
export const PAD_TOP = 24;

const asMark = (m: string | undefined): Mark | undefined =>
  m === "added" || m === "removed" || m === "changed" ? m : undefined;

function boxSize(label: string, sub: string, folded: number): { w: number; h: number } {
  const rows = Math.min(folded, FOLD_ROWS);
  return {
    w: Math.max(label.length, Math.min(sub.length, 28), rows ? 22 : 0) * CHAR + 20,
    h: (sub ? 38 : 26) + rows * FOLD_ROW,
  };
}

export function layoutScene(
  scene: Scene,
  options: LayoutOptions,
  marks: ReadonlyMap<number, string> | undefined,
  view: { id: string; title: string },
): Layout {
  const t0 = performance.now();
  const { groups } = scene;
  const n = scene.labels.length;
  const asNodes = options.constantsAsNodes;
  const isOpen = openGroups(scene, options.open, options.closed);
  // the collapsed group hiding each group (-1: visible, open)
  const hiddenBy = new Int32Array(groups.length).fill(-1);
  for (let g = 1; g < groups.length; g++) {
    const p = hiddenBy[groups[g]!.parent]!;
    hiddenBy[g] = p >= 0 ? p : isOpen[g] ? -1 : g;
  }
  const groupKey = (g: number) => (g === 0 ? "" : groups[g]!.key);

  const items: LayoutItem[] = [];
  /** The open group each item is drawn in. */
  const containers: number[] = [];
  const add = (
    key: string,
    kind: LayoutItem["kind"],
    index: number,
    label: string,
    sub: string,
    container: number,
  ): number => {
    const parent = groupKey(container);
    // NaN, not 0: the fields hold doubles from the start (no change of object shape later)
    items.push({ key, kind, index, label, sub, x: NaN, y: NaN, w: NaN, h: NaN, parent });
    containers.push(container);
    return items.length - 1;
  };
  const groupItem = new Int32Array(groups.length).fill(-1);
  for (let g = 1; g < groups.length; g++)
    if (hiddenBy[g] === g) {
      const grp = groups[g]!;
      const sub = `${grp.count} node${grp.count === 1 ? "" : "s"}`;
      const k = add(grp.key, "group", -1, grp.label, sub, grp.parent);
      items[k]!.count = grp.count;
      const m = marks?.size ? marksOf(groupNodes(scene, g), marks) : undefined;
      if (m) items[k]!.mark = m;
      groupItem[g] = k;
    }
  const inputItem = scene.inputs.map((v, k) =>
    v.initializer && !asNodes ? -1 : add(`i${k}`, "in", k, v.name, v.sub, 0),
  );
  const nodeItem = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const g = scene.groupOf[i]!;
    if (hiddenBy[g]! >= 0) {
      nodeItem[i] = groupItem[hiddenBy[g]!]!;
      continue;
    }
    if (scene.constant[i] && !asNodes) continue;
    const k = scene.constant[i]
      ? add(`c${i}`, "const", i, scene.labels[i]!, scene.subs[i]!, g)
      : add(`n${i}`, "op", i, scene.labels[i]!, scene.subs[i]!, g);
    const m = asMark(marks?.get(i));
    if (m) items[k]!.mark = m;
    if (scene.subgraphs[i]) items[k]!.subgraphs = scene.subgraphs[i];
    nodeItem[i] = k;
  }
  const inputNames = new Set(scene.inputs.map((v) => v.name));
  const initItem = new Map<string, number>();
  if (asNodes)
    scene.initializers.forEach((v, k) => {
      if (!inputNames.has(v.name))
        initItem.set(v.name, add(`c${n + k}`, "const", -1, v.name, v.text, 0));
    });

  // edges between visible boxes, each lifted to the open group holding both ends
  const finals = new Map<number, { from: number; to: number; titles: string[] }>();
  const link = (from: number, to: number, value: string) => {
    if (from < 0 || to < 0 || from === to) return;
    const k = from * PAIR + to;
    const f = finals.get(k);
    if (!f) finals.set(k, { from, to, titles: [value] });
    else if (f.titles.length < 6) f.titles.push(value);
  };
  const sourceOf = (value: string): number => {
    const p = scene.producer.get(value);
    if (p === undefined) return initItem.get(value) ?? -1;
    return p >= 0 ? nodeItem[p]! : inputItem[-1 - p]!;
  };
  const folded = new Map<number, NonNullable<LayoutItem["folded"]>>();
  for (let i = 0; i < n; i++) {
    const to = nodeItem[i]!;
    if (to < 0) continue;
    const own = items[to]!.index === i;
    for (const value of scene.nodeInputs[i]!) {
      const p = scene.producer.get(value);
      const isConst =
        scene.constants.has(value) &&
        (p === undefined || (p >= 0 && scene.constant[p]) || scene.inputs[-1 - p]?.initializer);
      if (isConst && !asNodes) {
        if (!own) continue;
        let list = folded.get(to);
        if (!list) folded.set(to, (list = []));
        const index = p !== undefined && p >= 0 ? p : -1;
        const entry: NonNullable<LayoutItem["folded"]>[number] = {
          name:
            scene.stripPrefix && value.startsWith(scene.stripPrefix)
              ? value.slice(scene.stripPrefix.length)
              : value,
          text: scene.constants.get(value)!,
          index,
        };
        const m = index >= 0 ? asMark(marks?.get(index)) : undefined;
        if (m) entry.mark = m;
        list.push(entry);
        continue;
      }
      link(sourceOf(value), to, value);
    }
  }
  const outputItem = scene.outputs.map((v, k) => {
    const e = add(`o${k}`, "out", k, v.name, v.sub, 0);
    link(sourceOf(v.name), e, v.name);
    return e;
  });
  void outputItem;
  for (const [e, list] of folded) items[e]!.folded = list;
  for (const item of items) {
    const s =
      item.kind === "group"
        ? { w: Math.max(item.label.length, item.sub.length) * CHAR + 56, h: 40 }
        : boxSize(item.label, item.sub, item.folded?.length ?? 0);
    item.w = s.w;
    item.h = s.h;
  }

  // the members of each open group's level: its entries, then its open child groups (frames)
  const members: number[][] = groups.map(() => []);
  const memberOf = new Int32Array(items.length);
  containers.forEach((c, k) => {
    memberOf[k] = members[c]!.length;
    members[c]!.push(k);
  });
  const frameMember = new Int32Array(groups.length).fill(-1);
  for (let g = 1; g < groups.length; g++)
    if (hiddenBy[g] === -1) {
      const p = groups[g]!.parent;
      frameMember[g] = members[p]!.length;
      members[p]!.push(-1 - g);
    }
  // each final edge: the level it is drawn in and the members it joins there
  const levelEdges: number[][] = groups.map(() => []);
  const levelEdgeKey: Map<number, number>[] = groups.map(() => new Map());
  const finalList = [...finals.values()];
  const finalLevel = new Int32Array(finalList.length);
  const finalSlot = new Int32Array(finalList.length);
  const depth = (g: number) => groups[g]!.depth;
  finalList.forEach((f, k) => {
    let a = containers[f.from]!;
    let b = containers[f.to]!;
    let ma = memberOf[f.from]!;
    let mb = memberOf[f.to]!;
    while (a !== b) {
      if (depth(a) >= depth(b)) {
        ma = frameMember[a]!;
        a = groups[a]!.parent;
      } else {
        mb = frameMember[b]!;
        b = groups[b]!.parent;
      }
    }
    finalLevel[k] = a;
    const key = ma * PAIR + mb;
    let slot = levelEdgeKey[a]!.get(key);
    if (slot === undefined) {
      slot = levelEdges[a]!.length / 2;
      levelEdgeKey[a]!.set(key, slot);
      levelEdges[a]!.push(ma, mb);
    }
    finalSlot[k] = slot;
  });

  // lay out the open groups, innermost first (children come after parents in the list)
  const frameW = new Float64Array(groups.length);
  const frameH = new Float64Array(groups.length);
  const rel: LevelResult[] = new Array<LevelResult>(groups.length);
  for (let g = groups.length - 1; g >= 0; g--) {
    if (hiddenBy[g] !== -1) continue;
    const mem = members[g]!;
    const k = mem.length;
    const w = new Float64Array(k);
    const h = new Float64Array(k);
    const top = new Uint8Array(k);
    mem.forEach((x, j) => {
      if (x >= 0) {
        const item = items[x]!;
        w[j] = item.w;
        h[j] = item.h;
        top[j] = item.kind === "in" ? 1 : 0;
      } else {
        w[j] = frameW[-1 - x]!;
        h[j] = frameH[-1 - x]!;
      }
    });
    const r = layered({ n: k, w, h, top, edges: levelEdges[g]! });
    rel[g] = r;
    frameW[g] = Math.max(r.width, groups[g]!.label.length * CHAR + 30) + 2 * PAD;
    frameH[g] = r.height + PAD + PAD_TOP;
  }

  // absolute positions, outermost first
  const originX = new Float64Array(groups.length);
  const originY = new Float64Array(groups.length);
  const frames: LayoutFrame[] = [];
  for (let g = 0; g < groups.length; g++) {
    if (hiddenBy[g] !== -1) continue;
    const r = rel[g]!;
    members[g]!.forEach((x, j) => {
      const ax = originX[g]! + r.x[j]!;
      const ay = originY[g]! + r.y[j]!;
      if (x >= 0) {
        items[x]!.x = ax;
        items[x]!.y = ay;
      } else {
        const c = -1 - x;
        originX[c] = ax + PAD;
        originY[c] = ay + PAD_TOP;
        const grp = groups[c]!;
        const frame: LayoutFrame = {
          key: grp.key,
          label: grp.label,
          parent: groupKey(grp.parent),
          x: ax,
          y: ay,
          w: frameW[c]!,
          h: frameH[c]!,
          count: grp.count,
        };
        const m = marks?.size ? marksOf(groupNodes(scene, c), marks) : undefined;
        if (m) frame.mark = m;
        frames.push(frame);
      }
    });
  }
  const edges: LayoutEdge[] = finalList.map((f, k) => {
    const a = items[f.from]!;
    const b = items[f.to]!;
    const g = finalLevel[k]!;
    const bends = rel[g]!.bends[finalSlot[k]!]!;
    const points = [a.x + a.w / 2, a.y + a.h];
    for (let j = 0; j < bends.length; j += 2)
      points.push(bends[j]! + originX[g]!, bends[j + 1]! + originY[g]!);
    points.push(b.x + b.w / 2, b.y);
    return {
      from: a.key,
      to: b.key,
      points,
      title: f.titles.map((v) => `${v}: ${scene.typeOf(v)}`).join("\n"),
    };
  });
  const root = rel[0]!;
  return {
    view: view.id,
    title: view.title,
    items,
    frames,
    edges,
    width: root.width,
    height: root.height,
    ms: performance.now() - t0,
    total: n,
  };
}
