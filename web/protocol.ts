// The messages between the inspector page (main.ts) and its worker (worker.ts). The page sends a
// Request with an id; the worker answers with a Reply of the same id, whose result is the Answers
// entry of the request's op, or an error with the problem lines that explain it. Progress
// messages (no id) say what the worker is doing.

import type { InputRequest } from "../src/app/inputs.js";
import type { DiffCounts } from "../src/diff/index.js";
import type { ModelInfo } from "../src/ir/info.js";
import type { Layout, LayoutOptions } from "./graph/types.js";

export type SideName = "a" | "b";

/** What the page shows of a loaded model or a result. */
export interface Summary {
  name: string;
  info: ModelInfo;
  problems: string[];
  /** Drawable graphs: the main graph, each subgraph, each local function. */
  views: { id: string; title: string; nodes: number }[];
}

export interface NodeDetails {
  op: string;
  domain: string;
  name: string;
  opset: number | null;
  schema:
    | { kind: "schema"; since: number; function: boolean; inputs: string[]; outputs: string[] }
    | { kind: string; since: null; function: boolean; inputs?: undefined; outputs?: undefined };
  mark: string | null;
  inputs: { name: string; type: string }[];
  outputs: { name: string; type: string }[];
  attributes: string[];
  subviews: { id: string; title: string }[];
}

export interface TransformAnswer {
  summary: Summary;
  diff: DiffCounts;
  /** The transform's notes, one line each. */
  notes: string[];
}

export interface ValueStats {
  name: string;
  shape: number[];
  dtype: number;
  /** The first values, or the kind of a value that is not a tensor. */
  head: string;
}

export interface RunRow {
  name: string;
  a: ValueStats;
  /** With a result: its output of this name, and the largest differences. */
  b?: ValueStats;
  abs?: number;
  rel?: number;
  note?: string;
}

export interface RunAnswer {
  inputs: ValueStats[];
  outputs: RunRow[];
}

export type ExpandMode = "all" | "only" | "keep";

export type Request =
  | { op: "load"; name: string; bytes: Uint8Array }
  | { op: "layout"; side: SideName; view: string; options: LayoutOptions }
  | { op: "marks"; side: SideName; view: string }
  | { op: "details"; side: SideName; view: string; index: number }
  | { op: "convert"; opset: string }
  | { op: "expand"; mode: ExpandMode; ops: string }
  | { op: "check" }
  | { op: "download"; side: SideName; format: "binary" | "text" }
  | ({ op: "run" } & InputRequest);

/** The result of each request, by op. */
export interface Answers {
  load: Summary;
  layout: Layout;
  marks: [number, string][];
  details: NodeDetails;
  convert: TransformAnswer;
  expand: TransformAnswer;
  check: Partial<Record<SideName, string[]>>;
  download: Uint8Array;
  run: RunAnswer;
}

export type Op = Request["op"];
export type RequestOf<K extends Op> = Extract<Request, { op: K }>;
/** A request's fields other than its op (each member of a union kept apart). */
export type ArgsOf<K extends Op> =
  RequestOf<K> extends infer R ? (R extends unknown ? Omit<R, "op"> : never) : never;

/** Page to worker. */
export type Envelope = Request & { id: number };

/** Worker to page. */
export type Reply =
  | { id: number; ok: true; result: Answers[Op] }
  | { id: number; ok: false; error: string; notes: string[] }
  | { progress: string };
