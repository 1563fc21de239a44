// The entry point every Loom fuzz target implements (tools/fuzz/README.md).
//
// LoomFuzzOne runs one input through the code under test. It returns 0; a
// bug is a crash, a sanitizer report or an abort (LOOM_FUZZ_CHECK), never a
// return value. The same function is linked into the libFuzzer binary
// (fuzz_main.cc, --config=fuzz) and into the replay test
// (regressions_test.cc, any build), which runs every file of the target's
// seeds/ and regressions/ folders through it.
#ifndef LOOM_TOOLS_FUZZ_FUZZ_ENTRY_H_
#define LOOM_TOOLS_FUZZ_FUZZ_ENTRY_H_

#include <cstddef>
#include <cstdint>

extern "C" int LoomFuzzOne(const uint8_t* data, size_t size);

#endif  // LOOM_TOOLS_FUZZ_FUZZ_ENTRY_H_
