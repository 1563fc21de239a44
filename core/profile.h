// Per-op profiling of net runs.
#ifndef LOOM_CORE_PROFILE_H_
#define LOOM_CORE_PROFILE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loom {

struct OpProfile {
  std::string label;    // "op #3 'conv1' (Conv)"
  std::string op_type;
  std::string kernel;   // "CPU/DNNL from plugin 'cpu'"
  double total_ms = 0;  // summed over runs
  int64_t runs = 0;
  // Bytes of the op's outputs whose shapes the plan knew (the memory
  // planner's view of the op), for the last plan built.
  int64_t output_bytes = 0;
};

struct TypeProfile {
  double total_ms = 0;
  int64_t calls = 0;  // op executions
};

struct Profile {
  std::vector<OpProfile> ops;                 // in net order
  std::map<std::string, TypeProfile> by_type; // per op type
  double total_ms = 0;                        // sum of op times
  int64_t runs = 0;                           // net runs profiled

  // A table: per op (ms per run and share), then per op type.
  std::string ToString() const;
};

}  // namespace loom

#endif  // LOOM_CORE_PROFILE_H_
