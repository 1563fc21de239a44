// A dependency library for the missing-dependency plugin test.
extern "C" __attribute__((visibility("default"))) int LoomTestDepValue() { return 7; }
