#include "tools/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "absl/strings/str_cat.h"

namespace loom {
namespace tools {
namespace {

using Clock = std::chrono::steady_clock;

// What the child writes: 'S' when fn starts the timer (RunInChildTimed),
// then 'R', an 8-byte length and the result's bytes. A result shorter than
// its length did not complete (the child died while writing).
void WriteAll(int fd, const char* p, size_t left) {
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

// Reads what is readable now; false at end of file or on an error.
bool ReadAvailable(int fd, std::string* out) {
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      out->append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    return false;
  }
}

}  // namespace

std::string ChildResult::Describe(int timeout_s) const {
  if (!error.empty()) return absl::StrCat("could not start: ", error);
  if (timed_out) return absl::StrCat("timed out after ", timeout_s, " s (killed)");
  if (signal != 0) return absl::StrCat("crashed: signal ", signal, " (", strsignal(signal), ")");
  if (exited && !completed) return absl::StrCat("exited with code ", exit_code);
  return "";
}

ChildResult RunInChild(const std::function<std::string()>& fn, int timeout_s) {
  return RunInChildTimed([&](const std::function<void()>&) { return fn(); }, timeout_s, timeout_s);
}

ChildResult RunInChildTimed(const std::function<std::string(const std::function<void()>& start_timer)>& fn,
                            int timeout_s, int setup_timeout_s) {
  ChildResult result;
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    result.error = absl::StrCat("pipe: ", strerror(errno));
    return result;
  }
  const Clock::time_point start = Clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    result.error = absl::StrCat("fork: ", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own process group: a timeout kills whatever it started too
    close(fds[0]);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    bool started = false;
    std::string msg = fn([&] {
      if (!started) WriteAll(fds[1], "S", 1);
      started = true;
    });
    uint64_t len = msg.size();
    WriteAll(fds[1], "R", 1);
    WriteAll(fds[1], reinterpret_cast<const char*>(&len), sizeof(len));
    WriteAll(fds[1], msg.data(), msg.size());
    close(fds[1]);
    _exit(0);
  }
  setpgid(pid, pid);  // also here, so the group exists before any kill
  close(fds[1]);
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);

  // The deadline of the current phase: setup until the child says 'S'.
  bool started = false;
  auto deadline_of = [](Clock::time_point from, int s) {
    return s > 0 ? from + std::chrono::seconds(s) : Clock::time_point::max();
  };
  Clock::time_point deadline = deadline_of(start, setup_timeout_s);
  std::string raw;
  size_t parsed = 0;  // bytes of raw looked at for 'S' markers
  bool pipe_open = true, reaped = false;
  int status = 0;
  auto parse = [&] {
    while (parsed < raw.size() && raw[parsed] == 'S') {
      ++parsed;
      if (!started) deadline = deadline_of(Clock::now(), timeout_s);
      started = true;
    }
  };
  for (;;) {
    if (!reaped && waitpid(pid, &status, WNOHANG) == pid) reaped = true;
    if (reaped) {
      // The child is gone; take what it wrote. Something it started may still
      // hold the pipe: end that too rather than wait for it.
      if (pipe_open) ReadAvailable(fds[0], &raw);
      kill(-pid, SIGKILL);
      break;
    }
    int wait_ms = 50;
    if (deadline != Clock::time_point::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        result.timed_out = true;
        result.in_setup = !started;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (pipe_open) ReadAvailable(fds[0], &raw);
        break;
      }
      wait_ms = static_cast<int>(std::min<int64_t>(wait_ms, left));
    }
    if (pipe_open) {
      struct pollfd p = {fds[0], POLLIN, 0};
      int r = poll(&p, 1, wait_ms);
      if (r > 0) {
        pipe_open = ReadAvailable(fds[0], &raw);
        parse();
      }
    } else {
      usleep(static_cast<useconds_t>(std::min(wait_ms, 10)) * 1000);
    }
  }
  parse();
  close(fds[0]);
  result.started = started;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();

  if (result.timed_out) {
    result.signal = SIGALRM;
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  }
  uint64_t len = 0;
  if (raw.size() >= parsed + 1 + sizeof(len) && raw[parsed] == 'R') {
    std::memcpy(&len, raw.data() + parsed + 1, sizeof(len));
    result.output = raw.substr(parsed + 1 + sizeof(len));
    result.completed = result.exited && result.exit_code == 0 && result.output.size() == len;
  }
  return result;
}

}  // namespace tools
}  // namespace loom
