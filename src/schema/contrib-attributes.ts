// What onnxruntime's contrib kernels (1.30) refuse in their attributes and the shapes those
// attributes describe, as data beside the contrib schemas (schemas/com.microsoft.*.json): a node
// that breaks a rule is refused at session creation or at its first run by onnxruntime, and the
// checker reports it (`kernel-attribute`), so that check, run, expand and lower refuse it alike.
// Each rule is checked where its facts are known (an attribute given or defaulted, a static dim).

/** A rule about one op's attributes (attribute names are the schema's; `input` counts from 0). */
export type KernelAttributeRule =
  /** The attribute is above 0 (when given). */
  | { kind: "positive"; attribute: string }
  /** The attribute is one of the values (when given). */
  | { kind: "one-of"; attribute: string; values: readonly string[] }
  /** The attribute divides the other attribute. */
  | { kind: "divides-attribute"; attribute: string; of: string }
  /** The attribute divides dim `axis` of input `input` (when static). */
  | { kind: "divides-dim"; attribute: string; input: number; axis: number }
  /** Dim `axis` of input `input` equals dim `otherAxis` of input `other` (when both static). */
  | { kind: "dims-equal"; input: number; axis: number; other: number; otherAxis: number }
  /** Dim `axis` of input `input` is a multiple of `factor` (when static), unless `unless` is given. */
  | { kind: "dim-multiple"; input: number; axis: number; factor: number; unless?: string }
  /** Input `input` holds 1 element or as many as dim `axis` of input `other` (when static). */
  | { kind: "count-one-or-dim"; input: number; other: number; axis: number }
  /** Input `input`'s values are 0 or more (when it is a constant). */
  | { kind: "non-negative-input"; input: number; name: string }
  /** MatMulNBits' zero points: N × ceil(blocks × bits / 8) packed bytes, or N × blocks values. */
  | { kind: "nbits-zero-points"; input: number };

/** The rules by op ("domain.Op"; ai.onnx ops by name), with the kernel check each comes from. */
export const KERNEL_ATTRIBUTE_RULES: Readonly<Record<string, readonly KernelAttributeRule[]>> =
  Object.freeze(
    Object.assign(Object.create(null) as Record<string, readonly KernelAttributeRule[]>, {
      // attention_base.cc: num_heads > 0, hidden_size % num_heads == 0; weights [hidden, 3*hidden]
      "com.microsoft.Attention": [
        { kind: "positive", attribute: "num_heads" },
        { kind: "divides-dim", attribute: "num_heads", input: 0, axis: 2 },
        { kind: "dims-equal", input: 1, axis: 0, other: 0, otherAxis: 2 },
        { kind: "dim-multiple", input: 1, axis: 1, factor: 3, unless: "qkv_hidden_sizes" },
      ],
      // group_query_attention.h: num_heads % kv_num_heads == 0 (so kv_num_heads <= num_heads)
      "com.microsoft.GroupQueryAttention": [
        { kind: "positive", attribute: "num_heads" },
        { kind: "positive", attribute: "kv_num_heads" },
        { kind: "divides-attribute", attribute: "kv_num_heads", of: "num_heads" },
        // group_query_attention_helper.h: a length is 0 or more (also checked when it runs)
        { kind: "non-negative-input", input: 5, name: "seqlens_k" },
      ],
      // deep_cpu_lstm / dynamic_quantize_lstm.cc: hidden_size > 0, a known direction
      "com.microsoft.DynamicQuantizeLSTM": [
        { kind: "positive", attribute: "hidden_size" },
        { kind: "one-of", attribute: "direction", values: ["forward", "reverse", "bidirectional"] },
      ],
      // matmul_nbits.cc: zero_points of the blocks' count
      "com.microsoft.MatMulNBits": [
        { kind: "positive", attribute: "K" },
        { kind: "positive", attribute: "N" },
        { kind: "positive", attribute: "block_size" },
        { kind: "nbits-zero-points", input: 3 },
      ],
      // qlinearconv.cc (ai.onnx QLinearConv): a weight zero point per output channel, or one
      QLinearConv: [{ kind: "count-one-or-dim", input: 5, other: 3, axis: 0 }],
    }),
  );
