// Node-only: tensor data stored in a file beside the model is read from disk. The web build
// replaces this module by external.web.ts (a page has no files beside the model).

export { loadExternalData } from "../io/files.js";
