#include "core/trace.h"

#include <atomic>
#include <fstream>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace loom {
namespace {

std::atomic<TraceRecorder*> active{nullptr};

std::string Json(const std::string& s) {
  return "\"" + absl::StrReplaceAll(s, {{"\\", "\\\\"}, {"\"", "\\\""}, {"\n", "\\n"}}) + "\"";
}

}  // namespace

TraceRecorder::TraceRecorder() : origin_(std::chrono::steady_clock::now()) {}

TraceRecorder::~TraceRecorder() { Stop(); }

void TraceRecorder::Start() { active.store(this, std::memory_order_release); }

void TraceRecorder::Stop() {
  TraceRecorder* self = this;
  active.compare_exchange_strong(self, nullptr, std::memory_order_acq_rel);
}

TraceRecorder* TraceRecorder::Active() { return active.load(std::memory_order_relaxed); }

int TraceRecorder::ThreadIndex() {
  const uint64_t id = std::hash<std::thread::id>()(std::this_thread::get_id());
  for (size_t i = 0; i < threads_.size(); ++i) {
    if (threads_[i] == id) return static_cast<int>(i);
  }
  threads_.push_back(id);
  return static_cast<int>(threads_.size() - 1);
}

void TraceRecorder::Record(const std::string& name, std::chrono::steady_clock::time_point start,
                           std::chrono::steady_clock::duration duration, const std::string& args) {
  const int64_t start_us = std::chrono::duration_cast<std::chrono::microseconds>(start - origin_).count();
  const int64_t duration_us = std::chrono::duration_cast<std::chrono::microseconds>(duration).count();
  absl::MutexLock lock(&mu_);
  events_.push_back({name, args, start_us, duration_us, ThreadIndex()});
}

size_t TraceRecorder::size() const {
  absl::MutexLock lock(&mu_);
  return events_.size();
}

absl::Status TraceRecorder::WriteJson(const std::string& path) const {
  absl::MutexLock lock(&mu_);
  std::ofstream f(path);
  f << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  for (size_t i = 0; i < threads_.size(); ++i) {
    f << "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": " << i << ", \"args\": {\"name\": "
      << Json(absl::StrCat("thread ", i)) << "}},\n";
  }
  for (size_t i = 0; i < events_.size(); ++i) {
    const Event& e = events_[i];
    f << "{\"ph\": \"X\", \"cat\": \"op\", \"name\": " << Json(e.name) << ", \"pid\": 1, \"tid\": " << e.tid
      << ", \"ts\": " << e.start_us << ", \"dur\": " << e.duration_us;
    if (!e.args.empty()) f << ", \"args\": {" << e.args << "}";
    f << "}" << (i + 1 < events_.size() ? ",\n" : "\n");
  }
  f << "]}\n";
  if (!f) return absl::InternalError(absl::StrCat("cannot write the trace to ", path));
  return absl::OkStatus();
}

}  // namespace loom
