#!/usr/bin/env python3
"""The 4-layer LSTM benchmark in PyTorch (torch.nn.LSTM, cuDNN), for the GPU
rows of BENCHMARKS.md next to Loom's.

Same sizes as tools/bench/make_bench_models' lstm4.onnx and
tools/bench/rnn_bench: 4 layers, input 512, hidden 512, batch 32, T 50,
sequence-first X [50, 32, 512], float32, inference (torch.no_grad), X, the
initial states and the weights already on the GPU. Random weights (timing
does not depend on them). Each configuration: WARMUP untimed runs, then RUNS
timed runs, each ended by torch.cuda.synchronize(); prints the median ms in
rnn_bench's format ("%-52s %12.2f"), once with TF32 off (strict float32, as
Loom's float32 kernels) and once with PyTorch's default cuDNN TF32 setting.

  python3 tools/bench/torch_lstm.py [--warmup 3] [--runs 20] [--device cuda]
"""
import argparse
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--input", type=int, default=512)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--device", default="cuda")
    args = ap.parse_args()
    try:
        import torch
    except ImportError as e:
        print(f"torch_lstm: PyTorch is not installed: {e}", file=sys.stderr)
        return 1
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("torch_lstm: torch.cuda.is_available() is False (no GPU or no driver)", file=sys.stderr)
        return 1
    dev = torch.device(args.device)
    torch.manual_seed(1)
    lstm = torch.nn.LSTM(args.input, args.hidden, num_layers=args.layers).to(dev).eval()
    x = torch.rand(args.steps, args.batch, args.input, device=dev) * 2 - 1
    h0 = (torch.rand(args.layers, args.batch, args.hidden, device=dev) * 2 - 1) * 0.1
    c0 = (torch.rand(args.layers, args.batch, args.hidden, device=dev) * 2 - 1) * 0.1
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "CPU"
    print(f"torch.nn.LSTM benchmark on {name}: layers {args.layers}, hidden {args.hidden}, batch {args.batch}, "
          f"T {args.steps}, input {args.input}; PyTorch {torch.__version__}, cuDNN "
          f"{torch.backends.cudnn.version() if dev.type == 'cuda' else '-'}; {max(1, args.warmup)} warm-up, "
          f"{max(1, args.runs)} timed runs")
    print(f"{'executor':<52} {'median ms':>12}")
    default_tf32 = torch.backends.cudnn.allow_tf32
    for tf32 in (False, True):
        if tf32 and dev.type != "cuda":
            break
        torch.backends.cudnn.allow_tf32 = tf32 if not tf32 else default_tf32
        ms = []
        with torch.no_grad():
            for _ in range(max(1, args.warmup)):
                lstm(x, (h0, c0))
            sync()
            for _ in range(max(1, args.runs)):
                start = time.perf_counter()
                lstm(x, (h0, c0))
                sync()
                ms.append((time.perf_counter() - start) * 1000.0)
        label = ("torch.nn.LSTM (cuDNN), TF32 off" if not tf32 else
                 f"torch.nn.LSTM (cuDNN), TF32 {'on' if default_tf32 else 'off'} (PyTorch default)")
        if dev.type != "cuda":
            label = "torch.nn.LSTM (CPU)"
        print(f"{label:<52} {statistics.median(ms):12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
