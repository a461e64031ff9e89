"""Equality saturation on the bundled models: what graph-eqsat does to each.

Builds the models of models/make_models.py (ResNet-18, MobileNet-V2, the BERT-style
encoder) and, with --bert-base, a 12-layer BERT-base-sized encoder (hidden 768, 12 heads,
FFN 3072, sequence 128); imports each with tb-translate, canonicalizes it (as the default
pipeline does first) and runs `graph-eqsat` with --mlir-pass-statistics and --mlir-timing.
The report gives, per model: graph ops before/after, the analytical cost estimate before/
after, batch norms and matmuls left, attention ops recognized, e-graph size, iterations,
why saturation stopped, and the time saturation took and the pass's whole time (medians of
--runs runs; the pass also extracts, rebuilds and folds weights).

With --latency N it also times each bundled model end to end with tb-run --bench N (one
thread), lowered by the default CPU pipeline with and without graph-eqsat, alternating
the two in --rounds rounds within this one run, and prints the median over rounds of
tb-run's median latency for each, their ratio, and the largest difference between the
two variants' outputs (over the largest magnitude).

Usage: .venv/bin/python bench/eqsat.py [--runs 3] [--bert-base] [--models-dir DIR]
                                        [--latency N [--rounds 3]]
"""

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ["resnet18", "mobilenetv2", "bert"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tb-opt", type=Path, default=ROOT / "target/release/tb-opt")
    p.add_argument("--tb-translate", type=Path, default=ROOT / "target/release/tb-translate")
    p.add_argument("--runs", type=int, default=3, help="timed runs per model (default 3)")
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated subset of " + ",".join(MODELS))
    p.add_argument("--models-dir", type=Path, help="reuse models built there by make_models.py")
    p.add_argument("--bert-base", action="store_true", help="also a 12-layer BERT-base-sized encoder")
    p.add_argument("--options", default="", help="graph-eqsat options, e.g. 'max-iterations=4'")
    p.add_argument("--tb-run", type=Path, default=ROOT / "target/release/tb-run")
    p.add_argument("--latency", type=int, default=0, metavar="N",
                   help="also time the models end to end with tb-run --bench N, with and without graph-eqsat")
    p.add_argument("--rounds", type=int, default=3, help="alternating rounds of --latency (default 3)")
    args = p.parse_args()
    for tool in (args.tb_opt, args.tb_translate) + ((args.tb_run,) if args.latency else ()):
        if not tool.is_file():
            p.error(f"{tool} does not exist (build it first: cargo build --release -p tb-tools)")
    return args


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, env={"TB_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed:\n{done.stderr.decode(errors='replace')}")
    return done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")


def build_bert_base(out):
    sys.path.insert(0, str(ROOT / "models"))
    import bert_encoder
    import onnx
    cfg = bert_encoder.Config(layers=12, hidden=768, heads=12, ffn=3072, seq=128)
    model, _, _ = bert_encoder.build(cfg, 0, False)
    (out / "bert-base").mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out / "bert-base" / "model.onnx"))


BENCH = re.compile(r"^bench: \d+ runs, median (?P<median>[\d.]+) ms", re.M)


def cpu_pipelines(tb_run):
    """The default CPU pipeline as tb-run lists it, and the same without graph-eqsat."""
    listing, _ = run([tb_run, "--list-passes"])
    m = re.search(r"^  cpu .*\n\s+= (builtin\.module\(.*\))\s*$", listing, re.M)
    if not m or "graph-eqsat" not in m.group(1):
        sys.exit(f"tb-run --list-passes shows no CPU pipeline with graph-eqsat:\n{listing}")
    with_eqsat = m.group(1)
    without = re.sub(r"graph-eqsat(\{[^}]*\})?,\s*", "", with_eqsat)
    return without, with_eqsat


def latency(args, models, names):
    import numpy as np
    without, with_eqsat = cpu_pipelines(args.tb_run)
    print(f"\nend-to-end latency, tb-run --bench {args.latency} --threads 1, median of {args.rounds} "
          f"alternating rounds (ms)")
    print(f"{'model':<12} {'without':>10} {'with':>10} {'with/without':>13} {'max rel diff':>13}")
    for name in names:
        if name == "bert-base":
            continue
        model = models / name
        times = {without: [], with_eqsat: []}
        for _ in range(args.rounds):
            for pipeline in (without, with_eqsat):
                out, _ = run([args.tb_run, model / "model.onnx", "--input", model / "input_0.npy",
                              "--bench", str(args.latency), "--threads", "1", "--pipeline", pipeline])
                m = BENCH.search(out)
                if not m:
                    sys.exit(f"no 'bench:' line from tb-run on {name}:\n{out}")
                times[pipeline].append(float(m.group("median")))
        outputs = []
        for i, pipeline in enumerate((without, with_eqsat)):
            out_dir = Path(tempfile.mkdtemp(prefix=f"tb-eqsat-{name}-{i}-"))
            run([args.tb_run, model / "model.onnx", "--input", model / "input_0.npy",
                 "--pipeline", pipeline, "--output-dir", out_dir])
            outputs.append(np.load(sorted(out_dir.glob("*.npy"))[0]))
        diff = float(np.max(np.abs(outputs[0] - outputs[1])) / max(np.max(np.abs(outputs[0])), 1e-30))
        a, b = statistics.median(times[without]), statistics.median(times[with_eqsat])
        print(f"{name:<12} {a:>10.2f} {b:>10.2f} {b / a:>13.3f} {diff:>13.2e}")


def statistics_of(stderr):
    stats = {}
    for m in re.finditer(r"\(S\)\s+(\d+) ([\w-]+) - ", stderr):
        stats[m.group(2)] = int(m.group(1))
    return stats


def pass_seconds(stderr):
    m = re.search(r"^\s+([\d.]+) \(\s*[\d.]+%\)\s+GraphEqsat$", stderr, re.M)
    return float(m.group(1)) if m else float("nan")


def main():
    args = parse_args()
    names = [n for n in args.models.split(",") if n]
    with tempfile.TemporaryDirectory(prefix="tb-eqsat-bench-") as tmp:
        work = Path(tmp)
        models = args.models_dir
        if models is None:
            models = work / "models"
            subprocess.run([sys.executable, str(ROOT / "models/make_models.py"), str(models),
                            "--models", ",".join(names)], check=True, stdout=subprocess.DEVNULL)
        if args.bert_base:
            build_bert_base(work / "extra")
            names.append("bert-base")
        options = "{" + args.options + "}" if args.options else ""
        pipeline = f"builtin.module(canonicalize,graph-eqsat{options})"
        header = (f"{'model':<12} {'ops':>11} {'cost (ms, est.)':>17} {'bn':>7} {'matmul':>9} "
                  f"{'attn':>6} {'e-nodes':>8} {'e-classes':>9} {'iter':>4} {'stop':<15} {'sat. ms':>8} {'pass s':>7}")
        print(header)
        for name in names:
            src = (work / "extra" if name == "bert-base" else models) / name / "model.onnx"
            graph = work / f"{name}.mlir"
            run([args.tb_translate, "--import-onnx", src, "-o", graph])
            canon = work / f"{name}-canon.mlir"
            run([args.tb_opt, graph, "--pass-pipeline=builtin.module(canonicalize)", "-o", canon])
            times, sat, stats, out_text = [], [], {}, ""
            for i in range(args.runs):
                out = work / f"{name}-eqsat.mlir"
                _, err = run([args.tb_opt, canon, f"--pass-pipeline={pipeline}", "-o", out,
                              "--mlir-pass-statistics", "--mlir-timing"])
                times.append(pass_seconds(err))
                stats = statistics_of(err)
                sat.append(stats.get("saturation-us", 0) / 1e3)
                if i == 0:
                    out_text = out.read_text(errors="replace")
            in_text = canon.read_text(errors="replace")
            count = lambda text, op: len(re.findall(rf"= graph\.{op}\b", text))
            stop = next((k[5:] for k in ("stop-saturated", "stop-iteration-limit", "stop-node-limit",
                                         "stop-time-limit") if stats.get(k)), "-")
            print(f"{name:<12} {stats.get('ops-before', 0):>5}->{stats.get('ops-after', 0):<5} "
                  f"{stats.get('cost-before', 0) / 1e6:>8.2f}->{stats.get('cost-after', 0) / 1e6:<8.2f} "
                  f"{count(in_text, 'batch_normalization'):>3}->{count(out_text, 'batch_normalization'):<3} "
                  f"{count(in_text, 'matmul'):>4}->{count(out_text, 'matmul'):<4} "
                  f"{count(out_text, 'attention'):>6} "
                  f"{stats.get('num-enodes', 0):>8} {stats.get('num-eclasses', 0):>9} "
                  f"{stats.get('num-iterations', 0):>4} {stop:<15} {statistics.median(sat):>8.1f} "
                  f"{statistics.median(times):>7.3f}")
            fired = {k: v for k, v in stats.items() if v and re.match(r"^[a-z0-9]+(-[a-z0-9]+)+$", k)
                     and not k.startswith(("num-", "stop-", "cost-", "ops-", "saturation-", "extract-"))}
            print(f"{'':<12} rules fired: " + ", ".join(f"{k} {v}" for k, v in sorted(fired.items())))
        if args.latency:
            latency(args, models, names)


if __name__ == "__main__":
    main()
