// A model from a file's name and bytes, decided by the one rule of io/format.ts, as the command
// line's loadModel (io/files.ts) decides on disk. No file system here, so the page can use it.

export { isTextPath as isTextModelName, looksBinary, modelFromBytes } from "../io/format.js";
