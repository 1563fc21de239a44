"""Bazel macro for Loom plugins (for the project and for plugin authors).

loom_plugin(name, srcs, deps) builds lib<name>.so against the SDK headers
only: it links nothing from the core, exports only LoomPluginInit (every
other symbol is hidden), and resolves all its own symbols at link time.
"""

def loom_plugin(name, srcs, deps = [], copts = [], linkopts = [], **kwargs):
    native.cc_binary(
        name = "lib" + name + ".so",
        srcs = srcs,
        deps = ["//core/api:sdk"] + deps,
        copts = ["-fvisibility=hidden", "-fvisibility-inlines-hidden"] + copts,
        linkopts = ["-Wl,--no-undefined", "-Wl,-z,defs"] + linkopts,
        linkshared = 1,
        linkstatic = 1,
        **kwargs
    )
