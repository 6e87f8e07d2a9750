// ONNX text syntax: printer and parser (onnx/onnx docs/Syntax.md).
//
// Extensions beyond Syntax.md, used only where the syntax has no form for what a model holds:
// - names that are not plain identifiers may be quoted everywhere a name appears (attribute
//   names, operator types, overloads, opaque type names); a domain that is not a dotted
//   identifier is a quoted string before '.': "my-domain".Op
// - NaN with a non-canonical payload: nan(0x7fc00001); float16/bfloat16 integers are bit patterns
// - sparse tensors: sparse_tensor(float[3,4]) {float[2] {1.0, 2.0}, int64[2] {0, 7}} as attribute
//   values, and `sparse_tensor(float[3,4]) name = {values, indices}` as sparse initializers
// - tensor(float) is a float tensor of unknown rank; `undefined` is element type 0
// - a function header may carry metadata_props; node labels may also be written `name: outs = Op()`
// Not representable (dropped by the printer): doc strings other than the model's and functions',
// metadata_props other than the model's and functions', type and dimension denotations, tensor
// segments, quantization annotations, training info, device configurations.

export {
  parseFunctionText,
  parseGraphText,
  parseModelText,
  parseNodeListText,
  parseTypeText,
} from "./parse.js";
export {
  ELIDE_LIMIT,
  printAttribute,
  printFunction,
  printGraph,
  printModel,
  printNode,
  printTensor,
  printType,
  printValueInfo,
  type PrintOptions,
} from "./print.js";
export { tensorBytes } from "./values.js";
