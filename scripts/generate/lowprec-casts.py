"""Reference casts to the 8-, 4- and 2-bit types by ONNX's reference evaluator (onnx 1.23.1), for
test/interp/low-precision.test.ts: float32 values → the bits of each type, saturate 1 and 0, and
each type's codes → float32. Writes test/data/lowprec-casts.json.

    corpus/venv/bin/python scripts/generate/lowprec-casts.py
"""

import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

TYPES = {
    "float8e4m3fn": TensorProto.FLOAT8E4M3FN, "float8e4m3fnuz": TensorProto.FLOAT8E4M3FNUZ,
    "float8e5m2": TensorProto.FLOAT8E5M2, "float8e5m2fnuz": TensorProto.FLOAT8E5M2FNUZ,
    "float8e8m0": TensorProto.FLOAT8E8M0, "float4e2m1": TensorProto.FLOAT4E2M1,
    "int4": TensorProto.INT4, "uint4": TensorProto.UINT4, "int2": TensorProto.INT2, "uint2": TensorProto.UINT2,
}


def values():
    rs = np.random.RandomState(29)
    v = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e30, -1e30, 0.5, 1.5, 2.5, -2.5, 3.5, 7.5, 8.5, -8.5, 15.5, 16.5,
         448.0, 464.0, 480.0, 500.0, 57344.0, 61440.0, 65536.0, 240.0, 248.0, 6.0, 5.0, 7.0, 1e-9, 2.0 ** -9,
         2.0 ** -10, 3 * 2.0 ** -11, 2.0 ** -17, 2.0 ** -16, 1.75, 0.25, 0.75, 2.0 ** -127, 2.0 ** -130, 3.0, 1.25]
    v += list(rs.randn(200) * 4) + list(rs.randn(100) * 300) + list(np.exp(rs.randn(100) * 8))
    v += [-x for x in v[:40]]
    return np.array(v, np.float32)


def run(model, feeds):
    return ReferenceEvaluator(model).run(None, feeds)[0]


def bits(arr, to):
    """The codes of a low-precision array as ints (int4 etc. as their values)."""
    if to in (TensorProto.INT4, TensorProto.UINT4, TensorProto.INT2, TensorProto.UINT2):
        return [int(x) for x in arr.astype(np.int64).ravel()]
    return [int(x) for x in arr.view(np.uint8).ravel()]


def main():
    x = values()
    out = {"inputs": [float(a) if np.isfinite(a) else str(a) for a in x], "casts": {}, "decode": {}}
    for name, to in TYPES.items():
        for sat in (1, 0):
            attrs = {"to": to}
            if to not in (TensorProto.INT4, TensorProto.UINT4, TensorProto.INT2, TensorProto.UINT2):
                attrs["saturate"] = sat
            elif sat == 0:
                continue
            node = helper.make_node("Cast", ["x"], ["y"], **attrs)
            g = helper.make_graph([node], "c", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [len(x)])],
                                  [helper.make_tensor_value_info("y", to, [len(x)])])
            m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 25)])
            out["casts"][f"{name}:{sat}"] = bits(run(m, {"x": x}), to)
        # every code back to float
        n = 16 if name in ("float4e2m1", "int4", "uint4") else 4 if name in ("int2", "uint2") else 256
        node = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT)
        g = helper.make_graph([node], "d", [helper.make_tensor_value_info("x", to, [n])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 25)])
        codes = np.arange(n, dtype=np.uint8)
        if n == 256:
            raw = codes.tobytes()
        elif n == 16:
            raw = (codes[0::2] | (codes[1::2] << 4)).astype(np.uint8).tobytes()
        else:
            raw = (codes[0::4] | (codes[1::4] << 2) | (codes[2::4] << 4) | (codes[3::4] << 6)).astype(np.uint8).tobytes()
        src = onnx.numpy_helper.to_array(helper.make_tensor("x", to, [n], raw, raw=True))
        y = run(m, {"x": src})
        out["decode"][name] = [float(a) if np.isfinite(a) else str(a) for a in y]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "test", "data", "lowprec-casts.json")
    with open(path, "w") as f:
        json.dump(out, f)
    print(f"lowprec-casts: {len(x)} values, {len(out['casts'])} casts -> {path}")


if __name__ == "__main__":
    main()
