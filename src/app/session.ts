// A session: the model loaded (a) and the result of the last transform (b), run side by side on the
// same inputs and compared. It owns both sides, with what a caller keeps of each (the page's worker:
// its views, types and the diff's marks, made by `prepare`); a step that fails anywhere, `prepare`
// included, leaves the session as it was. Each step is the function the command line uses for the
// same thing (load.ts, transform.ts, runnable.ts).

import { OnnxError } from "../errors.js";
import type { Function, Graph, Model } from "../ir/types.js";
import type { RunOptions } from "../interp/executor.js";
import type { RunProfile } from "../interp/profile.js";
import type { RValue } from "../interp/types.js";
import type { Note } from "../passes/pass.js";
import {
  compareOutputs,
  nodeDifferences,
  type Difference,
  type OutputComparison,
} from "./compare.js";
import { requestedInputs, type InputRequest } from "./inputs.js";
import { withTakenDims, type TakenDim } from "./random-dims.js";
import { firstDivergences, type ValueDivergence } from "./divergence.js";
import { modelFromBytes, modelFromFiles, type PickedFile } from "./load.js";
import { RefusedError } from "./notes.js";
import { runModels } from "./runnable.js";
import type { TargetReport } from "../targets/classify.js";
import {
  convert,
  expand,
  lower,
  type ConvertRequest,
  type ExpandRequest,
  type LowerRequest,
  type TransformResult,
} from "./transform.js";

export interface Loaded {
  name: string;
  model: Model;
}

/** A side of the session: its model, and what the caller made of it (Session's `prepare`). */
export interface Side<X> extends Loaded {
  view: X;
}

export interface RunReport {
  inputs: Record<string, RValue>;
  /** Each output of a, compared with b's when there is a result. */
  outputs: OutputComparison[];
  /**
   * With `perNode`: each side's main-graph node times (ms, by node index), and for a result each
   * of b's nodes against a's value of the same name (nodeDifferences; null: no match). Absent
   * when keeping every value did not fit the run's memory budget (`perNodeNote` says so).
   */
  nodes?: {
    ms: number[][];
    /** How many runs the times are the median of. */
    runs: number;
    diff?: (Difference | null)[];
    /**
     * The first divergence of b from a (divergence.ts: the earliest of b's main-graph nodes in
     * execution order whose values differ from a's while its inputs' do not); null: none differs.
     */
    first?: { index: number; value: ValueDivergence } | null;
    /**
     * Per side, each subgraph and local function that ran: its nodes' times (summed over its
     * runs, in the first timed run); for a result, each of its subgraphs that ran: its nodes'
     * differences, as above.
     */
    graphs?: {
      ms: Map<Graph | Function, number[]>[];
      diff?: Map<Graph, (Difference | null)[]>;
    };
  };
  perNodeNote?: string;
  /** With random inputs: the symbolic dims not given, with the sizes taken (random-dims.ts). */
  taken?: TakenDim[];
}

/**
 * How many runs a per-node timing takes, from the first run's time: 5 when a run is quick, 3 up
 * to 3 s, else the one (a large model's run is not repeated).
 */
export function timedRuns(firstMs: number): number {
  return firstMs <= 500 ? 5 : firstMs <= 3000 ? 3 : 1;
}

/** Each main-graph node's time of one run (ms, by node index), as a list to add runs to. */
function nodeTimes(model: Model, profile: RunProfile): number[][] {
  const t = Array.from({ length: model.graph.nodes.length }, () => [0]);
  for (const n of profile.nodes ?? []) t[n.index]![0] = n.ms;
  return t;
}

function firstDivergence(
  b: Model,
  va: Record<string, RValue>,
  vb: Record<string, RValue>,
): { index: number; value: ValueDivergence } | null {
  const d = firstDivergences(b.graph, va, vb)[0];
  if (!d) return null;
  const value = d.outputs.reduce((m, o) => (o.ulps > m.ulps ? o : m));
  return { index: d.index, value };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * What a caller keeps with a side, made when the side is: from the side, and for a result (b)
 * the loaded side it was made from (a). Throwing refuses the side.
 */
export type Prepare<X> = (side: Loaded, from: Side<X> | undefined) => X;

export class Session<X = undefined> {
  private sides: { a?: Side<X>; b?: Side<X> } = {};

  constructor(
    private readonly progress: (text: string) => void = () => {},
    private readonly prepare: Prepare<X> = () => undefined as X,
  ) {}

  /** The model loaded. */
  get a(): Side<X> | undefined {
    return this.sides.a;
  }

  /** The result of the last transform of a. */
  get b(): Side<X> | undefined {
    return this.sides.b;
  }

  /** Decodes a model file (see load.ts) as the new a; the result is dropped. */
  load(name: string, bytes: Uint8Array): Side<X> {
    this.progress(`decoding ${name}…`);
    const a = this.side({ name, model: modelFromBytes(bytes, name) }, undefined);
    this.sides = { a };
    return a;
  }

  /**
   * Opens a model and its data files (see load.ts, modelFromFiles) as the new a; the result is
   * dropped. Data files the model names that were not given are listed in `missing`.
   */
  loadFiles(files: PickedFile[]): Side<X> & { missing: string[] } {
    const opened = modelFromFiles(files);
    this.progress(`decoding ${opened.name}…`);
    const a = this.side({ name: opened.name, model: opened.model }, undefined);
    this.sides = { a };
    return { ...a, missing: opened.missing };
  }

  private loaded(): Side<X> {
    if (!this.sides.a) throw new OnnxError("E_USAGE", "load a model first");
    return this.sides.a;
  }

  /** a converted to an opset: the new b, with the notes; a refusal throws a RefusedError. */
  convert(target: number, req: ConvertRequest = {}): { result: Side<X>; notes: Note[] } {
    const a = this.loaded();
    this.progress("conversion…");
    return this.keep(convert(a.model, target, req), `${a.name} (opset ${target})`);
  }

  /** a expanded; `label` names the result. */
  expand(req: ExpandRequest, label: string): { result: Side<X>; notes: Note[] } {
    const a = this.loaded();
    this.progress("expansion…");
    return this.keep(expand(a.model, req), `${a.name} (${label})`);
  }

  /** a lowered for a target (`lower --target`): the new b, the notes, and what b still lacks. */
  lower(req: LowerRequest): { result: Side<X>; notes: Note[]; report: TargetReport } {
    const a = this.loaded();
    this.progress(`lowering for ${req.profile.name}…`);
    const r = lower(a.model, req);
    const kept = this.keep(r, `${a.name} (lowered for ${req.profile.name})`);
    return { ...kept, report: (r as Extract<typeof r, { ok: true }>).report };
  }

  private keep(r: TransformResult, name: string): { result: Side<X>; notes: Note[] } {
    if (!r.ok) throw new RefusedError(r.notes);
    const b = this.side({ name, model: r.model }, this.sides.a);
    this.sides = { ...this.sides, b };
    return { result: b, notes: r.notes };
  }

  private side(loaded: Loaded, from: Side<X> | undefined): Side<X> {
    return { ...loaded, view: this.prepare(loaded, from) };
  }

  /**
   * Runs a, and b when there is one, on the same inputs, each refused first when the command
   * line's run would refuse it (both before either runs), and compares their outputs. With
   * `perNode`, node times are the median of several runs (timedRuns), both sides in turn. A
   * failure with random inputs names the dims that were not given (set with `how`).
   */
  run(req: InputRequest, opts: RunOptions = {}, perNode = false, how = "name=value"): RunReport {
    const taken: TakenDim[] = [];
    try {
      const r = this.runOnce(req, opts, perNode, taken);
      return taken.length ? { ...r, taken } : r;
    } catch (e) {
      throw withTakenDims(e, taken, how);
    }
  }

  private runOnce(
    req: InputRequest,
    opts: RunOptions,
    perNode: boolean,
    taken: TakenDim[],
  ): RunReport {
    const a = this.loaded();
    const sides = this.sides.b ? [a, this.sides.b] : [a];
    let bound: Record<string, RValue> | undefined;
    const bind = () => {
      if (!bound) {
        taken.length = 0;
        bound = requestedInputs(a.model, req, taken);
      }
      return bound;
    };
    if (perNode) {
      // Every value kept, and every node timed, to paint the graph; if that does not fit the
      // budget, the plain run below still answers.
      const profiles = sides.map((): RunProfile => ({}));
      try {
        const t0 = Date.now();
        const r = runModels(
          sides,
          bind,
          (i) => ({ ...opts, keepIntermediates: true, keepBodyValues: true, profile: profiles[i] }),
          this.progress,
        );
        const outputsOf = (i: number) =>
          Object.fromEntries(
            sides[i]!.model.graph.outputs.map((o) => [o.name, r.outputs[i]![o.name]!]),
          );
        const times = sides.map((s, i) => nodeTimes(s.model, profiles[i]!));
        const runs = timedRuns(Date.now() - t0);
        for (let k = 1; k < runs; k++) {
          const again = sides.map((): RunProfile => ({}));
          runModels(sides, bind, (i) => ({ ...opts, profile: again[i] }), this.progress);
          sides.forEach((s, i) => {
            const t = nodeTimes(s.model, again[i]!);
            times[i]!.forEach((list, n) => list.push(t[n]![0]!));
          });
        }
        const graphMs = profiles.map((p) => p.graphs ?? new Map<Graph | Function, number[]>());
        const graphDiff = new Map<Graph, (Difference | null)[]>();
        if (sides.length > 1)
          for (const g of graphMs[1]!.keys())
            if ("initializers" in g)
              graphDiff.set(g, nodeDifferences(g, r.outputs[0]!, r.outputs[1]!));
        return {
          inputs: r.inputs,
          outputs: compareOutputs(outputsOf(0), sides.length > 1 ? outputsOf(1) : undefined),
          nodes: {
            ms: times.map((t) => t.map(median)),
            runs,
            ...(sides.length > 1
              ? {
                  diff: nodeDifferences(sides[1]!.model, r.outputs[0]!, r.outputs[1]!),
                  first: firstDivergence(sides[1]!.model, r.outputs[0]!, r.outputs[1]!),
                }
              : {}),
            graphs: { ms: graphMs, ...(sides.length > 1 ? { diff: graphDiff } : {}) },
          },
        };
      } catch (e) {
        if (!(e instanceof OnnxError) || !/budget|memory/i.test(e.message)) throw e;
        const plain = this.runOnce(req, opts, false, taken);
        return { ...plain, perNodeNote: `values per node not kept: ${e.message}` };
      }
    }
    const r = runModels(sides, bind, opts, this.progress);
    return { inputs: r.inputs, outputs: compareOutputs(r.outputs[0]!, r.outputs[1]) };
  }
}
