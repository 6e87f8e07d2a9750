// Errors are values: a code a program can test, what they concern, and one line a user can act on.

export type ErrorCode =
  | "E_IO" // a file could not be read or written
  | "E_DECODE" // bytes are not a valid ONNX protobuf message
  | "E_PARSE" // ONNX text could not be parsed
  | "E_MODEL" // the model is structurally invalid (cycle, undefined value, ...)
  | "E_SCHEMA" // schema data is broken, or an operator/version is unknown
  | "E_CHECK" // the checker found problems
  | "E_UNSUPPORTED" // a valid model uses something this tool cannot handle
  | "E_RUNTIME" // execution failed (bad input, axis out of range, ...)
  | "E_USAGE"; // bad command-line usage

export class OnnxError extends Error {
  readonly code: ErrorCode;
  /** What the error concerns: a file path, "node 'n3' (ReduceSum)", "line 4:7", ... */
  readonly where?: string;

  constructor(code: ErrorCode, message: string, where?: string) {
    super(where ? `${where}: ${message}` : message);
    this.name = "OnnxError";
    this.code = code;
    this.where = where;
  }
}

/**
 * A function op's body cannot be built because a type it depends on is unknown (a value computed
 * by an op of a domain this tool does not know, or nothing declared): the call is valid, and is
 * kept as it is unless the user asked for it by name.
 */
export class UnknownTypeError extends OnnxError {
  constructor(message: string, where?: string) {
    super("E_UNSUPPORTED", message, where);
    this.name = "UnknownTypeError";
  }
}

export function isOnnxError(e: unknown): e is OnnxError {
  return e instanceof OnnxError;
}

/** Names a node for error messages: its name if it has one, else its index, and its op. */
export function nodeLabel(
  node: { name?: string; opType: string; domain?: string },
  index?: number,
): string {
  const op =
    node.domain && node.domain !== "ai.onnx" ? `${node.domain}.${node.opType}` : node.opType;
  if (node.name) return `node '${node.name}' (${op})`;
  return index === undefined ? `node (${op})` : `node #${index} (${op})`;
}
