#!/usr/bin/env python3
"""Checks TensorBind's CUDA path on a machine with an NVIDIA GPU, in one run:

  1. examples/mlp.mlir on the GPU against the reference interpreter (tb-run --check);
  2. the bundled models (ResNet-18, MobileNet-V2, the BERT-style encoder; seeded weights,
     full size) on the GPU against onnxruntime's outputs, with device times;
  3. f32 and f16 matrix products on the GPU against torch (cuBLAS) in the same run, and
     (gemm-variants) other knob settings of the matmul passes on the 4096^3 ones;
  4. (encoder-torch) the encoder in torch eager mode on the GPU, same weights, against 2;
  5. the ONNX node conformance suite on the GPU against each case's expected outputs.

Usage: gpu_check.py --tb-run PATH --node-dir DIR --out DIR [--skip PART,...]
                    [--baseline-pipeline PIPELINE]
Needs python3 with numpy, onnx, onnxruntime and torch (CUDA), and TB_LIBDEVICE or a CUDA
toolkit for libdevice. Prints one summary line per part; details go to OUT.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, timeout=600):
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.time() - start


def bench_median(stdout):
    m = re.search(r"bench \(CUDA events, \d+ runs\): median ([0-9.]+) ms", stdout)
    return float(m.group(1)) if m else None


def check_mlp(args, report):
    rc, out, err, secs = run([args.tb_run, os.path.join(ROOT, "examples/mlp.mlir"),
                              "--device", "cuda", "--check", "--random-inputs", "1"])
    ok = rc == 0 and "matches the interpreter" in out
    report["mlp"] = {"ok": ok, "stdout": out, "stderr": err}
    print(f"mlp: {'PASS' if ok else 'FAIL'} ({secs:.1f} s)\n{out}{err}", flush=True)


def output_files(outdir, model_path, count):
    """tb-run writes an ONNX model's results as DIR/<output name>.npy, others as output_<i>.npy."""
    try:
        import onnx
        names = [o.name for o in onnx.load(model_path, load_external_data=False).graph.output]
    except Exception:  # noqa: BLE001 - not an ONNX model
        names = []
    files = []
    for i in range(count):
        named = os.path.join(outdir, f"{names[i]}.npy") if i < len(names) else None
        files.append(named if named and os.path.exists(named) else os.path.join(outdir, f"output_{i}.npy"))
    return files


def check_models(args, report):
    models_dir = os.path.join(args.out_tmp, "models")
    rc, out, err, _ = run([sys.executable, os.path.join(ROOT, "models/make_models.py"), models_dir])
    if rc != 0:
        print(f"models: cannot build them: {err}", flush=True)
        return
    results = {}
    for name in ["resnet18", "mobilenetv2", "bert"]:
        d = os.path.join(models_dir, name)
        outdir = os.path.join(args.out_tmp, f"{name}-out")
        inputs = sorted(f for f in os.listdir(d) if f.startswith("input_"))
        cmd = [args.tb_run, os.path.join(d, "model.onnx"), "--device", "cuda", "--bench", "20",
               "--print-limit", "0", "--output-dir", outdir]
        for f in inputs:
            cmd += ["--input", os.path.join(d, f)]
        rc, out, err, secs = run(cmd)
        entry = {"rc": rc, "seconds": secs, "median_ms": bench_median(out)}
        if args.baseline_pipeline:
            # The same model through another pipeline, in the same run, for a ratio.
            base = [c for c in cmd if c not in ("--output-dir", outdir)]
            base += ["--pipeline", args.baseline_pipeline]
            brc, bout, berr, _ = run(base)
            entry["baseline_median_ms"] = bench_median(bout) if brc == 0 else None
            if brc != 0:
                entry["baseline_error"] = (bout + berr)[-1000:]
        if rc == 0:
            errors = []
            count = len([f for f in os.listdir(d) if f.startswith("expected_")])
            files = output_files(outdir, os.path.join(d, "model.onnx"), count)
            for i in range(count):
                got = np.load(files[i])
                want = np.load(os.path.join(d, f"expected_{i}.npy"))
                errors.append(float(np.max(np.abs(got.astype(np.float64) - want))))
                entry.setdefault("match", True)
                if not np.allclose(got, want, rtol=1e-3, atol=1e-4):
                    entry["match"] = False
            entry["max_abs_error"] = max(errors) if errors else None
        else:
            entry["error"] = (out + err)[-2000:]
        entry["ort_cpu_ms"] = ort_latency(os.path.join(d, "model.onnx"), [np.load(os.path.join(d, f)) for f in inputs])
        results[name] = entry
        print(f"model {name}: {json.dumps(entry)}", flush=True)
    report["models"] = results


def ort_latency(model, inputs):
    try:
        import onnxruntime as ort
        s = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        feed = {i.name: x for i, x in zip(s.get_inputs(), inputs)}
        s.run(None, feed)
        times = []
        for _ in range(10):
            t = time.perf_counter()
            s.run(None, feed)
            times.append((time.perf_counter() - t) * 1e3)
        return sorted(times)[len(times) // 2]
    except Exception as e:  # noqa: BLE001 - reported, not fatal
        return f"onnxruntime: {e}"


MATMUL = """func.func @main(%a: tensor<{n}x{n}x{t}>, %b: tensor<{n}x{n}x{t}>) -> tensor<{n}x{n}x{t}> {{
  %c = "graph.matmul"(%a, %b) : (tensor<{n}x{n}x{t}>, tensor<{n}x{n}x{t}>) -> tensor<{n}x{n}x{t}>
  return %c : tensor<{n}x{n}x{t}>
}}
"""


def gpu_pipeline():
    """The default GPU pipeline, as tb-run uses it (read from the tree's pipelines.rs)."""
    with open(os.path.join(ROOT, "passes/src/pipelines.rs")) as f:
        return re.search(r'pub const GPU: &str = "([^"]*)";', f.read()).group(1)


# Knob settings of the matmul passes tried on the 4096^3 GEMMs, each replacing the pass's
# defaults in the GPU pipeline: the tensor-core kernel for f16, the shared tile for f32.
GEMM_VARIANTS = {
    "f16": ("loop-gpu-mma", [
        "{stages=1}",
        "{stages=2}",
        "{stages=4}",
        "{stage-k=32 stages=4}",
        "{warp-m=4 warp-n=4 block-warps-m=2 block-warps-n=4}",
        "{warp-m=4 warp-n=8 block-warps-m=2 block-warps-n=4}",
    ]),
    "f32": ("loop-gpu-shared-tile", [
        "{bm=128 bn=128 bk=8 tm=8 tn=8}",
        "{bm=128 bn=128 bk=16 tm=8 tn=8}",
    ]),
}


def check_gemm_variants(args, report):
    """Times the knob settings above on the 4096^3 GEMMs, in the same run as the defaults."""
    base = gpu_pipeline()
    results = []
    for dtype, (pass_name, variants) in GEMM_VARIANTS.items():
        path = os.path.join(args.out_tmp, f"matmul_{dtype}_4096.mlir")
        with open(path, "w") as f:
            f.write(MATMUL.format(n=4096, t=dtype))
        for options in variants:
            pipeline = base.replace(f"{pass_name},", f"{pass_name}{options},", 1)
            rc, out, err, _ = run([args.tb_run, path, "--device", "cuda", "--random-inputs", "1",
                                   "--bench", "5", "--print-limit", "0", "--pipeline", pipeline])
            ms = bench_median(out) if rc == 0 else None
            entry = {"dtype": dtype, "pass": pass_name + options, "tb_ms": ms,
                     "tb_tflops": 2.0 * 4096 ** 3 / ms / 1e9 if ms else None}
            if rc != 0:
                entry["error"] = (out + err)[-600:]
            results.append(entry)
            print(f"gemm variant: {json.dumps(entry)}", flush=True)
    report["gemm_variants"] = results


def check_encoder_torch(args, report):
    """The encoder in torch eager mode on the GPU (same weights), against tb's time."""
    sys.path.insert(0, os.path.join(ROOT, "models"))
    import bert_encoder_torch
    model_dir = os.path.join(args.out_tmp, "models", "bert")
    if not os.path.isdir(model_dir):
        rc, _, err, _ = run([sys.executable, os.path.join(ROOT, "models/make_models.py"),
                             os.path.join(args.out_tmp, "models"), "--models", "bert"])
        if rc != 0:
            print(f"encoder-torch: cannot build the model: {err}", flush=True)
            return
    entry = bert_encoder_torch.run(model_dir)
    tb_ms = report.get("models", {}).get("bert", {}).get("median_ms")
    entry["tb_ms"] = tb_ms
    entry["ratio_torch_over_tb"] = entry["torch_eager_ms"] / tb_ms if tb_ms else None
    report["encoder_torch"] = entry
    print(f"encoder vs torch eager: {json.dumps(entry)}", flush=True)


def check_gemm(args, report):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    results = []
    for dtype, torch_dtype in [("f32", torch.float32), ("f16", torch.float16)]:
        for n in [1024, 2048, 4096]:
            path = os.path.join(args.out_tmp, f"matmul_{dtype}_{n}.mlir")
            with open(path, "w") as f:
                f.write(MATMUL.format(n=n, t=dtype))
            rc, out, err, secs = run([args.tb_run, path, "--device", "cuda", "--random-inputs", "1",
                                      "--bench", "5", "--print-limit", "0"])
            tb_ms = bench_median(out) if rc == 0 else None
            a = torch.randn(n, n, device="cuda", dtype=torch_dtype)
            b = torch.randn(n, n, device="cuda", dtype=torch_dtype)
            for _ in range(3):
                torch.matmul(a, b)
            times = []
            for _ in range(10):
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                torch.matmul(a, b)
                e.record()
                torch.cuda.synchronize()
                times.append(s.elapsed_time(e))
            torch_ms = sorted(times)[len(times) // 2]
            flops = 2.0 * n ** 3
            entry = {"dtype": dtype, "n": n, "tb_ms": tb_ms, "cublas_ms": torch_ms,
                     "tb_tflops": flops / tb_ms / 1e9 if tb_ms else None,
                     "cublas_tflops": flops / torch_ms / 1e9,
                     "ratio_tb_over_cublas": (torch_ms / tb_ms) if tb_ms else None}
            if rc != 0:
                entry["error"] = (out + err)[-1000:]
            results.append(entry)
            print(f"gemm: {json.dumps(entry)}", flush=True)
    report["gemm"] = results


def conformance_case(tb_run, case_dir, tmp):
    try:
        return conformance_case_unchecked(tb_run, case_dir, tmp)
    except Exception as e:  # noqa: BLE001 - one odd case must not stop the suite
        return os.path.basename(case_dir), "skip", f"harness: {e}"


def conformance_case_unchecked(tb_run, case_dir, tmp):
    import onnx
    from onnx import numpy_helper
    name = os.path.basename(case_dir)
    data = os.path.join(case_dir, "test_data_set_0")
    if not os.path.isdir(data):
        return name, "skip", "no test data"
    try:
        inputs, outputs = [], []
        for f in sorted(os.listdir(data), key=lambda s: (len(s), s)):
            t = onnx.TensorProto()
            with open(os.path.join(data, f), "rb") as fh:
                t.ParseFromString(fh.read())
            arr = numpy_helper.to_array(t)
            (inputs if f.startswith("input_") else outputs).append(arr)
    except Exception as e:  # noqa: BLE001 - sequences, optionals: not tensors
        return name, "skip", f"test data is not plain tensors: {e}"
    d = tempfile.mkdtemp(dir=tmp)
    cmd = [tb_run, os.path.join(case_dir, "model.onnx"), "--device", "cuda", "--print-limit", "0",
           "--output-dir", os.path.join(d, "out")]
    for i, x in enumerate(inputs):
        p = os.path.join(d, f"in{i}.npy")
        np.save(p, x)
        cmd += ["--input", p]
    try:
        rc, out, err, _ = run(cmd, timeout=120)
    except subprocess.TimeoutExpired:
        return name, "fail", "timeout"
    if rc != 0:
        text = out + err
        if "unsupported" in text.lower() or "not supported" in text.lower():
            return name, "skip", text.strip().splitlines()[-1][:300] if text.strip() else "unsupported"
        return name, "fail", text[-600:]
    files = output_files(os.path.join(d, "out"), os.path.join(case_dir, "model.onnx"), len(outputs))
    for i, want in enumerate(outputs):
        try:
            got = np.load(files[i])
        except Exception as e:  # noqa: BLE001
            return name, "fail", f"output {i}: {e}"
        if got.shape != want.shape:
            return name, "fail", f"output {i}: shape {got.shape} vs {want.shape}"
        if want.dtype.kind in "fc" or is_narrow_float(want):
            # 8-bit floats (ml_dtypes, kind 'V' for the FN/FNUZ ones) compare as floats
            # too, so that NaN matches NaN.
            want = want.astype(np.float64)
            if not np.allclose(got.astype(np.float64), want, rtol=1e-3, atol=1e-5, equal_nan=True):
                return name, "fail", f"output {i}: max abs error {np.nanmax(np.abs(got.astype(np.float64) - want)):.3e}"
        elif not np.array_equal(got, want):
            return name, "fail", f"output {i}: values differ"
    return name, "pass", ""


def is_narrow_float(array):
    """Whether `array` holds one of ml_dtypes' 8- or 4-bit floats (kind 'V' in numpy)."""
    return array.dtype.kind == "V" and "float" in array.dtype.name


def check_conformance(args, report):
    cases = sorted(os.path.join(args.node_dir, c) for c in os.listdir(args.node_dir))
    tmp = os.path.join(args.out_tmp, "conformance")
    os.makedirs(tmp, exist_ok=True)
    counts = {"pass": 0, "fail": 0, "skip": 0}
    failures = {}
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for name, status, why in pool.map(lambda c: conformance_case(args.tb_run, c, tmp), cases):
            counts[status] += 1
            if status == "fail":
                failures[name] = why
    report["conformance"] = {"counts": counts, "failures": failures}
    print(f"conformance on the GPU: {counts['pass']} passed, {counts['fail']} failed, "
          f"{counts['skip']} skipped, {time.time() - start:.0f} s", flush=True)
    for name, why in sorted(failures.items())[:40]:
        print(f"  FAIL {name}: {why.strip().splitlines()[-1] if why.strip() else ''}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tb-run", required=True)
    ap.add_argument("--node-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=12)
    ap.add_argument("--skip", default="")
    ap.add_argument("--baseline-pipeline", default="",
                    help="also time each model through this tb-run --pipeline, for a ratio")
    args = ap.parse_args()
    args.out_tmp = tempfile.mkdtemp()
    skip = set(args.skip.split(","))
    report = {}
    rc, out, _, _ = run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"])
    report["gpu"] = out.strip()
    print(f"gpu: {out.strip()}", flush=True)
    for part, fn in [("mlp", check_mlp), ("gemm", check_gemm), ("gemm-variants", check_gemm_variants),
                     ("models", check_models), ("encoder-torch", check_encoder_torch),
                     ("conformance", check_conformance)]:
        if part in skip:
            continue
        try:
            fn(args, report)
        except Exception as e:  # noqa: BLE001 - one part failing must not lose the others
            print(f"{part}: error: {e}", flush=True)
            report[part + "_error"] = str(e)
        with open(os.path.join(args.out, "gpu_check.json"), "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
