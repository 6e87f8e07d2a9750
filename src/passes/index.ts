// Passes: the contract every model transform follows (see pass.ts).

export * from "./pass.js";
