"""Trained ONNX models that public packages ship, with seeded inputs and onnxruntime's outputs.

Usage: real_models.py OUT_DIR [--models NAME,...] [--list]

The packages are in requirements-models.txt (scripts/setup.sh installs them). For each
model NAME writes OUT_DIR/NAME/model.onnx (a symbolic link to the package's file),
input_<i>.npy in the graph's input order, input_names.txt (one name per line) and
expected_<i>.npy (onnxruntime's outputs, CPUExecutionProvider, one thread). Prints one line
per model: its producer, opset and operator count.
"""

import argparse
import importlib.util
import os
import sys

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
except ImportError as e:
    sys.exit(f"{os.path.basename(sys.argv[0])}: Python package '{e.name}' is missing; "
             "run scripts/setup.sh and use .venv/bin/python")


def package_file(package, *parts):
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"real_models.py: package '{package}' is missing; run scripts/setup.sh "
                 "(requirements-models.txt)")
    return os.path.join(spec.submodule_search_locations[0], *parts)


def image(shape):
    return lambda rng: rng.random(shape, dtype=np.float32)


def text_image(height, width, normalize):
    """Seeded words in black on white, rendered with Pillow, as the OCR models see a page:
    NCHW float32 after `normalize` (per channel, on [0, 1] values)."""
    def make(rng):
        from PIL import Image, ImageDraw, ImageFont

        canvas = Image.new("RGB", (width, height), "white")
        draw = ImageDraw.Draw(canvas)
        size = max(12, height // 2) if height < 100 else 28
        font = ImageFont.load_default(size=size)
        words = ["tensor", "graph", "loop", "kernel", "2026", "ONNX", "fusion", "OCR"]
        y = size // 4
        while y + size <= height:
            line = " ".join(rng.choice(words, 3))
            draw.text((int(rng.integers(0, size)), y), line, fill="black", font=font)
            y += int(size * 1.6)
        x = np.asarray(canvas, dtype=np.float32) / 255.0
        return normalize(x).transpose(2, 0, 1)[None].astype(np.float32)
    return make


def imagenet(x):
    return (x - np.array([0.485, 0.456, 0.406])) / np.array([0.229, 0.224, 0.225])


def symmetric(x):
    return (x - 0.5) / 0.5


def audio(samples):
    return lambda rng: (0.1 * rng.standard_normal((1, samples))).astype(np.float32)


def lstm_state(shape):
    return lambda rng: (0.5 * rng.standard_normal(shape)).astype(np.float32)


def constant(value):
    return lambda rng: value


# name: (package, path inside it, [(input name, generator)] in graph order, what it is)
MODELS = {
    "ppocr_det": ("rapidocr_onnxruntime", "models/ch_PP-OCRv4_det_infer.onnx",
                  [("x", text_image(320, 320, imagenet))], "PP-OCRv4 text detector (DB)"),
    "ppocr_rec": ("rapidocr_onnxruntime", "models/ch_PP-OCRv4_rec_infer.onnx",
                  [("x", text_image(48, 320, symmetric))], "PP-OCRv4 text recognizer (SVTR, CTC)"),
    "ppocr_cls": ("rapidocr_onnxruntime", "models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
                  [("x", text_image(48, 192, symmetric))], "PP-OCR mobile v2.0 orientation classifier"),
    "yolov8n": ("nudenet", "320n.onnx",
                [("images", image((1, 3, 320, 320)))], "YOLOv8n detector (Ultralytics 8.2)"),
    "silero_vad_8k": ("silero_vad", "data/silero_vad.onnx",
                      [("input", audio(256)), ("state", lstm_state((2, 1, 128))),
                       ("sr", constant(np.array(8000, dtype=np.int64)))],
                      "voice-activity detector, If on the sample rate at run time (8 kHz taken; at 512 samples the 8 kHz branch is invalid, so the model cannot be imported at the 16 kHz shape)"),
    "silero_vad_if_16k": ("silero_vad", "data/silero_vad.onnx",
                          [("input", audio(256)), ("state", lstm_state((2, 1, 128))),
                           ("sr", constant(np.array(16000, dtype=np.int64)))],
                          "the same voice-activity detector at 256 samples with the 16 kHz branch taken at run time"),
    "silero_vad_op15": ("silero_vad", "data/silero_vad_16k_op15.onnx",
                        [("input", audio(512)), ("state", lstm_state((2, 1, 128))),
                         ("sr", constant(np.array(16000, dtype=np.int64)))],
                        "voice-activity detector, opset 15, Ifs on shapes"),
    "silero_vad_openvino": ("silero_vad", "data/silero_vad_openvino_16k.onnx",
                            [("input", audio(576)), ("state", lstm_state((2, 1, 128)))],
                            "voice-activity detector, no If (LSTM)"),
}


def write_model(out_dir, name, seed):
    package, path, inputs, _ = MODELS[name]
    source = package_file(package, *path.split("/"))
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    link = os.path.join(d, "model.onnx")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(source, link)
    rng = np.random.default_rng(seed)
    values = [make(rng) for _, make in inputs]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3  # exporters' unused initializers are not our concern here
    session = ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    if names != [n for n, _ in inputs]:
        sys.exit(f"real_models.py: {name}: the model's inputs are {names}")
    outputs = session.run(None, dict(zip(names, values)))
    for i, v in enumerate(values):
        np.save(os.path.join(d, f"input_{i}.npy"), v)
    for i, v in enumerate(outputs):
        np.save(os.path.join(d, f"expected_{i}.npy"), v)
    with open(os.path.join(d, "input_names.txt"), "w") as f:
        f.write("".join(n + "\n" for n in names))
    model = onnx.load(source, load_external_data=False)
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)
    print(f"{name}: {model.producer_name or 'unknown producer'} {model.producer_version}, "
          f"opset {opset}, {len(model.graph.node)} nodes")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir", nargs="?", help="directory to write OUT_DIR/<model>/ into")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated: " + ",".join(MODELS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--list", action="store_true", help="list the models and exit")
    args = p.parse_args(argv)
    if args.list:
        for name, (package, path, _, what) in MODELS.items():
            print(f"{name}: {what} ({package}: {path})")
        return
    if not args.out_dir:
        p.error("OUT_DIR is required")
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        p.error(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(MODELS)}")
    for name in names:
        write_model(args.out_dir, name, args.seed)


if __name__ == "__main__":
    main()
