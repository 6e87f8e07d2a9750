// A structural diff of two models (matched by structure, not by position or generated names), to
// see what a conversion or an expansion changed; and the diff as text or as counts.

export { diffGraphs } from "./match.js";
export { countsText, diffModels, diffCounts, type DiffCounts, type NodeTally } from "./model.js";
export { formatDiff } from "./format.js";
export type { GraphDiff, Hunk, ModelDiff, NodeChange, NodeRef, ValueChange } from "./types.js";
