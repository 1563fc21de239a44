// to_tensor: turns real data made on this machine (an image from ImageMagick,
// a sound from espeak-ng) into model inputs, for tests/real_models_test.sh
// and by hand. Each tensor is written three ways, so that Loom and ONNX
// Runtime read exactly the same values:
//   PREFIX.pb    Loom TensorProto (loom_run name=PREFIX.pb)
//   PREFIX.bin   raw little-endian data (for tools/real_models/ort_compare.js)
//   PREFIX.json  {"dtype": "...", "dims": [...]} (the .bin's type and shape)
//
// Subcommands:
//
//   to_tensor image OUT_PREFIX [--height H] [--width W] [--pad_width PW]
//                   [--mean m0,m1,m2] [--std s0,s1,s2] [--bgr] < picture
//     Reads a picture from stdin: a binary PPM (`convert ... ppm:-`, 8 or 16
//     bits a sample), or raw 8-bit RGB bytes (`convert ... -depth 8 rgb:-`, then --width and
//     --height are required). Writes float32 [1, 3, H, max(W, PW)] (NCHW):
//     value = (sample / maxval - mean[c]) / std[c] (maxval 255 for raw RGB), channels in RGB order (BGR
//     with --bgr, for models trained on OpenCV images such as PaddleOCR's).
//     With --pad_width PW > W, columns W..PW-1 are 0 (after normalization:
//     PaddleOCR's recognizer pads short lines to 320 this way); a picture
//     wider than PW is not cut. Resizing is ImageMagick's job.
//
//   to_tensor wav OUT_PREFIX [--rate R] [--window N] < sound.wav
//     Reads a RIFF WAV from stdin (PCM 16-bit, any channel count: channels
//     are averaged; `espeak-ng -w`). Resamples to R Hz (default 16000;
//     linear interpolation) and writes float32 [1, N] in [-1, 1]: the N
//     consecutive samples with the most energy (N = 0, the default: all).
//
//   to_tensor fill OUT_PREFIX --dtype float32|int64 --shape d0,d1,... --value V
//     A constant tensor (e.g. a zero recurrent state or a scalar sample
//     rate); an empty --shape gives a rank-0 tensor.
//
// Errors go to stderr with exit code 1; bad usage exits 2.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "core/tensor.h"

namespace {

using loom::DataType;
using loom::Tensor;

int Fail(const std::string& msg) {
  std::cerr << "to_tensor: " << msg << "\n";
  return 1;
}

// Flags of the form --name value (or --name for booleans) after the prefix.
struct Flags {
  std::vector<std::pair<std::string, std::string>> kv;
  bool Has(const std::string& k) const {
    for (const auto& p : kv) if (p.first == k) return true;
    return false;
  }
  std::string Get(const std::string& k, const std::string& def = "") const {
    for (const auto& p : kv) if (p.first == k) return p.second;
    return def;
  }
};

bool ParseFlags(int argc, char** argv, int first, const std::vector<std::string>& booleans, Flags* f,
                std::string* err) {
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      *err = "unexpected argument '" + a + "'";
      return false;
    }
    std::string name = a.substr(2), value;
    size_t eq = name.find('=');
    bool boolean = false;
    for (const auto& b : booleans) boolean |= (name == b);
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (!boolean) {
      if (i + 1 >= argc) {
        *err = "flag --" + name + " needs a value";
        return false;
      }
      value = argv[++i];
    }
    f->kv.emplace_back(name, value);
  }
  return true;
}

bool ParseList(const std::string& s, std::vector<double>* out) {
  out->clear();
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    char* end = nullptr;
    double v = std::strtod(item.c_str(), &end);
    if (end == item.c_str() || *end != '\0') return false;
    out->push_back(v);
  }
  return true;
}

std::string ReadStdin() {
  std::ios::sync_with_stdio(false);
  return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

// Writes PREFIX.pb, PREFIX.bin and PREFIX.json.
int WriteAll(const Tensor& t, const std::string& prefix) {
  absl::Status s = loom::WriteTensorProto(loom::TensorToProto(t), prefix + ".pb");
  if (!s.ok()) return Fail(std::string(s.message()));
  std::ofstream raw(prefix + ".bin", std::ios::binary);
  raw.write(static_cast<const char*>(t.raw_data()), static_cast<std::streamsize>(t.nbytes()));
  std::ofstream json(prefix + ".json");
  json << "{\"dtype\": \"" << loom::DataTypeName(t.dtype()) << "\", \"dims\": [";
  for (size_t i = 0; i < t.dims().size(); ++i) json << (i ? ", " : "") << t.dims()[i];
  json << "]}\n";
  if (!raw || !json) return Fail("cannot write " + prefix + ".bin/.json");
  std::cout << prefix << ": " << loom::DataTypeName(t.dtype()) << " " << loom::ShapeToString(t.dims()) << "\n";
  return 0;
}

// Skips whitespace and '#' comments in a PPM header, then reads a number.
bool PpmNumber(const std::string& d, size_t* pos, int64_t* v) {
  while (*pos < d.size() && (std::isspace(static_cast<unsigned char>(d[*pos])) || d[*pos] == '#')) {
    if (d[*pos] == '#') {
      while (*pos < d.size() && d[*pos] != '\n') ++*pos;
    } else {
      ++*pos;
    }
  }
  size_t start = *pos;
  *v = 0;
  while (*pos < d.size() && std::isdigit(static_cast<unsigned char>(d[*pos]))) *v = *v * 10 + (d[(*pos)++] - '0');
  return *pos > start;
}

int Image(const std::string& prefix, const Flags& f) {
  std::string data = ReadStdin();
  int64_t w = 0, h = 0;
  size_t pixels_at = 0;
  int max_value = 255;  // a PPM may have 16-bit samples (big-endian)
  if (data.size() > 2 && data[0] == 'P' && data[1] == '6') {
    size_t pos = 2;
    int64_t maxval = 0;
    if (!PpmNumber(data, &pos, &w) || !PpmNumber(data, &pos, &h) || !PpmNumber(data, &pos, &maxval)) {
      return Fail("image: bad PPM header");
    }
    if (maxval <= 0 || maxval > 65535) return Fail("image: bad PPM maxval " + std::to_string(maxval));
    max_value = static_cast<int>(maxval);
    pixels_at = pos + 1;  // one whitespace byte ends the header
  } else {
    w = std::atoll(f.Get("width", "0").c_str());
    h = std::atoll(f.Get("height", "0").c_str());
    if (w <= 0 || h <= 0) return Fail("image: stdin is not a PPM; raw RGB input needs --width and --height");
  }
  if (f.Has("width") && std::atoll(f.Get("width").c_str()) != w) return Fail("image: --width differs from the PPM's");
  if (f.Has("height") && std::atoll(f.Get("height").c_str()) != h) return Fail("image: --height differs from the PPM's");
  const int64_t bytes = max_value > 255 ? 2 : 1;
  if (data.size() < pixels_at + static_cast<size_t>(w * h * 3 * bytes)) {
    return Fail("image: expected " + std::to_string(w * h * 3 * bytes) + " bytes of RGB pixels for " + std::to_string(w) +
                "x" + std::to_string(h) + ", found " + std::to_string(data.size() - pixels_at));
  }
  std::vector<double> mean{0, 0, 0}, stdv{1, 1, 1};
  if (f.Has("mean") && (!ParseList(f.Get("mean"), &mean) || mean.size() != 3)) return Fail("image: --mean needs 3 numbers");
  if (f.Has("std") && (!ParseList(f.Get("std"), &stdv) || stdv.size() != 3)) return Fail("image: --std needs 3 numbers");
  const int64_t pw = std::max<int64_t>(w, std::atoll(f.Get("pad_width", "0").c_str()));
  const bool bgr = f.Has("bgr");
  Tensor t = Tensor::Zeros(DataType::kFloat32, {1, 3, h, pw});
  float* out = t.data<float>();
  const auto* px = reinterpret_cast<const unsigned char*>(data.data() + pixels_at);
  for (int c = 0; c < 3; ++c) {
    int src = bgr ? 2 - c : c;
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        int64_t i = (y * w + x) * 3 + src;
        int v = bytes == 2 ? px[2 * i] << 8 | px[2 * i + 1] : px[i];
        out[(c * h + y) * pw + x] = static_cast<float>((static_cast<double>(v) / max_value - mean[c]) / stdv[c]);
      }
    }
  }
  return WriteAll(t, prefix);
}

uint32_t Le32(const std::string& d, size_t at) {
  return static_cast<uint8_t>(d[at]) | static_cast<uint8_t>(d[at + 1]) << 8 | static_cast<uint8_t>(d[at + 2]) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(d[at + 3])) << 24;
}
uint16_t Le16(const std::string& d, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(d[at]) | static_cast<uint8_t>(d[at + 1]) << 8);
}

int Wav(const std::string& prefix, const Flags& f) {
  std::string d = ReadStdin();
  if (d.size() < 12 || d.compare(0, 4, "RIFF") != 0 || d.compare(8, 4, "WAVE") != 0) return Fail("wav: stdin is not a RIFF WAVE file");
  int channels = 0, bits = 0;
  uint32_t rate = 0;
  std::vector<double> mono;
  // espeak-ng writing to a pipe leaves the RIFF and data sizes at 0x7fffffff
  // or so: the data chunk then runs to the end of the input.
  for (size_t at = 12; at + 8 <= d.size();) {
    std::string id = d.substr(at, 4);
    size_t size = Le32(d, at + 4), body = at + 8;
    if (id == "fmt " && body + 16 <= d.size()) {
      if (Le16(d, body) != 1) return Fail("wav: only PCM is supported (format " + std::to_string(Le16(d, body)) + ")");
      channels = Le16(d, body + 2);
      rate = Le32(d, body + 4);
      bits = Le16(d, body + 14);
    } else if (id == "data") {
      if (channels <= 0 || bits != 16 || rate == 0) return Fail("wav: want 16-bit PCM with a fmt chunk before the data");
      size_t end = std::min(d.size(), body + size);
      for (size_t p = body; p + 2 * channels <= end; p += 2 * channels) {
        double s = 0;
        for (int c = 0; c < channels; ++c) s += static_cast<int16_t>(Le16(d, p + 2 * c)) / 32768.0;
        mono.push_back(s / channels);
      }
      break;
    }
    at = body + size + (size & 1);
  }
  if (mono.empty()) return Fail("wav: no samples");
  double target = std::atof(f.Get("rate", "16000").c_str());
  if (target <= 0) return Fail("wav: bad --rate");
  // Linear interpolation: simple and deterministic; both engines see the same
  // samples, which is what the comparison needs.
  std::vector<float> out;
  double step = rate / target;
  for (double pos = 0; pos <= mono.size() - 1; pos += step) {
    size_t i = static_cast<size_t>(pos);
    double frac = pos - i;
    double b = i + 1 < mono.size() ? mono[i + 1] : mono[i];
    out.push_back(static_cast<float>(mono[i] * (1 - frac) + b * frac));
  }
  int64_t n = std::atoll(f.Get("window", "0").c_str());
  if (n < 0) return Fail("wav: bad --window");
  size_t start = 0;
  if (n > 0) {
    if (static_cast<size_t>(n) > out.size()) {
      return Fail("wav: --window " + std::to_string(n) + " is longer than the sound (" + std::to_string(out.size()) + " samples)");
    }
    double e = 0, best = -1;
    for (int64_t i = 0; i < n; ++i) e += out[i] * out[i];
    for (size_t s = 0;; ++s) {
      if (e > best) best = e, start = s;
      if (s + n >= out.size()) break;
      e += out[s + n] * out[s + n] - out[s] * out[s];
    }
  } else {
    n = static_cast<int64_t>(out.size());
  }
  std::vector<float> window(out.begin() + start, out.begin() + start + n);
  return WriteAll(Tensor::FromVector<float>({1, n}, window), prefix);
}

int Fill(const std::string& prefix, const Flags& f) {
  std::vector<double> dims_d, value;
  if (!ParseList(f.Get("shape"), &dims_d)) return Fail("fill: bad --shape");
  if (!ParseList(f.Get("value", "0"), &value) || value.size() != 1) return Fail("fill: --value needs one number");
  loom::Shape dims(dims_d.begin(), dims_d.end());
  std::string dtype = f.Get("dtype", "float32");
  Tensor t;
  if (dtype == "float32") {
    t = Tensor::Zeros(DataType::kFloat32, dims);
    for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = static_cast<float>(value[0]);
  } else if (dtype == "int64") {
    t = Tensor::Zeros(DataType::kInt64, dims);
    for (int64_t i = 0; i < t.num_elements(); ++i) t.data<int64_t>()[i] = static_cast<int64_t>(value[0]);
  } else {
    return Fail("fill: --dtype must be float32 or int64, not '" + dtype + "'");
  }
  return WriteAll(t, prefix);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || std::string(argv[2]).rfind("--", 0) == 0) {
    std::cerr << "usage: to_tensor image|wav|fill OUT_PREFIX [flags]  (see tools/real_models/to_tensor.cc)\n";
    return 2;
  }
  std::string cmd = argv[1], prefix = argv[2], err;
  Flags f;
  if (!ParseFlags(argc, argv, 3, {"bgr"}, &f, &err)) {
    std::cerr << "to_tensor: " << err << "\n";
    return 2;
  }
  if (cmd == "image") return Image(prefix, f);
  if (cmd == "wav") return Wav(prefix, f);
  if (cmd == "fill") return Fill(prefix, f);
  std::cerr << "to_tensor: unknown subcommand '" << cmd << "' (image, wav or fill)\n";
  return 2;
}
