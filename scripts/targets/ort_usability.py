"""onnxruntime's own usability checker, for CoreML ML Program and NNAPI, as JSON lines.

For each model given, the partitions onnxruntime's partitioner would form for the two execution
providers the project's coreml and nnapi profiles describe, with fixed input shapes required (the
checker's first pass): as `python -m onnxruntime.tools.check_onnx_model_mobile_usability MODEL`
judges it (the model optimized at onnxruntime's basic level, then ONNX shape inference) in
"coreml" and "nnapi", and on the model as it is (shape inference only) in "raw". One JSON object
per model: {"model", "onnxruntime", "coreml", "nnapi", "raw": {"coreml", "nnapi"}}, each estimate
with nodes, supported, partitions, sizes, unsupportedOps, dynamicInputNodes, rankNodes, or
{"error"}; a model that cannot be read at all is {"model", "error"}.

    python scripts/targets/ort_usability.py MODEL.onnx [...]
"""

import json
import pathlib
import sys
import tempfile

import onnx
import onnxruntime
from onnxruntime.tools.mobile_helpers import usability_checker as uc
from onnxruntime.tools.onnx_model_utils import ModelProtoWithShapeInfo, optimize_model


def summary(info):
    return {
        "nodes": info.num_nodes,
        "supported": info.num_supported_nodes,
        "partitions": info.num_partitions,
        "sizes": [len(g) for g in info.supported_groups],
        "unsupportedOps": sorted(op.split(":", 1)[1] if op.startswith("ai.onnx:") else op for op in info.unsupported_ops),
        "dynamicInputNodes": info.nodes_unsupported_due_to_dynamic_input,
        "rankNodes": info.num_unsupported_nodes_due_to_rank,
    }


def first_line(e):
    return f"{type(e).__name__}: {e}".splitlines()[0][:200]


def estimates(model):
    out = {}
    for name, check in (
        ("coreml", lambda: uc.check_coreml_partitions(model, True, "coreml_supported_mlprogram_ops.md")),
        ("nnapi", lambda: uc.check_nnapi_partitions(model, True)),
    ):
        try:
            out[name] = summary(check())
        except Exception as e:  # noqa: BLE001 (one EP's failure is that EP's entry)
            out[name] = {"error": first_line(e)}
    return out


def as_is(path):
    """The model with shapes inferred (strictly where it can be: contrib ops stop strict mode)."""
    model = onnx.load(str(path))
    try:
        return onnx.shape_inference.infer_shapes(model, strict_mode=True)
    except Exception:  # noqa: BLE001
        return onnx.shape_inference.infer_shapes(model)


def judge(path):
    path = pathlib.Path(path)
    row = {"model": str(path), "onnxruntime": onnxruntime.__version__}
    with tempfile.TemporaryDirectory() as tmp:
        optimized = pathlib.Path(tmp) / path.name
        try:
            optimize_model(path, optimized, use_external_initializers=True)
            row.update(estimates(ModelProtoWithShapeInfo(optimized.resolve(strict=True)).model_with_shape_info))
        except Exception as e:  # noqa: BLE001
            row.update({"coreml": {"error": first_line(e)}, "nnapi": {"error": first_line(e)}})
    row["raw"] = estimates(as_is(path))
    return row


if __name__ == "__main__":
    for p in sys.argv[1:]:
        try:
            print(json.dumps(judge(p)), flush=True)
        except Exception as e:  # noqa: BLE001 (one model's failure is that model's line)
            print(json.dumps({"model": p, "error": first_line(e)}), flush=True)
