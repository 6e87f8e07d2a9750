"""onnxruntime's own usability checker, for CoreML ML Program and NNAPI, as JSON.

Runs what `python -m onnxruntime.tools.check_onnx_model_mobile_usability MODEL` runs (the model
optimized at onnxruntime's basic level, ONNX shape inference, then the partitioner's estimate
with fixed input shapes required) for the two execution providers the project's coreml and nnapi
profiles describe, and prints one JSON object per model given:
{"model", "coreml": {...}, "nnapi": {...}}, each with nodes, supported, partitions, sizes,
unsupportedOps, dynamicInputNodes, rankNodes.
"""

import json
import pathlib
import sys
import tempfile

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


def judge(path):
    path = pathlib.Path(path)
    with tempfile.TemporaryDirectory() as tmp:
        optimized = pathlib.Path(tmp) / path.name
        optimize_model(path, optimized, use_external_initializers=True)
        model = ModelProtoWithShapeInfo(optimized.resolve(strict=True)).model_with_shape_info
        nnapi = uc.check_nnapi_partitions(model, True)
        coreml = uc.check_coreml_partitions(model, True, "coreml_supported_mlprogram_ops.md")
    return {"model": str(path), "coreml": summary(coreml), "nnapi": summary(nnapi)}


if __name__ == "__main__":
    for p in sys.argv[1:]:
        try:
            print(json.dumps(judge(p)), flush=True)
        except Exception as e:  # one model's failure is that model's line
            print(json.dumps({"model": p, "error": f"{type(e).__name__}: {e}".splitlines()[0]}), flush=True)
