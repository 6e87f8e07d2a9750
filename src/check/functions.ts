// The one rule for which calls reach a model-local function: a node calls a local function of
// its (domain, op type, overload) unless that (domain, op) is an operator of the opset the model
// imports for the domain; then the operator wins, everywhere (run, expand, convert, the page),
// as onnxruntime resolves it, and the checker warns that the function can never be called.

import { FunctionTable, functionWhere, type IsOperator } from "../ir/functions.js";
import { opsetMap } from "../ir/opsets.js";
import type { Model } from "../ir/types.js";
import { SchemaRegistry } from "../schema/registry.js";
import type { OpRegistry } from "./report.js";

/** Whether (domain, name) is an operator at the opsets a model imports. */
export function operatorAt(model: Model, registry: OpRegistry): IsOperator {
  const opsets = opsetMap(model.opsetImports);
  return (domain, name) => {
    const opset = opsets.get(domain);
    return opset !== undefined && registry.tryResolve(domain, name, opset) !== undefined;
  };
}

const tables = new WeakMap<Model, { registry: OpRegistry; table: FunctionTable }>();

/**
 * The model's function table with operators shadowing functions of their name (see above);
 * worked out once per model object and registry.
 */
export function modelFunctions(model: Model, registry?: OpRegistry): FunctionTable {
  const reg = registry ?? SchemaRegistry.default();
  const known = tables.get(model);
  if (known && known.registry === reg) return known.table;
  const table = new FunctionTable(model.functions, operatorAt(model, reg));
  tables.set(model, { registry: reg, table });
  return table;
}

/** The warning for a local function an operator shadows, one line. */
export function shadowedWarning(f: Model["functions"][number]): { where: string; message: string } {
  return {
    where: functionWhere(f),
    message: `'${f.name}' is an operator of the imported opset, which every call runs: the function can never be called`,
  };
}
