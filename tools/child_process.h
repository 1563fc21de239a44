// Runs a function in a forked child process, so a crash or a hang in it
// (a broken plugin, a faulty kernel) cannot take the tool down.
#ifndef LOOM_TOOLS_CHILD_PROCESS_H_
#define LOOM_TOOLS_CHILD_PROCESS_H_

#include <functional>
#include <string>

namespace loom {
namespace tools {

struct ChildResult {
  std::string output;  // what `fn` returned
  int signal = 0;      // nonzero if the child died of a signal (SIGALRM: timed out)
};

// Forks; the child runs `fn`, sends its result back through a pipe and
// exits. With timeout_s > 0 the child is killed by SIGALRM after that long.
ChildResult RunInChild(const std::function<std::string()>& fn, int timeout_s = 0);

}  // namespace tools
}  // namespace loom

#endif  // LOOM_TOOLS_CHILD_PROCESS_H_
