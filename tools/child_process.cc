#include "tools/child_process.h"

#include <sys/wait.h>
#include <unistd.h>

namespace loom {
namespace tools {

ChildResult RunInChild(const std::function<std::string()>& fn, int timeout_s) {
  ChildResult result;
  int fds[2];
  if (pipe(fds) != 0) {
    result.output = "pipe failed";
    return result;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (timeout_s > 0) alarm(static_cast<unsigned>(timeout_s));
    std::string msg = fn();
    const char* p = msg.data();
    size_t left = msg.size();
    while (left > 0) {
      ssize_t n = write(fds[1], p, left);
      if (n <= 0) break;
      p += n;
      left -= static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) result.output.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace tools
}  // namespace loom
