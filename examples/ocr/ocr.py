"""Reads the text of an image with PaddleOCR's trained PP-OCR models, compiled by TensorBind.

A complete OCR pipeline: the text detector (DB) finds text regions, the orientation
classifier turns upside-down lines, the recognizer (SVTR/CTC) reads each line. The three
networks are the ONNX files the `rapidocr-onnxruntime` package ships (scripts/setup.sh
installs it); TensorBind compiles each for this CPU through its Python API. The pre- and
post-processing (resizing, the detector's box extraction, CTC decoding) is numpy.

Usage: ocr.py [IMAGE] [--text "LINE" ...] [--threads N] [--compare]

Without IMAGE it renders the --text lines (default: three lines) into an image with Pillow
and exits non-zero unless every line is read back exactly, so the example checks itself.
--compare runs the same pipeline with onnxruntime too, and reports both results and times.
"""

import argparse
import importlib.util
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

DEFAULT_TEXT = ["TensorBind 2026", "compiles ONNX models", "det 17 rec 42 cls 3"]
DET_SIDE = 32  # the detector's input sides must be multiples of 32
REC_HEIGHT, REC_WIDTH = 48, 320
CLS_HEIGHT, CLS_WIDTH = 48, 192


def model_dir():
    spec = importlib.util.find_spec("rapidocr_onnxruntime")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("ocr.py: the rapidocr-onnxruntime package is missing; run scripts/setup.sh "
                 "and use .venv/bin/python")
    return os.path.join(spec.submodule_search_locations[0], "models")


MODELS = {
    "det": "ch_PP-OCRv4_det_infer.onnx",
    "cls": "ch_ppocr_mobile_v2.0_cls_infer.onnx",
    "rec": "ch_PP-OCRv4_rec_infer.onnx",
}


def render(lines, scale=36):
    """An RGB image (uint8, HxWx3) with `lines` in black on white."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=scale)
    height = int(scale * 1.8)
    width = max(int(font.getlength(line)) for line in lines) + 2 * scale
    image = Image.new("RGB", (width, height * len(lines) + scale), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((scale, scale // 2 + i * height), line, fill="black", font=font)
    return np.asarray(image)


def resize(image, height, width):
    """Bilinear resize of an HxWxC uint8 image (half-pixel centres, as OpenCV's INTER_LINEAR)."""
    h, w = image.shape[:2]
    ys = np.clip((np.arange(height) + 0.5) * h / height - 0.5, 0, h - 1)
    xs = np.clip((np.arange(width) + 0.5) * w / width - 0.5, 0, w - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    fy, fx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
    img = image.astype(np.float32)
    top = img[y0][:, x0] * (1 - fx) + img[y0][:, x1] * fx
    bottom = img[y1][:, x0] * (1 - fx) + img[y1][:, x1] * fx
    return top * (1 - fy) + bottom * fy


def det_input(image):
    """The detector's input: sides rounded to multiples of 32, ImageNet normalization, NCHW."""
    h, w = image.shape[:2]
    height = max(DET_SIDE, int(round(h / DET_SIDE)) * DET_SIDE)
    width = max(DET_SIDE, int(round(w / DET_SIDE)) * DET_SIDE)
    x = resize(image, height, width) / 255.0
    x = (x - np.array([0.485, 0.456, 0.406])) / np.array([0.229, 0.224, 0.225])
    return x.transpose(2, 0, 1)[None].astype(np.float32)


def components(mask):
    """The 4-connected components of a boolean mask, as lists of (row, column) arrays."""
    labels = np.zeros(mask.shape, dtype=np.int32)
    found = []
    for start in zip(*np.nonzero(mask)):
        if labels[start]:
            continue
        label = len(found) + 1
        labels[start] = label
        stack, members = [start], []
        while stack:
            y, x = stack.pop()
            members.append((y, x))
            for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                if 0 <= ny < mask.shape[0] and 0 <= nx < mask.shape[1] and mask[ny, nx] and not labels[ny, nx]:
                    labels[ny, nx] = label
                    stack.append((ny, nx))
        found.append(np.array(members))
    return found


def text_boxes(probability, image_shape, threshold=0.3, box_threshold=0.6, unclip_ratio=1.5):
    """DB post-processing: regions of the probability map above `threshold` whose mean
    probability passes `box_threshold`, grown by the unclip ratio (area * ratio / perimeter,
    as DB's polygon offset does for a rectangle), as boxes (top, left, bottom, right) in
    the image's pixels, top to bottom."""
    prob = probability[0, 0]
    sy, sx = image_shape[0] / prob.shape[0], image_shape[1] / prob.shape[1]
    boxes = []
    for members in components(prob > threshold):
        (top, left), (bottom, right) = members.min(0), members.max(0) + 1
        if min(bottom - top, right - left) < 3:
            continue
        if prob[top:bottom, left:right][prob[top:bottom, left:right] > threshold].mean() < box_threshold:
            continue
        h, w = bottom - top, right - left
        grow = h * w * unclip_ratio / (2 * (h + w))
        boxes.append((
            max(0, int((top - grow) * sy)), max(0, int((left - grow) * sx)),
            min(image_shape[0], int(np.ceil((bottom + grow) * sy))),
            min(image_shape[1], int(np.ceil((right + grow) * sx))),
        ))
    return sorted(boxes)


def line_input(crop, height, width):
    """A text line for the classifier or recognizer: height fixed, aspect kept, right side
    padded with zeros, pixels scaled to [-1, 1]."""
    h, w = crop.shape[:2]
    scaled = min(width, max(1, int(np.ceil(height * w / h))))
    x = (resize(crop, height, scaled) / 255.0 - 0.5) / 0.5
    padded = np.zeros((height, width, 3), dtype=np.float32)
    padded[:, :scaled] = x
    return padded.transpose(2, 0, 1)[None]


def characters(rec_path):
    """The recognizer's alphabet: the blank, the model's `character` metadata, a space."""
    import onnx

    meta = {p.key: p.value for p in onnx.load(rec_path, load_external_data=False).metadata_props}
    return ["<blank>"] + meta["character"].splitlines() + [" "]


def ctc_decode(probabilities, alphabet):
    """Greedy CTC: the best class per step, repeats merged, blanks dropped."""
    best = probabilities[0].argmax(-1)
    keep = np.ones(len(best), dtype=bool)
    keep[1:] = best[1:] != best[:-1]
    return "".join(alphabet[i] for i in best[keep] if i != 0)


class TensorBindModel:
    name = "TensorBind"

    def __init__(self, path, shape, threads):
        import tensorbind

        self.module = tensorbind.compile(path, threads=threads, input_shapes={"x": shape})

    def __call__(self, x):
        return self.module.run(x)[0]


class OnnxRuntimeModel:
    name = "onnxruntime"

    def __init__(self, path, shape, threads):
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        self.session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])

    def __call__(self, x):
        return self.session.run(None, {"x": x})[0]


def read(image, engine, threads, alphabet):
    """Runs the pipeline with `engine`; returns the lines read (box, text, confidence) and
    the seconds spent compiling and running."""
    paths = {k: os.path.join(model_dir(), v) for k, v in MODELS.items()}
    x = det_input(image)
    start = time.perf_counter()
    det = engine(paths["det"], list(x.shape), threads)
    cls = engine(paths["cls"], [1, 3, CLS_HEIGHT, CLS_WIDTH], threads)
    rec = engine(paths["rec"], [1, 3, REC_HEIGHT, REC_WIDTH], threads)
    compiled = time.perf_counter()
    lines = []
    for top, left, bottom, right in text_boxes(det(x), image.shape):
        crop = image[top:bottom, left:right]
        # Class 1 is "rotated by 180 degrees"; PaddleOCR turns a line only when it is sure.
        turned = cls(line_input(crop, CLS_HEIGHT, CLS_WIDTH))[0]
        if turned.argmax() == 1 and turned[1] > 0.9:
            crop = crop[::-1, ::-1]
        probabilities = rec(line_input(crop, REC_HEIGHT, REC_WIDTH))
        text = ctc_decode(probabilities, alphabet)
        confidence = float(probabilities[0].max(-1).mean())
        lines.append(((top, left, bottom, right), text, confidence))
    return lines, compiled - start, time.perf_counter() - compiled


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("image", nargs="?", help="an image file (default: render --text)")
    p.add_argument("--text", action="append", help="a line to render (repeatable)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--compare", action="store_true", help="also run onnxruntime and compare")
    args = p.parse_args(argv)
    expected = None
    if args.image:
        from PIL import Image

        image = np.asarray(Image.open(args.image).convert("RGB"))
    else:
        expected = args.text or DEFAULT_TEXT
        image = render(expected)
    alphabet = characters(os.path.join(model_dir(), MODELS["rec"]))
    engines = [TensorBindModel] + ([OnnxRuntimeModel] if args.compare else [])
    results = {}
    for engine in engines:
        lines, compile_s, run_s = read(image, engine, args.threads, alphabet)
        results[engine.name] = [text for _, text, _ in lines]
        print(f"{engine.name}: {len(lines)} lines; models ready in {compile_s:.1f} s, "
              f"pipeline ran in {run_s * 1000:.0f} ms")
        for box, text, confidence in lines:
            print(f"  {box}  {text!r}  (confidence {confidence:.3f})")
    ok = True
    if args.compare and results["TensorBind"] != results["onnxruntime"]:
        print("the two engines read different text")
        ok = False
    if expected is not None:
        if results["TensorBind"] == expected:
            print(f"read back all {len(expected)} rendered lines exactly")
        else:
            print(f"expected {expected}, read {results['TensorBind']}")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
