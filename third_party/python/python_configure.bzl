"""Repository rule @local_python: Python's and pybind11's headers on this machine.

For the `loom` Python module (//python). The interpreter is $LOOM_PYTHON, by
default Debian's /usr/bin/python3 (the one python3-numpy, python3-pybind11
and python3-pytest install into; scripts/setup.sh installs them). It tells
where its headers and pybind11's are. Without it (or without pybind11) the
targets exist but are empty: only the Python module's targets fail to build
("pybind11/pybind11.h: No such file"); `bazel test --keep_going //...` still
runs the rest.
"""

def _run(ctx, python, code):
    r = ctx.execute([python, "-c", code])
    return r.stdout.strip() if r.return_code == 0 else ""

def _impl(ctx):
    python = ctx.os.environ.get("LOOM_PYTHON", "/usr/bin/python3")
    found = ctx.path(python).exists
    include = _run(ctx, python, "import sysconfig; print(sysconfig.get_paths()['include'])") if found else ""
    pybind11 = _run(ctx, python, "import pybind11; print(pybind11.get_include())") if found else ""
    if include and ctx.path(include + "/Python.h").exists:
        ctx.symlink(include, "python_include")
    else:
        ctx.file("python_include/.none", "")
    if pybind11 and ctx.path(pybind11 + "/pybind11/pybind11.h").exists:
        ctx.symlink(pybind11, "pybind11_include")
    else:
        ctx.file("pybind11_include/.none", "")
    ctx.file("BUILD", """package(default_visibility = ["//visibility:public"])

# Interpreter {python}: Python headers at '{include}', pybind11's at '{pybind11}'.
cc_library(
    name = "python_headers",
    hdrs = glob(["python_include/**/*.h"], allow_empty = True),
    includes = ["python_include"],
)

cc_library(
    name = "pybind11",
    hdrs = glob(["pybind11_include/**/*.h"], allow_empty = True),
    includes = ["pybind11_include"],
    deps = [":python_headers"],
)

# The interpreter the tests run with.
exports_files(["python3", "defs.bzl"])
""".format(python = python, include = include, pybind11 = pybind11))
    ctx.file("python3", "#!/bin/sh\nexec %s \"$@\"\n" % python, executable = True)

    # The wheel's tag (//python:wheel): the interpreter's, as pip expects of
    # an extension built against its headers (cp311-cp311-linux_x86_64).
    tag = _run(ctx, python, "import sys, sysconfig; v = 'cp%d%d' % sys.version_info[:2]; " +
                            "print(v + '-' + v + '-' + sysconfig.get_platform().replace('-', '_').replace('.', '_'))") if found else ""
    ctx.file("defs.bzl", "# Made by python_configure.bzl.\nWHEEL_TAG = \"%s\"\n" % (tag or "py3-none-any"))

python_configure = repository_rule(
    implementation = _impl,
    environ = ["LOOM_PYTHON"],
    local = True,
)
