"""Partitions by onnxruntime's own mobile usability checker, as JSON lines.

For each model given: the partition count and sizes its checker estimates for NNAPI and for CoreML
(ML Program), with fixed input sizes required (the checker's first pass), on the model as it is
(`raw`) and after onnxruntime's basic optimization (`optimized`, what the checker's command line
judges by default).

    python scripts/targets/ort-partitions.py MODEL.onnx [...]
"""

import json
import pathlib
import sys
import tempfile

import onnx
import onnxruntime
from onnxruntime.tools.mobile_helpers import usability_checker as uc
from onnxruntime.tools.onnx_model_utils import optimize_model


def judge(model: onnx.ModelProto) -> dict:
    try:
        m = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    except Exception:  # noqa: BLE001 (contrib ops: the checker would stop; infer what it can)
        m = onnx.shape_inference.infer_shapes(model)
    out = {}
    for name, info in (
        ("nnapi", lambda: uc.check_nnapi_partitions(m, True)),
        ("coreml", lambda: uc.check_coreml_partitions(m, True, "coreml_supported_mlprogram_ops.md")),
    ):
        try:
            p = info()
            out[name] = {
                "partitions": p.num_partitions,
                "sizes": [len(g) for g in p.supported_groups],
                "supported": p.num_supported_nodes,
                "nodes": p.num_nodes,
            }
        except Exception as e:  # noqa: BLE001
            out[name] = {"error": str(e).splitlines()[0][:200]}
    return out


for path in sys.argv[1:]:
    p = pathlib.Path(path)
    row = {"model": path, "onnxruntime": onnxruntime.__version__}
    row["raw"] = judge(onnx.load(str(p)))
    with tempfile.TemporaryDirectory() as tmp:
        q = pathlib.Path(tmp) / p.name
        try:
            optimize_model(p, q, use_external_initializers=True)
            row["optimized"] = judge(onnx.load(str(q)))
        except Exception as e:  # noqa: BLE001
            row["optimized"] = {"error": str(e).splitlines()[0][:200]}
    print(json.dumps(row), flush=True)
