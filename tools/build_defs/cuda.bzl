"""Compiling CUDA sources (.cu) with nvcc for Loom plugins.

cuda_objects(name, srcs, hdrs) runs nvcc once per .cu file and gives the
position-independent objects as one filegroup, to list in a loom_plugin's
srcs. Targets: sm_80 and sm_90 SASS plus compute_90 PTX (so newer GPUs JIT).
Only meaningful with --config=cuda (see .bazelrc); the toolkit comes from
@local_cuda (third_party/cuda/cuda_configure.bzl).
"""

CUDA_ARCH_FLAGS = [
    "-gencode=arch=compute_80,code=sm_80",
    "-gencode=arch=compute_90,code=sm_90",
    "-gencode=arch=compute_90,code=compute_90",
]

def cuda_objects(name, srcs, hdrs = [], copts = []):
    outs = []
    for src in srcs:
        obj = src.replace(".cu", ".cu.o")
        native.genrule(
            name = name + "_" + src.replace("/", "_").replace(".", "_"),
            srcs = [src] + hdrs + ["@local_cuda//:cuda_headers"],
            outs = [obj],
            tools = ["@local_cuda//:nvcc"],
            cmd = " ".join([
                "$(location @local_cuda//:nvcc)",
                "-c $(location " + src + ")",
                "-o $@",
                "-std=c++17 -O3 -I. -I$(GENDIR)",
                "-Xcompiler -fPIC -Xcompiler -fvisibility=hidden",
            ] + CUDA_ARCH_FLAGS + copts),
        )
        outs.append(obj)
    native.filegroup(name = name, srcs = outs)

def loom_cuda_test(name, srcs, deps = [], data = [], **kwargs):
    """A gtest comparing CUDA kernels with the CPU ones (plugins/cuda).

    Built only with --config=cuda; its tests skip (LOOM_SKIP_WITHOUT_GPU)
    when cudaGetDeviceCount does not find a device.
    """
    native.cc_test(
        name = name,
        srcs = srcs,
        data = [
            "//plugins/cpu:libloom_cpu.so",
            "//plugins/cuda:libloom_cuda.so",
        ] + data,
        deps = [
            "//plugins/cuda:cuda_test_util",
            "//testing:test_main",
        ] + deps,
        target_compatible_with = select({
            "//tools/build_defs:cuda": [],
            "//conditions:default": ["@platforms//:incompatible"],
        }),
        **kwargs
    )
