// Models with a malformed model-local function, as ONNX text, for the fuzz campaign's
// `--generator functions`: a function output the body never produces, a function with no
// outputs, a body with a type error, an output type the graph contradicts, a value defined twice,
// a body reading a value of its caller's scope, a function named as an operator (shadowed), and
// well-formed ones beside them. Case i depends only on the generator it is given.

import type { Random } from "../../src/interp/random.js";

export const FUNCTION_DEFECTS = [
  "valid",
  "missing-output",
  "no-outputs",
  "type-error",
  "output-type",
  "defined-twice",
  "outer-read",
  "shadows-operator",
  "shadows-input",
] as const;
export type FunctionDefect = (typeof FUNCTION_DEFECTS)[number];

const UNARY = ["Neg", "Abs", "Relu", "Exp", "Sigmoid", "Softsign", "Identity"] as const;
const BINARY = ["Add", "Mul", "Sub", "Max"] as const;
const OPERATOR_NAMES = ["Relu", "Abs", "Neg", "Softsign", "Add", "Identity"] as const;

/** A malformed (or, for "valid", well-formed) local function in a model, as text. */
export function malformedFunctionModel(rng: Random): { kind: FunctionDefect; text: string } {
  const kind = rng.pick(FUNCTION_DEFECTS);
  const opset = rng.range(14, 22);
  const shape = rng.chance(0.5) ? "[4]" : "[2,3]";
  const domain = kind === "shadows-operator" ? "" : rng.pick(["local", "custom.fn"]);
  const name = kind === "shadows-operator" ? rng.pick(OPERATOR_NAMES) : rng.pick(["F", "Block"]);
  const call = domain ? `${domain}.${name}` : name;
  const u = () => rng.pick(UNARY);
  const b = () => rng.pick(BINARY);
  // The body: a few nodes from the formal a (and m, an int64 input when typed wrong) to b.
  const body: string[] = [];
  let prev = "a";
  const steps = 1 + rng.int(3);
  for (let i = 0; i < steps; i++) {
    const out = i === steps - 1 ? "b" : `t${i}`;
    body.push(rng.chance(0.3) ? `${out} = ${b()} (${prev}, a)` : `${out} = ${u()} (${prev})`);
    prev = out;
  }
  let formals = "(a)";
  let outputs = "(b)";
  let args = "(x)";
  let graphInputs = `float${shape} x`;
  let graphOut = `float${shape} y`;
  const graphNodes: string[] = [];
  switch (kind) {
    case "missing-output":
      body[body.length - 1] = body[body.length - 1]!.replace(/^b =/, "c =");
      break;
    case "no-outputs":
      outputs = "()";
      graphNodes.push("y = Abs (x)");
      break;
    case "type-error":
      formals = "(a, m)";
      args = "(x, n)";
      graphInputs += `, int64${shape} n`;
      body.push(`b2 = ${b()} (m, b)`);
      outputs = rng.chance(0.5) ? "(b2)" : "(b)";
      break;
    case "output-type":
      graphOut = `${rng.pick(["int64", "int32", "double"])}${shape} y`;
      break;
    case "defined-twice":
      body.splice(rng.int(body.length + 1), 0, `${rng.chance(0.5) ? "b" : "a"} = ${u()} (a)`);
      break;
    case "outer-read":
      graphNodes.push("t = Abs (x)");
      body.push(`b3 = ${b()} (b, t)`);
      outputs = "(b3)";
      break;
    case "shadows-input":
      // A body value named as a graph value of the caller: legal, each scope has its own names.
      body.unshift(`x = ${u()} (a)`);
      body.push(`y = Identity (x)`);
      break;
  }
  if (!graphNodes.some((n) => n.startsWith("y ="))) graphNodes.push(`y = ${call} ${args}`);
  else graphNodes.push(`z = ${call} ${args}`);
  const imports = [`"" : ${opset}`, ...(domain ? [`"${domain}" : 1`] : [])].join(", ");
  const text = `<ir_version: 10, opset_import: [${imports}]>
g (${graphInputs}) => (${graphOut}) {
  ${graphNodes.join("\n  ")}
}
<domain: "${domain}", opset_import: ["" : ${opset}]>
${name} ${formals} => ${outputs} {
  ${body.join("\n  ")}
}
`;
  return { kind, text };
}
