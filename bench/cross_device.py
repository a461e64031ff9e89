#!/usr/bin/env python3
"""Builds the cross-device data set from scratch: the same tasks measured on several devices
of this one machine (issue 20).

A device is this machine with ISA features turned off: `avx512` (as it is), `avx2`
(`--mattr=-avx512f`) and `sse` (`--mattr=-avx`: SSE4.2), all at `--threads` threads. Code
generated for each runs here, so every record is a real measurement of that ISA.

Steps (everything seeded):
1. `models/make_models.py OUT/models --image-size S --seq-len L --seed SEED`: ResNet-18,
   MobileNet-V2, the BERT-style encoder and SqueezeNet 1.1 with seeded weights;
   `models/real_models.py`: the trained models that public packages ship (PP-OCRv4's
   detector and recognizer, PP-OCR's orientation classifier, YOLOv8n, Silero VAD), the
   images taken at small input shapes.
2. `tb-tune MODEL --list-tasks --dump-tasks`: each model's tasks as single-task modules;
   up to `--per-model` tunable tasks of each model are picked, round-robin over kinds
   (convolution, matmul, reducing nest, element-wise nest), the most work first, a task
   already picked for an earlier model skipped.
3. Each picked task is tuned on its own for every device in turn (`--trials` model-guided
   trials, seed SEED + task index, `--cores 1`), into OUT/<model>.db: one database per
   model, so held-out scoring trains on some models and tests on another.
4. `tb-tune --db OUT/<model>.db --export-dataset OUT/<model>.jsonl`: every record with its
   tensor sentence.
5. `--evaluate` skips steps 1-4 and evaluates the data set already in OUT: held-out scores
   (`tb-tune score`, trained on the other models' records, scored on the encoder's
   unseen tasks, with TenSet's network-level scores weighted by the encoder)
   of the tree and the transformer on every device; transfer to each device of
   `--transfer-to` (pretrained on the other devices, fine-tuned on 10% of its records);
   record translation of the encoder's tasks from `avx512` to each device of
   `--translate-to`, ranked by the tree and by the transformer (zero-shot and 8-shot, measured; stored in OUT/bert.db with search
   `translate`, after the held-out scores, which read that database). Outputs go to
   OUT/eval/, training runs to OUT/eval/runs.jsonl.

    .venv/bin/python bench/cross_device.py OUT [--trials 32] [--per-model 20]
        [--image-size 64] [--seq-len 64] [--threads 1] [--seed 1] [--devices avx512,avx2,sse]
        [--models resnet18,mobilenetv2,bert,ppocr_det,ppocr_rec,ppocr_cls,yolov8n,squeezenet,
                  silero_vad_openvino]
        [--evaluate] [--transfer-to avx2,sse] [--translate-to avx2,sse]

A rerun into the same OUT resumes: a task already measured on a device (its database holds
tuning records for it there) is skipped, so an interrupted build, or one with more models
added, finishes where it stopped. Use a fresh OUT to rebuild from scratch.
"""

import argparse
import os
import re
import sqlite3
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Device name -> the tb-tune arguments that make this machine stand in for it.
DEVICES = {
    "avx512": [],
    "avx2": ["--mattr=-avx512f"],
    "sse": ["--mattr=-avx"],
}

# Device name -> the features its target records carry (in the database's `targets`
# table), all of which must be present: how a rerun finds what was measured before.
DEVICE_FEATURES = {
    "avx512": ["+avx512f"],
    "avx2": ["-avx512f", "+avx2"],
    "sse": ["-avx"],
}

# Models built by models/make_models.py with seeded weights.
BUILT_MODELS = ["resnet18", "mobilenetv2", "bert", "squeezenet"]

# Trained models that public packages ship (models/real_models.py), with the input shape
# their tasks are taken at (None: the model's own): small enough to tune quickly, as the
# built models' are.
REAL_MODELS = {
    "ppocr_det": "x=1x3x128x128",
    "ppocr_rec": "x=1x3x48x160",
    "ppocr_cls": "x=1x3x48x192",
    "yolov8n": "images=1x3x128x128",
    "silero_vad_openvino": None,
}

# The order tasks are picked in (a task two models share goes to the first): models added
# later come last, so a data set built before keeps its picks and resumes.
MODELS = ["resnet18", "mobilenetv2", "bert", "ppocr_det", "ppocr_rec", "ppocr_cls", "yolov8n",
          "squeezenet", "silero_vad_openvino"]


def shape_args(model):
    """The `--input-shape` arguments a model's tasks and network weights are taken with."""
    shape = REAL_MODELS.get(model)
    return ["--input-shape", shape] if shape else []


def measured(db, task_key, device):
    """Whether `db` already holds this task's tuning records on `device` (a rerun resumes)."""
    if not os.path.exists(db):
        return False
    with sqlite3.connect(db) as c:
        rows = c.execute(
            "SELECT DISTINCT g.features FROM records r JOIN tasks t ON r.task_id = t.id "
            "JOIN targets g ON r.target_id = g.id WHERE t.key = ? AND r.search != 'translate'",
            (task_key,)).fetchall()
    return any(set(DEVICE_FEATURES[device]) <= set(features.split(",")) for (features,) in rows)


def list_tasks(tb_tune, model, dump_dir, shape):
    """[(key, kernel summary, knobs)] of a model's tunable tasks; writes DIR/<key>.mlir."""
    out = subprocess.run([tb_tune, model, "--list-tasks", "--dump-tasks", dump_dir] + shape,
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines()[1:]:
        parts = re.split(r"\s{2,}", line.strip())
        if len(parts) >= 4 and not parts[3].startswith("none"):
            rows.append((parts[0], parts[1], parts[3]))
    return rows


def kind_of(summary):
    if summary.startswith("conv"):
        return "conv"
    if summary.startswith("matmul"):
        return "matmul"
    if " r" in summary:
        return "reduction"
    return "elementwise"


def work(summary):
    p = 1
    for n in re.findall(r"\d+", summary):
        p *= int(n)
    return p


def pick(rows, count, taken):
    """Up to `count` rows, round-robin over kinds, the most work first within a kind."""
    by_kind = {}
    for row in sorted(rows, key=lambda r: -work(r[1])):
        if row[0] not in taken:
            by_kind.setdefault(kind_of(row[1]), []).append(row)
    out = []
    while len(out) < count and any(by_kind.values()):
        for kind in ["conv", "matmul", "reduction", "elementwise"]:
            if by_kind.get(kind) and len(out) < count:
                out.append(by_kind[kind].pop(0))
    return out


def run_logged(cmd, path):
    """Runs `cmd`, writing its output (stdout, then stderr) to `path` and echoing it."""
    started = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    with open(path, "w") as f:
        f.write("$ " + " ".join(cmd) + "\n" + r.stdout + r.stderr)
        f.write(f"# exit {r.returncode}, {time.time() - started:.1f} s\n")
    print(f"== {' '.join(cmd)} ({time.time() - started:.1f} s, exit {r.returncode})", flush=True)
    print(r.stdout + r.stderr, flush=True)


def evaluate(args, devices):
    out = os.path.join(args.out, "eval")
    os.makedirs(out, exist_ok=True)
    log = os.path.join(out, "runs.jsonl")
    dbs = {m: os.path.join(args.out, f"{m}.db") for m in args.models}
    if "bert" not in dbs:
        sys.exit("--evaluate scores the encoder's tasks: --models must include bert")
    held_out = [a for m in args.models if m != "bert" for a in ["--train", dbs[m]]]
    held_out += ["--test", dbs["bert"]]
    common = ["--threads", str(args.threads), "--seed", str(args.seed), "--log", log]
    for device in devices:
        for model in ["tree", "transformer"]:
            if model == "transformer" and device in args.transfer_to.split(","):
                continue  # the transfer run trains the same model on all records
            network = ["--network", os.path.join(args.out, "models", "bert", "model.onnx")]
            run_logged([args.tb_tune, "score", "--model", model] + held_out + common + network
                       + DEVICES[device], os.path.join(out, f"score-{model}-{device}.txt"))
    for device in filter(None, args.transfer_to.split(",")):
        run_logged([args.tb_tune, "score", "--model", "transformer", "--fine-tune-fraction",
                    "0.1"] + held_out + common + DEVICES[device],
                   os.path.join(out, f"transfer-{device}.txt"))
    for device in filter(None, args.translate_to.split(",")):
        for model in ["tree", "transformer"]:
            run_logged([args.tb_tune, os.path.join(args.out, "models", "bert", "model.onnx"),
                        "--db", dbs["bert"], "--translate-from", "avx512", "--shots", "8",
                        "--model", model, "--cores", "1", "--threads", str(args.threads),
                        "--seed", str(args.seed)]
                       + DEVICES[device], os.path.join(out, f"translate-{model}-{device}.txt"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--trials", type=int, default=32)
    ap.add_argument("--per-model", type=int, default=20)
    ap.add_argument("--image-size", type=int, default=64)
    ap.add_argument("--seq-len", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--devices", default="avx512,avx2,sse")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--tb-tune", default=os.path.join(ROOT, "target/release/tb-tune"))
    ap.add_argument("--evaluate", action="store_true")
    ap.add_argument("--transfer-to", default="avx2,sse")
    ap.add_argument("--translate-to", default="avx2,sse")
    args = ap.parse_args()
    devices = args.devices.split(",")
    args.models = args.models.split(",")
    for m in args.models:
        if m not in MODELS:
            sys.exit(f"unknown model '{m}' (known: {', '.join(MODELS)})")
    for d in devices + args.transfer_to.split(",") + args.translate_to.split(","):
        if d and d not in DEVICES:
            sys.exit(f"unknown device '{d}' (known: {', '.join(DEVICES)})")
    if args.evaluate:
        evaluate(args, devices)
        return
    os.makedirs(args.out, exist_ok=True)
    models_dir = os.path.join(args.out, "models")
    built = [m for m in args.models if m in BUILT_MODELS]
    if built:
        subprocess.run([sys.executable, os.path.join(ROOT, "models/make_models.py"), models_dir,
                        "--models", ",".join(built), "--image-size", str(args.image_size),
                        "--seq-len", str(args.seq_len), "--seed", str(args.seed)], check=True)
    real = [m for m in args.models if m in REAL_MODELS]
    if real:
        subprocess.run([sys.executable, os.path.join(ROOT, "models/real_models.py"), models_dir,
                        "--models", ",".join(real)], check=True)
    taken = set()
    plan = []
    for model in args.models:
        dump = os.path.join(args.out, "tasks", model)
        onnx = os.path.join(models_dir, model, "model.onnx")
        rows = pick(list_tasks(args.tb_tune, onnx, dump, shape_args(model)), args.per_model, taken)
        taken.update(r[0] for r in rows)
        plan += [(model, r[0], os.path.join(dump, r[0] + ".mlir"), r[1]) for r in rows]
    print(f"{len(plan)} tasks x {len(devices)} devices x {args.trials} trials", flush=True)
    started = time.time()
    for i, (model, key, task, summary) in enumerate(plan):
        db = os.path.join(args.out, f"{model}.db")
        for device in devices:
            if measured(db, key, device):
                print(f"{i + 1}/{len(plan)} {model} {summary} {device}: measured before",
                      flush=True)
                continue
            cmd = [args.tb_tune, task, "--trials", str(args.trials), "--db", db,
                   "--threads", str(args.threads), "--cores", "1",
                   "--seed", str(args.seed + i)] + DEVICES[device]
            r = subprocess.run(cmd, capture_output=True, text=True)
            status = "ok" if r.returncode == 0 else f"FAILED: {r.stderr.strip()[-300:]}"
            print(f"[{time.time() - started:7.1f} s] {i + 1}/{len(plan)} {model} {summary} "
                  f"{device}: {status}", flush=True)
    for model in args.models:
        db = os.path.join(args.out, f"{model}.db")
        if os.path.exists(db):
            subprocess.run([args.tb_tune, "--db", db, "--export-dataset",
                            os.path.join(args.out, f"{model}.jsonl")], check=True)


if __name__ == "__main__":
    main()
