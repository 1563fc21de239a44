// LOOM_VECTOR_CLONES: an element loop compiled for AVX-512 (x86-64-v4),
// AVX2 with FMA (x86-64-v3: std::fma is one instruction there, as the int8
// loops that match ONNX Runtime's fused rounding need) and the plugin's
// baseline (x86-64-v2, 4-lane vectors, std::fma a libm call), the variant picked once at
// load time by the CPU (GCC function multiversioning, target_clones). The
// AVX-512 clone targets x86-64-v4 (AVX-512 F, BW, DQ, VL), for which GCC 12
// vectorizes with 512-bit registers; a clone for "avx512f" alone kept 256
// bits and ran a requantizing loop at half the speed (0.75 against 1.5 ms
// for 2.4 million int8 values on one core of the AMD EPYC host). For
// the int8 kernels' per-element loops (quantize, requantize, QLinearAdd),
// which oneDNN does not run for us. Not inlined: each clone is its own
// function, and a loop inlined into a kernel stayed scalar.
#ifndef LOOM_PLUGINS_CPU_VECTOR_CLONES_H_
#define LOOM_PLUGINS_CPU_VECTOR_CLONES_H_

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define LOOM_VECTOR_CLONES __attribute__((noinline, target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LOOM_VECTOR_CLONES __attribute__((noinline))
#endif

#endif  // LOOM_PLUGINS_CPU_VECTOR_CLONES_H_
