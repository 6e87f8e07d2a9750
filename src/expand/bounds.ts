// The bound on expansion lives with inlining (src/inline/bounds.ts), which the converter's copies
// per call signature share; the expander's commands read its default from here.

export * from "../inline/bounds.js";
