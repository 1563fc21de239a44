// Runs a function in a forked child process, so a crash, a hang or an exit()
// in it (a broken plugin, a faulty kernel) cannot take the tool down.
#ifndef LOOM_TOOLS_CHILD_PROCESS_H_
#define LOOM_TOOLS_CHILD_PROCESS_H_

#include <functional>
#include <string>

namespace loom {
namespace tools {

struct ChildResult {
  std::string output;      // what `fn` returned (when completed), else what came before the end
  bool completed = false;  // fn returned and its whole result arrived
  int signal = 0;          // nonzero if the child died of a signal; SIGALRM when it timed out
  bool timed_out = false;  // killed (SIGKILL, with any processes it started) after timeout_s
  bool started = false;    // RunInChildTimed: fn started the timer (RunInChild: false)
  bool in_setup = false;   // RunInChildTimed: it timed out before fn started the timer
  bool exited = false;     // the child ended through exit()/_exit() ...
  int exit_code = 0;       // ... with this code; exited && !completed: something in fn called exit()
  double seconds = 0;      // how long the child ran
  std::string error;       // the child could not be started (pipe/fork failed)

  // One line on how the child ended when it did not complete:
  // "crashed: signal 11 (Segmentation fault)", "timed out after 2 s (killed)",
  // "exited with code 3", "could not start: ..."; empty when completed.
  std::string Describe(int timeout_s) const;
};

// Forks; the child runs `fn` and sends its result back through a pipe.
// With timeout_s > 0 the parent kills the child's process group with SIGKILL
// once that many seconds have passed (a child that blocks or ignores signals
// cannot stop it) and reports timed_out (and signal = SIGALRM). The child
// writes no core file. stdout and stderr are flushed before the fork, so the
// child cannot print the parent's buffered output again.
ChildResult RunInChild(const std::function<std::string()>& fn, int timeout_s = 0);

// Like RunInChild, for a child with a setup phase that the timeout should not
// cover: fn calls start_timer() when the part under test begins; timeout_s
// counts from then. Before that, setup_timeout_s applies (<= 0: no limit).
ChildResult RunInChildTimed(const std::function<std::string(const std::function<void()>& start_timer)>& fn,
                            int timeout_s, int setup_timeout_s);

}  // namespace tools
}  // namespace loom

#endif  // LOOM_TOOLS_CHILD_PROCESS_H_
