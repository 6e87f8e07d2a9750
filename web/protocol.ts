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
  /** What the page should say of it (data files not opened with the model). */
  notes?: string[];
  /** Drawable graphs: the main graph, each subgraph, each local function. */
  views: { id: string; title: string; nodes: number }[];
  /** The model's metadata_props (key, value). */
  metadata?: [string, string][];
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
  /** The operator version's summary, when the registry knows it. */
  about?: SchemaSummary;
  /** Values of the node's inputs that are initializers or Constant outputs, and a Constant's own. */
  values: ValueSummary[];
}

/** What the registry says of an operator version, in short. */
export interface SchemaSummary {
  /** "ai.onnx" or the domain. */
  domain: string;
  name: string;
  since: number;
  /** The description's first sentence or paragraph. */
  description: string;
  inputs: { name: string; type: string; option: string }[];
  outputs: { name: string; type: string; option: string }[];
  attributes: { name: string; type: string; required: boolean }[];
  deprecated: boolean;
  /** The name ONNX's operator documentation uses for it (`Gelu`, `com.microsoft.Gelu`). */
  link: string;
}

/** A summary of a constant value (an initializer or a Constant's value), computed in the worker. */
export interface ValueSummary {
  name: string;
  source: "initializer" | "Constant";
  dtype: string;
  shape: number[];
  count: number;
  /** The first elements, as text. */
  head: string[];
  min?: number;
  max?: number;
  mean?: number;
  /** Why there are no values to show (external data, a dtype not read). */
  note?: string;
}

/** One search hit: a box of a view and the groups that hold it, outermost first. */
export interface FindHit {
  /** The view it is in (its id) and that view's title. */
  view: string;
  viewTitle: string;
  key: string;
  index: number;
  label: string;
  /** What matched: op, node name or value name. */
  match: string;
  groups: string[];
}

/** One step of change stepping: a changed box of a view and the groups that hold it. */
export interface ChangeStep {
  view: string;
  viewTitle: string;
  key: string;
  index: number;
  /** added / removed / changed. */
  mark: string;
  groups: string[];
}

/** The checker's problems of one side: the lines, and the boxes each one marks. */
export interface CheckSide {
  /** The report's heading, when it is not the checker's ("N problem(s)" / "valid"). */
  title?: string;
  lines: string[];
  /** The nodes lines name, with the groups that hold them (outermost first). */
  nodes: {
    view: string;
    index: number;
    line: number;
    groups: string[];
    /** A node the target takes in part (check --target's "partial"), marked in its own colour. */
    partial?: boolean;
  }[];
  /**
   * Against a target: the partitions the backend would form (check --target's), each node of
   * the main view with its partition's number (from 0), for the page to colour.
   */
  partitions?: { count: number; summary: string; nodes: { index: number; partition: number }[] };
}

/** A shipped target profile, as the target selector lists it. */
export interface TargetChoice {
  /** name@version: what `check` and `lower` take. */
  id: string;
  name: string;
  backend: string;
  date: string;
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
  /** A hash of a numeric tensor's bytes (FNV-1a, hex), to compare runs byte for byte. */
  digest?: string;
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
  /** Threads that computed the run's matrix products: 1, or more with helper threads. */
  threads: number;
  /** The run's time in the worker (both sides, with a result). */
  ms: number;
  inputs: ValueStats[];
  outputs: RunRow[];
  /**
   * Numbers to paint on the main views, by box key (`n<i>` nodes, `g…` groups): per side each
   * node's time (ms; a group's is its nodes' sum), and for the result each node's largest
   * absolute and relative difference from the original's value of the same name, null where it
   * has no match (a group: its largest). Absent when the run could not keep every value.
   */
  paint?: {
    ms: Partial<Record<SideName, Record<string, number>>>;
    /** How many runs the times are the median of. */
    runs: number;
    diff?: Record<string, [number, number] | null>;
    /**
     * With a result: its first divergence from the original (src/app/divergence.ts), the node's
     * box key and how far its values are apart; null when no matched value differs.
     */
    first?: {
      key: string;
      label: string;
      ulps: number;
      abs: number;
      count: number;
      total: number;
    } | null;
    /**
     * The same for each other view that ran (subgraphs, local functions), per side and view id:
     * a subgraph's times summed over its runs, its values those of its last run.
     */
    views?: Partial<
      Record<
        SideName,
        Record<
          string,
          { ms?: Record<string, number>; diff?: Record<string, [number, number] | null> }
        >
      >
    >;
  };
  /** With random inputs: the symbolic dims not given, with the sizes taken and why. */
  taken?: { name: string; value: number; why?: string }[];
  /** Why there is nothing to paint. */
  paintNote?: string;
}

export type ExpandMode = "all" | "only" | "keep";

/**
 * A file of a model given to the worker: picked (a Blob), or served by `onnx-expand inspect` (a
 * same-origin URL the worker reads in ranges). Either is read where a tensor's bytes lie.
 */
export type OpenedFile = { name: string; blob: Blob } | { name: string; url: string };

export type Request =
  /** A model and its data files (names are paths inside a picked folder, else file names). */
  | { op: "load"; files: OpenedFile[] }
  | { op: "layout"; side: SideName; view: string; options: LayoutOptions }
  | { op: "marks"; side: SideName; view: string }
  | { op: "details"; side: SideName; view: string; index: number }
  | { op: "convert"; opset: number }
  | { op: "expand"; mode: ExpandMode; ops: string }
  /** The ONNX checker, or with `target` (a TargetChoice id) every node against that profile. */
  | { op: "check"; target?: string }
  /**
   * `lower --target`: the target's id, fixed dims (`batch=1,sequence=128`), declared input ranges
   * (`--input-range`: `attention_mask=0:1`; "" or absent: none), and a half precision to compute
   * in afterwards (`--precision float16 --clamp`; "" or absent: float32).
   */
  | { op: "lower"; target: string; dims: string; ranges?: string; precision?: string }
  | { op: "limits" }
  /** A search of every view of a side: the main graph, subgraphs, local functions. */
  | { op: "find"; side: SideName; query: string }
  /** The changed boxes of every view of a side, in stepping order. */
  | { op: "changes"; side: SideName; constantsAsNodes: boolean }
  | { op: "pair"; side: SideName; view: string; index: number }
  | { op: "groups"; side: SideName; view: string; index: number }
  /** `name`: the model file's name, which its data file's name (`<name>.data`) follows. */
  | { op: "download"; side: SideName; format: "binary" | "text"; name: string }
  | ({ op: "run" } & InputRequest);

/** The result of each request, by op. */
export interface Answers {
  load: Summary;
  layout: Layout;
  marks: [number, string][];
  details: NodeDetails;
  convert: TransformAnswer;
  expand: TransformAnswer;
  check: Partial<Record<SideName, CheckSide>>;
  limits: { maxOpset: number; targets: TargetChoice[] };
  lower: TransformAnswer;
  find: FindHit[];
  changes: ChangeStep[];
  /**
   * The node of the other side the diff matched with this one; for a node without a match (an
   * addition, a removal), the match of its nearest matched neighbour (`near`); null: none.
   */
  pair: { view: string; index: number; near?: boolean } | null;
  /** Keys of the groups enclosing a node, outermost first. */
  groups: string[];
  /** The model file, and its data file when the result keeps tensors in one. */
  download: { name: string; blob: Blob }[];
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
  /**
   * A large result (a layout) as JSON text in UTF-8, transferred: its big arrays first, a slice of
   * each per message (`part`: the field the slice belongs to), then the rest (`ok`). Each message
   * is parsed in a task of its own, so that no single task holds the page; and parsing JSON costs
   * it far less than the structured clone of tens of thousands of small objects.
   */
  | { id: number; part: string; json: Uint8Array }
  | { id: number; ok: true; json: Uint8Array }
  /** `marked`: a refused transform's problem lines with the original's nodes they name. */
  | { id: number; ok: false; error: string; notes: string[]; marked?: CheckSide }
  | { progress: string };
