// Models the checker rejects whose rewrite would be wrong (issue 16, item 5), and models it
// accepts that a rewrite must keep taking: ONNX text, by name.

const header = `<ir_version: 8, opset_import: ["" : 18, "local" : 1]>`;
const fn = (sig: string, body: string) =>
  `<domain: "local", opset_import: ["" : 18]>\n${sig} {\n${body}\n}`;

/** Each invalid case: the model, and what the one-line refusal names. */
export const INVALID: Record<string, { text: string; names: RegExp }> = {
  "a function output the body never produces": {
    text: `${header}
g (float[4] x) => (float[4] y) { y = local.F (x) }
${fn("F (a) => (b)", "c = Neg (a)")}`,
    names: /function output 'b' is not produced/,
  },
  "a function with no outputs": {
    text: `${header}
g (float[4] x) => (float[4] y) {
  y = Abs (x)
  z = local.F (x)
}
${fn("F (a) => ()", "b = Neg (a)")}`,
    names: /function 'local\.F' has 0 outputs, the node asks for 1/,
  },
  "a body with a type error": {
    text: `${header}
g (float[4] x, int64[4] n) => (float[4] y) { y = local.F (x, n) }
${fn("F (a, m) => (b)", "b = Add (m, a)")}`,
    names: /Add-14 needs 'm' and 'a' to have the same type/,
  },
  "a body output type that contradicts the graph": {
    text: `${header}
g (float[4] x) => (int64[4] y) { y = local.F (x) }
${fn("F (a) => (b)", "b = Neg (a)")}`,
    names: /output 'y' is declared as int64\[4\] but inferred as float\[4\]/,
  },
  "a value defined twice": {
    text: `${header}
g (float[4] x) => (float[4] y) { y = local.F (x) }
${fn("F (a) => (b)", "b = Neg (a)\nb = Abs (a)")}`,
    names: /value 'b' is defined twice/,
  },
  "a body that reads a value of its caller's scope": {
    text: `${header}
g (float[4] x) => (float[4] y) {
  t = Abs (x)
  y = local.F (x)
}
${fn("F (a) => (b)", "b = Add (a, t)")}`,
    names: /function 'local\.F', node #0 \(Add\): input 't' is not defined/,
  },
};

/** A com.microsoft op (a domain the registry does not know): valid for expand and convert. */
export const CONTRIB = `<ir_version: 8, opset_import: ["" : 18, "com.microsoft" : 1]>
g (float[4] x) => (y, float[4] u) {
  y = com.microsoft.Gelu (x)
  u = Relu (x)
}`;

/** A local function in domain "" named as an operator of the imported opset (issue 16, item 4). */
export const SHADOWED = `<ir_version: 8, opset_import: ["" : 18]>
g (float[4] x) => (float[4] y) { y = Relu (x) }
<domain: "", opset_import: ["" : 18]>
Relu (a) => (b) { b = Neg (a) }`;
