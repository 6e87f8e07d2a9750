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
  /** Nodes of this graph's own list matched (changed ones included). */
  matched: number;
  /**
   * Nodes matched and changed at every depth: this graph's, and those in the subgraphs of its
   * matched nodes (a subgraph the same on both sides counts all its nodes as matched).
   */
  deep: { matched: number; changed: number };
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
  /** Node counts of the main graph's own list (what a pane draws), for the summary line. */
  nodes: { a: number; b: number };
  /**
   * Every graph (the main graph's subgraphs, model-local functions and theirs): nodes on each
   * side, and those matched and changed (a function the same on both sides all matched).
   */
  allNodes: { a: number; b: number; matched: number; changed: number };
}
