// libFuzzer's entry point: forwards to the target's LoomFuzzOne.
#include "tools/fuzz/fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return LoomFuzzOne(data, size); }
