"""Repository rule @local_cuda: the CUDA toolkit installed on this machine.

Looks for the toolkit at $CUDA_PATH (default /usr/local/cuda). When it is
there, the repository exposes its headers (:cuda_headers), the runtime,
cuBLAS/cuBLASLt and cuDNN link flags (:cuda_libs) and nvcc (:nvcc, a
wrapper script). When it is not, the same targets exist but are empty and
:nvcc fails with a message, so `bazel build //...` without --config=cuda
never needs the toolkit (the CUDA targets are skipped as incompatible).
"""

def _impl(ctx):
    path = ctx.os.environ.get("CUDA_PATH", "/usr/local/cuda")
    found = ctx.path(path + "/include/cuda_runtime.h").exists and ctx.path(path + "/bin/nvcc").exists
    if found:
        ctx.symlink(path + "/include", "include")
        ctx.file("nvcc", "#!/bin/sh\nexec %s/bin/nvcc \"$@\"\n" % path, executable = True)
        hdrs = 'glob(["include/**"], allow_empty = True)'
        linkopts = '["-L%s/lib64", "-Wl,-rpath,%s/lib64", "-lcudnn", "-lcublasLt", "-lcublas", "-lcudart"]' % (path, path)
    else:
        ctx.file("nvcc", "#!/bin/sh\necho 'nvcc: no CUDA toolkit at %s (set CUDA_PATH)' >&2\nexit 1\n" % path, executable = True)
        hdrs = "[]"
        linkopts = "[]"
    ctx.file("BUILD", """package(default_visibility = ["//visibility:public"])

# CUDA toolkit at {path} (found: {found}).
cc_library(
    name = "cuda_headers",
    hdrs = {hdrs},
    includes = ["include"],
)

cc_library(
    name = "cuda_libs",
    linkopts = {linkopts},
    deps = [":cuda_headers"],
)

# NCCL's header and where its library is, for code that loads libnccl at
# run time (the collectives plugin, which every tool loads, must not link
# its 200 MB).
cc_library(
    name = "nccl_headers",
    defines = ["LOOM_CUDA_LIB_DIR='\\"{path}/lib64\\"'"],  # quoted for Bazel's shell tokenization
    deps = [":cuda_headers"],
)

exports_files(["nvcc"])
""".format(path = path, found = found, hdrs = hdrs, linkopts = linkopts))

cuda_configure = repository_rule(
    implementation = _impl,
    environ = ["CUDA_PATH"],
    local = True,
)
