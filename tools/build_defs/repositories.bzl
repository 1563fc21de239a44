"""The repositories Loom's build needs, for Loom's WORKSPACE and for a
workspace that brings Loom in (examples/ocr_session/WORKSPACE):

    local_repository(name = "loom", path = "/path/to/loom")
    load("@loom//tools/build_defs:repositories.bzl", "loom_repositories")
    loom_repositories(loom_path = "/path/to/loom")

Everything is on this machine (no downloads): Bazel's own rule sets from
Loom's offline shims (third_party/README.md), the CUDA toolkit if installed
(@local_cuda) and Python's and pybind11's headers (@local_python). The
libraries (Abseil, protobuf, oneDNN, ...) are Debian's, found by the
compiler (third_party/BUILD).
"""

load("//third_party/cuda:cuda_configure.bzl", "cuda_configure")
load("//third_party/python:python_configure.bzl", "python_configure")

def loom_repositories(loom_path):
    """`loom_path`: Loom's folder, absolute or relative to the calling workspace."""
    for name in ["rules_cc", "rules_java", "remote_coverage_tools"]:
        if not native.existing_rule(name):
            native.local_repository(name = name, path = loom_path + "/third_party/" + name)
    cuda_configure(name = "local_cuda")
    python_configure(name = "local_python")
