"""Dumps onnxruntime's own schemas of the ops its tools write into deployed models.

The facts (inputs, outputs, attributes with their types and defaults, type constraints, counts,
versions) of the com.microsoft ops that onnxruntime's quantizer, transformers optimizer and graph
optimizations write, and of the ops onnxruntime registers itself in the ONNX domain
(LayerNormalization-1, SimplifiedLayerNormalization-1), read from the installed onnxruntime
(`get_all_operator_schema`), go to schemas/_contrib/onnxruntime.json with the release they come
from. scripts/gen-schemas.mjs turns them, with the hand-written overlays, into schemas/ files.

    corpus/venv/bin/python scripts/gen-contrib-facts.py [--out PATH]
"""

import argparse
import json
import os

import onnx
import onnxruntime
import onnxruntime.capi.onnxruntime_pybind11_state as C

MS = [
    "Attention", "BiasAdd", "BiasGelu", "DequantizeLinear", "DynamicQuantizeLSTM", "DynamicQuantizeMatMul",
    "EmbedLayerNormalization", "FastGelu", "FusedConv", "FusedMatMul", "Gelu", "GroupQueryAttention",
    "MatMulIntegerToFloat", "MatMulNBits", "MultiHeadAttention", "QGemm", "QLinearAdd", "QLinearAveragePool",
    "QLinearConcat", "QLinearGlobalAveragePool", "QLinearLeakyRelu", "QLinearMul", "QLinearSigmoid",
    "QLinearSoftmax", "QuantizeLinear", "QuickGelu", "RotaryEmbedding", "SkipLayerNormalization",
    "SkipSimplifiedLayerNormalization",
]
# Registered by onnxruntime in the ONNX domain, at versions ONNX itself does not have.
ONNX_DOMAIN = ["LayerNormalization", "SimplifiedLayerNormalization"]

ATTR_TYPES = {
    "FLOAT": "FLOAT", "INT": "INT", "STRING": "STRING", "TENSOR": "TENSOR", "GRAPH": "GRAPH",
    "FLOATS": "FLOATS", "INTS": "INTS", "STRINGS": "STRINGS", "TENSORS": "TENSORS", "GRAPHS": "GRAPHS",
    "SPARSE_TENSOR": "SPARSE_TENSOR", "TYPE_PROTO": "TYPE_PROTO",
}
OPTION = {0: "single", 1: "optional", 2: "variadic"}


def default(a):
    raw = a._default_value
    if not raw:
        return None
    p = onnx.AttributeProto()
    p.ParseFromString(raw)
    if not p.type:
        return None
    v = onnx.helper.get_attribute_value(p)
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, float):
        # The float32 the attribute holds, written as the shortest decimal that reads back to it.
        import numpy as np

        return float(np.format_float_positional(np.float32(v), unique=True, trim="-"))
    if isinstance(v, list):
        return [x.decode() if isinstance(x, bytes) else x for x in v]
    return v


def formal(f):
    out = {"name": f.name, "type": f.typeStr, "option": OPTION[int(f.option.value)]}
    if out["option"] == "variadic":
        out["homogeneous"] = bool(f.isHomogeneous)
        out["min_arity"] = 1  # not exposed by onnxruntime's bindings; ONNX's default
    return out


def version(s):
    return {
        "since": s.since_version,
        "attributes": sorted(
            [
                {"name": a.name, "type": ATTR_TYPES[str(a.type).split(".")[-1]], "required": bool(a.required),
                 **({"default": d} if (d := default(a)) is not None else {})}
                for a in s.attributes.values()
            ],
            key=lambda a: a["name"],
        ),
        "inputs": [formal(f) for f in s.inputs],
        "outputs": [formal(f) for f in s.outputs],
        "min_inputs": s.min_input,
        "max_inputs": s.max_input,
        "min_outputs": s.min_output,
        "max_outputs": s.max_output,
        "type_constraints": [{"name": t.type_param_str, "allowed": sorted(t.allowed_type_strs)}
                             for t in s.type_constraints],
    }


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "schemas", "_contrib", "onnxruntime.json"))
    a = ap.parse_args()
    schemas = C.get_all_operator_schema()
    onnx_versions = {(s.name, s.since_version) for s in onnx.defs.get_all_schemas_with_history() if s.domain == ""}
    ops = {}
    for s in schemas:
        if s.domain == "com.microsoft" and s.name in MS:
            ops.setdefault(("com.microsoft", s.name), []).append(version(s))
        elif s.domain == "" and s.name in ONNX_DOMAIN and (s.name, s.since_version) not in onnx_versions:
            ops.setdefault(("", s.name), []).append(version(s))
    missing = [n for n in MS if ("com.microsoft", n) not in ops] + [n for n in ONNX_DOMAIN if ("", n) not in ops]
    if missing:
        raise SystemExit(f"onnxruntime {onnxruntime.__version__} lacks {missing}")
    out = {
        "onnxruntime": onnxruntime.__version__,
        "operators": [
            {"domain": d, "name": n, "versions": sorted(v, key=lambda x: x["since"])}
            for (d, n), v in sorted(ops.items())
        ],
    }
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"gen-contrib-facts: {len(ops)} operators of onnxruntime {onnxruntime.__version__} -> {a.out}")


if __name__ == "__main__":
    main()
