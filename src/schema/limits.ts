// What parts of onnxruntime's contrib ops this tool does not take, stated once for the schema
// layer's bodies and the interpreter's kernels (a leaf module: no imports).

/**
 * GroupQueryAttention's inputs that neither its body nor the interpreter's kernel takes (by index):
 * one list, so that the two refuse the same nodes.
 */
export const GQA_UNSUPPORTED_INPUTS = [
  [11, "head_sink"],
  [12, "k_scale"],
  [13, "v_scale"],
  [14, "q_norm_weight"],
  [15, "k_norm_weight"],
] as const;
