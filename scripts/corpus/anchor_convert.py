"""The anchors' opset converters on one model, for scripts/corpus/deployed-report.ts: ONNX
1.23.1's onnx.version_converter and onnxscript's version_converter (without its fallback to ONNX's),
each writing the converted model or one line saying why it could not.

A long-lived process: reads lines `TOOL TARGET IN OUT` on stdin (TOOL: onnx | onnxscript) and
answers one JSON line each: {"ok": true} or {"ok": false, "error": "..."}.
"""

import json
import sys
import warnings

import onnx

warnings.filterwarnings("ignore")


def convert(tool: str, target: int, src: str, dst: str) -> None:
    m = onnx.load(src)
    if tool == "onnx":
        out = onnx.version_converter.convert_version(m, target)
        onnx.save(out, dst)
    else:
        import onnx_ir as ir
        from onnxscript import version_converter

        model = ir.serde.deserialize_model(m)
        version_converter.convert_version(model, target, fallback=False)
        onnx.save(ir.serde.serialize_model(model), dst)


for line in sys.stdin:
    tool, target, src, dst = line.split()
    try:
        convert(tool, int(target), src, dst)
        print(json.dumps({"ok": True}), flush=True)
    except Exception as e:  # noqa: BLE001 - every failure is an answer
        msg = (str(e).strip().splitlines() or [type(e).__name__])[0]
        print(json.dumps({"ok": False, "error": f"{type(e).__name__}: {msg}"[:300]}), flush=True)
