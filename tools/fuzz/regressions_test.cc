// Replays every file under the folders given as arguments (a target's
// seeds/ and regressions/) through the target's LoomFuzzOne, built without
// libFuzzer (any compiler). A crash, sanitizer report or LOOM_FUZZ_CHECK
// abort fails the test; a missing folder is empty.
//
// A folder may hold KNOWN_OPEN: names of its files (one a line, `#`
// comments) whose bug is reported but not fixed yet. Those replay in a
// child process: the test prints whether each still fails and does not fail
// on them (without sanitizers an undefined-behaviour report may pass).
// Once a fix lands, delete the line and the file guards the fix.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "tools/fuzz/fuzz_entry.h"

namespace {

std::string ReadAll(const std::filesystem::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::set<std::string> KnownOpen(const std::filesystem::path& dir) {
  std::set<std::string> names;
  std::ifstream in(dir / "KNOWN_OPEN");
  for (std::string line; std::getline(in, line);) {
    line.erase(0, line.find_first_not_of(" \t"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty() && line[0] != '#') names.insert(line);
  }
  return names;
}

void Replay(const std::string& bytes) {
  LoomFuzzOne(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  int replayed = 0, open_failing = 0, open_passing = 0;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (!fs::is_directory(argv[i], ec)) continue;
    std::set<std::string> known = KnownOpen(argv[i]);
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(argv[i], ec)) {
      std::string name = e.path().filename().string();
      if (e.is_regular_file() && name[0] != '.' && name != "KNOWN_OPEN" && e.path().extension() != ".md") {
        files.push_back(e.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      std::string bytes = ReadAll(f);
      if (known.count(f.filename().string())) {
        std::fflush(nullptr);
        pid_t pid = ::fork();
        if (pid == 0) {
          Replay(bytes);
          std::fflush(nullptr);
          ::_exit(0);
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
        bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        std::fprintf(stderr, "known open %s: %s\n", f.c_str(),
                     ok ? "passes in this build (a sanitizer-only report passes without sanitizers: check under "
                          "--config=fuzz before removing it from KNOWN_OPEN)"
                        : "still fails (not counted)");
        ++(ok ? open_passing : open_failing);
        continue;
      }
      std::fprintf(stderr, "replay %s (%zu bytes)\n", f.c_str(), bytes.size());
      Replay(bytes);
      ++replayed;
    }
  }
  std::printf("replayed %d inputs: no crash; known open: %d still failing, %d passing\n", replayed, open_failing,
              open_passing);
  return 0;
}
