"""ONNX's own checker as a service for scripts/corpus.ts: reads one model path a line, answers one
JSON line each: {"ok": true} or {"ok": false, "error": "..."}, after check_model(full_check=True)."""

import json
import sys

import onnx

for line in sys.stdin:
    path = line.rstrip("\n")
    if not path:
        continue
    try:
        onnx.checker.check_model(path, full_check=True)
        answer = {"ok": True}
    except Exception as e:  # noqa: BLE001 - any failure is the answer
        first = next((l for l in str(e).splitlines() if l.strip()), type(e).__name__)
        answer = {"ok": False, "error": first[:300]}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
