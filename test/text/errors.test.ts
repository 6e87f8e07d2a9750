// Malformed ONNX text: one E_PARSE error saying what was expected and what was found, at the
// right line and column.

import { describe, expect, it } from "vitest";
import { OnnxError } from "../../src/errors.js";
import {
  parseFunctionText,
  parseGraphText,
  parseModelText,
  parseNodeListText,
  parseTypeText,
} from "../../src/text/parse.js";

function parseError(f: () => unknown): OnnxError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(OnnxError);
    expect((e as OnnxError).code).toBe("E_PARSE");
    expect((e as OnnxError).message).not.toContain("\n");
    return e as OnnxError;
  }
  throw new Error("no error was raised");
}

describe("parse errors", () => {
  const cases: [string, () => unknown, string, RegExp][] = [
    [
      "unclosed input list",
      () => parseGraphText("g (float x) => (float y) {\n  y = Abs (x\n}", "m.onnxtxt"),
      "m.onnxtxt:3:1",
      /expected ',' or '\)', found '\}'/,
    ],
    [
      "misspelt type",
      () => parseGraphText("g (float x,\n   flaot[2] w) => (y) {}", "m.onnxtxt"),
      "m.onnxtxt:2:4",
      /expected a type .* found 'flaot'/,
    ],
    [
      "too few tensor values",
      () => parseGraphText("g () => (y)\n  <float[3] w = {1.0, 2.0}> {}"),
      "line 2:17",
      /float\[3\] needs 3 values, found 2/,
    ],
    [
      "too many tensor values",
      () => parseGraphText("g () => (y) <float[1] w = {1.0, 2.0}> {}"),
      "line 1:33",
      /needs 1 value, found 2/,
    ],
    [
      "unclosed string",
      () => parseNodeListText('y = Op <s = "abc> (x)'),
      "line 1:13",
      /string is not closed/,
    ],
    [
      "unknown header field",
      () => parseModelText("<\n  ir_versio: 8> g () => () {}"),
      "line 2:3",
      /unknown model header field 'ir_versio'/,
    ],
    [
      "integer out of range",
      () => parseNodeListText("y = Constant <value = int8[1] {128}> ()"),
      "line 1:32",
      /128 is out of range for int8/,
    ],
    [
      "float for an int attribute",
      () => parseNodeListText("y = Op <k: int = 1.5> ()"),
      "line 1:18",
      /declared int but its value is a float/,
    ],
    [
      "empty list without a type",
      () => parseNodeListText("y = Op <axes = []> ()"),
      "line 1:16",
      /needs a type: write axes: ints = \[\]/,
    ],
    [
      "stray character",
      () => parseNodeListText("y = Op $ ()"),
      "line 1:8",
      /unexpected character "\$"/,
    ],
    [
      "unterminated node list",
      () => parseGraphText("g () => () {\n y = Abs (x)\n"),
      "line 3:1",
      /expected a node or '\}', found end of input/,
    ],
    [
      "trailing text",
      () => parseTypeText("float[2] x"),
      "line 1:10",
      /expected end of input, found 'x'/,
    ],
    [
      "missing '=' in a node",
      () => parseNodeListText("\n\n   y Op (x)"),
      "line 3:6",
      /expected ',' or '=' after the node's outputs, found 'Op'/,
    ],
    [
      "wrong value type in a header",
      () => parseFunctionText("<domain: 1> F () => () {}"),
      "line 1:10",
      /expected a string, found number 1/,
    ],
    [
      "negative uint64",
      () => parseNodeListText("y = Constant <value = uint64[1] {-1}> ()"),
      "line 1:34",
      /-1 is out of range for uint64/,
    ],
    [
      "unquoted name starting with a digit",
      () => parseNodeListText("1y = Abs (x)"),
      "line 1:1",
      /must be quoted/,
    ],
    [
      "elided data",
      () => parseGraphText("g () => () <float[100] w = ...> {}"),
      "line 1:28",
      /elided/,
    ],
    [
      "column counts characters, not UTF-16 units",
      () => parseNodeListText('y = Op <s = "😀😀"> ($)'),
      "line 1:20",
      /unexpected character/,
    ],
  ];
  for (const [name, f, where, message] of cases) {
    it(name, () => {
      const e = parseError(f);
      expect(e.where).toBe(where);
      expect(e.message).toMatch(message);
      expect(e.message.startsWith(`${where}: `)).toBe(true);
    });
  }
});
