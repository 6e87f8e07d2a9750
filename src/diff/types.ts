// The shape of a diff: what the matcher finds and the formatter prints.

export interface NodeRef {
  /** Index in its graph's node list. */
  index: number;
  name?: string;
  op: string;
  inputs: string[];
  outputs: string[];
  /** Attributes as text (`axis: int = 1`), subgraphs summarised. */
  attributes: string[];
}

export interface NodeChange {
  a: NodeRef;
  b: NodeRef;
  /** Attribute lines only in a / only in b. */
  removed: string[];
  added: string[];
  /** Changes inside the node's subgraphs, by attribute name. */
  subgraphs: { attribute: string; diff: GraphDiff }[];
}

/** Connected nodes of a that were replaced by connected nodes of b (either side may be empty). */
export interface Hunk {
  removed: NodeRef[];
  added: NodeRef[];
}

export interface ValueChange {
  name: string;
  a?: string;
  b?: string;
}

export interface GraphDiff {
  matched: number;
  hunks: Hunk[];
  changed: NodeChange[];
  inputs: ValueChange[];
  outputs: ValueChange[];
  initializers: ValueChange[];
}

export interface ModelDiff {
  same: boolean;
  irVersion?: { a: number; b: number };
  opsetImports: { domain: string; a?: number; b?: number }[];
  functions: { name: string; change: "added" | "removed" | "changed"; diff?: GraphDiff }[];
  graph: GraphDiff;
  /** Node counts, for the summary line. */
  nodes: { a: number; b: number };
}
