// Node-only: tensor data stored in a file beside the model is read from disk. The web build
// replaces this module by external.web.ts (the page resolves data files when it opens a model).

export { readExternalData } from "../io/files.js";
