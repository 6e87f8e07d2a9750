// What the operator registry knows, for tests that must not drift when schemas/ gains an opset.

import { SchemaRegistry } from "../../src/schema/registry.js";

/** The newest ai.onnx opset any operator of the registry is defined at. */
export const NEWEST_OPSET = SchemaRegistry.default().maxOpset("");
