// The main of Loom's C++ tests: GoogleTest's, plus the debugging switches
// CI sets in the environment, which the core does not read itself.
#include <cstdlib>

#include "core/net.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleMock(&argc, argv);
  if (const char* poison = std::getenv("LOOM_POISON_RELEASED_MEMORY"); poison != nullptr && poison[0] == '1') {
    loom::SetPoisonReleasedMemoryByDefault(true);  // NetOptions::poison_released_memory for every net
  }
  return RUN_ALL_TESTS();
}
