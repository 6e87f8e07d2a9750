// legalize-int64: int64 computation made int32 where the values are shown to fit, for a backend
// without int64 at some ops (`lower --target` runs it with the profile's element types: CoreML's
// Range takes int32; a profile of one's own without int64). Work is per node and type
// variable (a "unit": Range's T, Gather's Tind): a unit whose int64 values all have a bound
// within int32 (check/int-ranges.ts: constants, static dims, index rules) computes in int32.
// From each unit the target refuses, the change spreads to the int64 units it shares values with
// that can change too, so that a chain of int64 ops turns int32 as one piece and Casts stand
// only at its edges: after an op whose output is int64 by definition (Shape, ArgMax, NonZero),
// before an input that is int64 by definition (Reshape's shape, Slice's steps are not: their
// Tind may be int32), at the graph's inputs and outputs (the interface stays as it is) and
// at a unit whose values have no bound (left int64, with a note naming the value). An int64
// initializer read in int32 gets an int32 copy. Why the numbers stay: every value of a changed
// unit, inputs and outputs, lies in int32's range, and int32 sums, differences and products
// agree with int64's modulo 2^32, so a result within int32 is the same.
// In the main graph and in If branches (passes/scopes.ts; not in Loop or Scan bodies, whose
// values may take other shapes on each run, nor in functions, whose types are those of one
// call): a branch reads values from outside as they are (int64), casting its own copy where it
// computes in int32. Only ai.onnx ops with no subgraphs.

import { formalAt } from "../check/arity.js";
import { analysisOf } from "../check/infer.js";
import { fitsInt32, integerBounds, type Interval } from "../check/int-ranges.js";
import { node as makeNode } from "../ir/builder.js";
import { outerNamesUsedBy } from "../ir/graph.js";
import { opsetMap } from "../ir/opsets.js";
import { Tensor } from "../ir/tensor.js";
import {
  DataType,
  type Attribute,
  type Dim,
  type Graph,
  type Model,
  type Node,
  type Type,
} from "../ir/types.js";
import { SchemaRegistry } from "../schema/registry.js";
import { constantTensor } from "./lift-constants.js";
import type { Note, Pass } from "./pass.js";
import { eachScope, shapesKnown, type PassScope } from "./scopes.js";

const I64 = DataType.INT64;
const I32 = DataType.INT32;

export interface LegalizeInt64Options {
  /**
   * Whether the target takes int64 at this node (its type variables' int64 values). The nodes
   * it refuses are where the change starts; absent: it starts at every node (a backend with no
   * int64 at all).
   */
  accepts?: (n: Node) => boolean;
}

interface Slot {
  out: boolean;
  pos: number;
  value: string;
}
interface Unit {
  node: number;
  param: string;
  slots: Slot[];
  /** Why the unit must stay int64 (undefined: it may change). */
  blocked?: string;
}

const clamp32 = (x: number) => Math.min(2 ** 31 - 1, Math.max(-(2 ** 31), x));

const describe = (r: Interval | undefined) =>
  r
    ? `may reach ${r[0] < -(2 ** 31) ? r[0] : r[1]}`
    : "has no bound known to fit int32 (bounds come from constants, static dims and indices: --dim fixes dims)";

export function legalizeInt64(options: LegalizeInt64Options = {}): Pass {
  return {
    name: "legalize-int64",
    run(model: Model, ctx) {
      const registry = ctx?.registry ?? SchemaRegistry.default();
      const opsets = opsetMap(model.opsetImports);
      const all = analysisOf(model, { registry }).types;
      const notes: Note[] = [];
      let modified = false;
      const out = eachScope(
        model,
        (g, scope) => {
          if (!shapesKnown(scope)) return g;
          // A branch's types, over those of the graphs around it (what it reads from them).
          const types = new Map<string, Type>();
          for (const o of [...scope.owners].reverse())
            for (const [k, v] of all.get(o) ?? []) types.set(k, v);
          const r = legalizeGraph(g, scope, types, registry, opsets, options);
          notes.push(...r.notes);
          if (r.graph !== g) modified = true;
          return r.graph;
        },
        { functions: false },
      );
      return { ok: true, model: modified ? out : model, modified, notes };
    },
  };
}

/** One graph's int64 computation made int32 where it can be (see the head of the file). */
function legalizeGraph(
  g: Graph,
  scope: PassScope,
  types: Map<string, Type>,
  registry: SchemaRegistry,
  opsets: Map<string, number>,
  options: LegalizeInt64Options,
): { graph: Graph; notes: Note[] } {
  {
    {
      const is64 = (x: string) => {
        const t = types.get(x);
        return t?.kind === "tensor" && t.elemType === I64;
      };
      const inits = new Map(g.initializers.map((t) => [t.name, t] as const));
      const producer = new Map<string, number>();
      g.nodes.forEach((n, i) => n.outputs.forEach((o) => o && producer.set(o, i)));
      const constants = new Map<string, Tensor>();
      for (const n of g.nodes)
        if (n.opType === "Constant" && (n.domain ?? "") === "" && n.outputs[0]) {
          const t = constantTensor(n, n.outputs[0]);
          if (t) constants.set(n.outputs[0], t);
        }
      const bounds = integerBounds(g, types, constants);
      // Slice's starts and ends clamp to the axis: an initializer read only there, over a tensor
      // of static dims, may be clamped into int32 (INT64_MAX, "to the end", as 2^31 - 1).
      const graphInputs = new Set(g.inputs.map((v) => v.name));
      const clamped = new Set<string>();
      {
        const reads = new Map<string, boolean>(); // value -> read only as such a starts/ends
        for (const n of g.nodes)
          n.inputs.forEach((x, pos) => {
            if (!x) return;
            const t = types.get(n.inputs[0] ?? "");
            const ok =
              n.opType === "Slice" &&
              (n.domain ?? "") === "" &&
              (pos === 1 || pos === 2) &&
              t?.kind === "tensor" &&
              !!t.shape?.every((d: Dim) => typeof d === "number");
            reads.set(x, (reads.get(x) ?? true) && ok);
          });
        for (const [x, only] of reads)
          if (only && !graphInputs.has(x) && inits.has(x) && !producer.has(x)) clamped.add(x);
      }
      const boundOf = (x: string): Interval | undefined => {
        const b = bounds.get(x);
        return b && clamped.has(x) ? [clamp32(b[0]), clamp32(b[1])] : b;
      };

      // The units: per node, per type variable that allows int32 and binds int64 here.
      const units: Unit[] = [];
      const unitsOf = new Map<string, number[]>(); // value -> units touching it
      const unitAt = new Map<string, number>(); // `${node}:${in|out}:${pos}` -> unit
      const seeds: number[] = [];
      g.nodes.forEach((n, i) => {
        const domain = n.domain ?? "";
        if (domain !== "" && domain !== "ai.onnx") return;
        if (n.opType === "Constant") return;
        if (n.attributes.some((a) => a.type === "GRAPH" || a.type === "GRAPHS")) return;
        const schema = registry.tryResolve("", n.opType, opsets.get("") ?? 1);
        if (!schema) return;
        const mine = new Map<string, Unit>();
        const visit = (names: string[], out: boolean) =>
          names.forEach((value, pos) => {
            if (!value || !is64(value)) return;
            const f = formalAt(out ? schema.outputs : schema.inputs, pos);
            const tc = f && schema.type_constraints.find((c) => c.name === f.type);
            if (!tc || !tc.allowed.includes("tensor(int32)")) return;
            let u = mine.get(tc.name);
            if (!u) mine.set(tc.name, (u = { node: i, param: tc.name, slots: [] }));
            u.slots.push({ out, pos, value });
          });
        visit(n.inputs, false);
        visit(n.outputs, true);
        // An op that makes tensors of a type named by an attribute (Multinomial, the Random
        // ops) is left; Cast, EyeLike and ConstantOfShape have theirs rewritten below.
        const dtypeAttr = n.attributes.some((a) => a.name === "dtype") && n.opType !== "EyeLike";
        for (const u of mine.values()) {
          if (dtypeAttr) u.blocked = `${n.opType}'s dtype attribute`;
          for (const s of u.slots) {
            const b = boundOf(s.value);
            if (!u.blocked && !fitsInt32(b)) u.blocked = `'${s.value}' ${describe(b)}`;
          }
          const k = units.push(u) - 1;
          for (const s of u.slots) {
            unitAt.set(`${i}:${s.out ? "out" : "in"}:${s.pos}`, k);
            const l = unitsOf.get(s.value);
            if (l) l.push(k);
            else unitsOf.set(s.value, [k]);
          }
          if (!options.accepts || !options.accepts(n)) seeds.push(k);
        }
      });

      const notes: Note[] = [];
      const where = (u: Unit) => {
        const n = g.nodes[u.node]!;
        return `${scope.where} > ${n.name ? `node '${n.name}'` : `node ${u.node}`} (${n.opType})`;
      };
      // The change spreads from each seed that can change, through shared values.
      const changed = new Set<number>();
      const queue: number[] = [];
      for (const k of seeds) {
        const u = units[k]!;
        if (u.blocked) {
          notes.push({
            level: "warning",
            where: where(u),
            message: `int64 kept (${u.param}): ${u.blocked}`,
          });
          continue;
        }
        if (!changed.has(k)) (changed.add(k), queue.push(k));
      }
      while (queue.length) {
        const u = units[queue.pop()!]!;
        for (const s of u.slots)
          for (const k of unitsOf.get(s.value) ?? [])
            if (!changed.has(k) && !units[k]!.blocked) (changed.add(k), queue.push(k));
      }
      if (!changed.size) return { graph: g, notes };

      const inChanged = (i: number, out: boolean, pos: number) => {
        const k = unitAt.get(`${i}:${out ? "out" : "in"}:${pos}`);
        return k !== undefined && changed.has(k);
      };
      const narrow = new Map<string, string>();
      const name32 = (v: string) => {
        let s = narrow.get(v);
        if (s) return s;
        s = scope.fresh(`${v}_i32`);
        narrow.set(v, s);
        return s;
      };
      // Each int64 value at a changed unit: who makes it, who wants it narrow or wide.
      const producedNarrow = new Set<string>();
      const wantNarrow = new Set<string>();
      const wantWide = new Set<string>(g.outputs.map((v) => v.name));
      g.nodes.forEach((n, i) => {
        n.outputs.forEach((v, pos) => {
          if (v && inChanged(i, true, pos)) producedNarrow.add(v);
        });
        n.inputs.forEach((v, pos) => {
          if (!v) return;
          if (inChanged(i, false, pos)) wantNarrow.add(v);
          else wantWide.add(v);
        });
        // A subgraph reads the outer value by its name, as it is.
        for (const v of outerNamesUsedBy(n)) wantWide.add(v);
      });
      const initializers = [...g.initializers];
      const castsIn = new Map<number, Node[]>(); // after node i (-1: first)
      const after = (i: number, n: Node) => {
        const l = castsIn.get(i);
        if (l) l.push(n);
        else castsIn.set(i, [n]);
      };
      let copies = 0;
      let casts = 0;
      for (const v of wantNarrow) {
        if (producedNarrow.has(v)) continue;
        const t = inits.get(v) ?? constants.get(v);
        if (t && !producer.has(v) && t.readable) {
          const values = t.numbers();
          initializers.push(
            Tensor.from(I32, [...t.dims], clamped.has(v) ? values.map(clamp32) : values, name32(v)),
          );
          copies++;
          continue;
        }
        after(producer.get(v) ?? -1, makeNode("Cast", [v], [name32(v)], { to: I32 }));
        casts++;
      }
      for (const v of producedNarrow)
        if (wantWide.has(v)) {
          after(producer.get(v)!, makeNode("Cast", [name32(v)], [v], { to: I64 }));
          casts++;
        }

      const narrowAttr = (n: Node, a: Attribute): Attribute => {
        if (
          (a.name === "to" && n.opType === "Cast") ||
          (a.name === "dtype" && n.opType === "EyeLike")
        )
          return a.type === "INT" && Number(a.value) === I64 ? { ...a, value: BigInt(I32) } : a;
        if (n.opType === "ConstantOfShape" && a.name === "value" && a.type === "TENSOR" && a.value)
          return a.value.dataType === I64
            ? { ...a, value: Tensor.from(I32, [...a.value.dims], a.value.numbers(), a.value.name) }
            : a;
        return a;
      };
      const byOp = new Map<string, number>();
      const nodes: Node[] = [...(castsIn.get(-1) ?? [])];
      g.nodes.forEach((n, i) => {
        const ins = n.inputs.map((v, pos) => (v && inChanged(i, false, pos) ? name32(v) : v));
        const outs = n.outputs.map((v, pos) => (v && inChanged(i, true, pos) ? name32(v) : v));
        const outChanged = n.outputs.some((v, pos) => v && inChanged(i, true, pos));
        const touched = outChanged || ins.some((v, pos) => v !== n.inputs[pos]);
        if (touched) byOp.set(n.opType, (byOp.get(n.opType) ?? 0) + 1);
        nodes.push(
          touched
            ? {
                ...n,
                inputs: ins,
                outputs: outs,
                attributes: outChanged ? n.attributes.map((a) => narrowAttr(n, a)) : n.attributes,
              }
            : n,
        );
        nodes.push(...(castsIn.get(i) ?? []));
      });
      // A value that is now made narrow and wanted by no one wide is gone.
      const gone = new Set([...producedNarrow].filter((v) => !wantWide.has(v)));
      const count = [...byOp.values()].reduce((a, b) => a + b, 0);
      notes.push({
        level: "info",
        message:
          `int64 made int32 in ${count} node(s) (${[...byOp].map(([op, k]) => `${op} ${k}`).join(", ")}): ` +
          `${narrow.size} value(s), ${casts} Cast(s) at the edges, ${copies} initializer(s) copied as int32`,
      });
      return {
        graph: {
          ...g,
          nodes,
          initializers,
          valueInfo: g.valueInfo.filter((v) => !gone.has(v.name)),
        },
        notes,
      };
    }
  }
}
