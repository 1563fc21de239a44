// What a net shares with the nets nested in it (If/Loop/Scan bodies, step
// nets), set by the core and by the Session rather than by users: users set
// NetOptions. A top-level net starts from an empty scope (Net::Create fills
// in a packed-constant store and a pool of its own); a nested net's scope is
// its parent's, one level deeper, with the parent's constants as outer
// constants (the ABI's Net_Create, from the creating op's kernel context,
// which carries its net's constants, store, pool and limits).
#ifndef LOOM_CORE_NET_SCOPE_H_
#define LOOM_CORE_NET_SCOPE_H_

#include <memory>
#include <set>
#include <string>

#include "core/buffer_pool.h"
#include "core/packed_constants.h"

namespace loom {

struct NetScope {
  // The enclosing net's blobs whose value is fixed while this net lives (its
  // constants and those it inherited). Those this net reads become its
  // constants, so its kernels may prepack them (CheckedNet::constants), and
  // stay out of its plans' signatures.
  std::set<std::string> outer_constants;
  // Where kernels share the copies of constants they pack
  // (core/packed_constants.h): the step nets of every timestep share one
  // packed copy; a Session's runners share one store. Null: the net makes
  // its own.
  std::shared_ptr<PackedConstants> packed_constants;
  // Where outputs sized at run time come from (core/buffer_pool.h): the nets
  // of consecutive ops share buffers (the layers of a stacked STEPNET LSTM
  // take turns with one set of projections and states). Null: the net makes
  // its own.
  std::shared_ptr<BufferPool> pool;
  // Nets this one is nested in: 0 for a top-level net (checked against
  // NetOptions::max_nesting_depth when a nested net is created).
  int nesting_depth = 0;
};

}  // namespace loom

#endif  // LOOM_CORE_NET_SCOPE_H_
