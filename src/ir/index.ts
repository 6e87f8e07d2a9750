export * from "./types.js";
export * from "./dtype.js";
export * from "./tensor.js";
export * from "./traverse.js";
export * from "./graph.js";
export * from "./builder.js";
export * from "./attributes.js";
