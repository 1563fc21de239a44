"""Bazel macro for Loom plugins (for the project and for plugin authors).

loom_plugin(name, srcs, deps) builds lib<name>.so against the SDK headers
only: it links nothing from the core, exports only LoomPluginInit (every
other symbol is hidden: -fvisibility=hidden, and a version script for the
standard library's template instantiations, which the visibility flags
leave exported), and resolves all its own symbols at link time.
`loom_inspect --check` lists any other symbol a plugin exports.
"""

def loom_plugin(name, srcs, deps = [], copts = [], linkopts = [], exports = [], **kwargs):
    """`exports`: C symbols to export besides LoomPluginInit (a test
    plugin's hooks that its tests dlsym); none for a real plugin."""

    # Label(): resolves in Loom's repository when another workspace loads this
    # macro; spelled out with its repository ("@//" when Loom is the main one)
    # because $(location) reads a bare "//..." in the calling repository.
    lds = Label("//tools/build_defs:plugin_exports.lds")
    script = "@%s//%s:%s" % (lds.workspace_name, lds.package, lds.name)
    if exports:
        native.genrule(
            name = name + "_exports",
            outs = [name + "_exports.lds"],
            cmd = "echo '{ global: LoomPluginInit; %s local: *; };' > $@" % "".join([e + "; " for e in exports]),
            testonly = kwargs.get("testonly", 0),
        )
        script = ":" + name + "_exports.lds"
    native.cc_binary(
        name = "lib" + name + ".so",
        srcs = srcs,
        deps = [Label("//core/api:sdk")] + deps,
        copts = ["-fvisibility=hidden", "-fvisibility-inlines-hidden"] + copts,
        additional_linker_inputs = [script],
        linkopts = ["-Wl,--no-undefined", "-Wl,-z,defs", "-Wl,--version-script=$(location %s)" % script] + linkopts,
        linkshared = 1,
        linkstatic = 1,
        **kwargs
    )

def loom_plugin_test(name, srcs, plugins = [], deps = [], data = [], **kwargs):
    """A cc_test of plugin ops through Loom's test kit, from any workspace:
    links @loom//testing:op_runner (RunSingleOp, AllClose,
    ExpectInferredShapes, CpuRegistryWith) and :gradient_check
    (CheckGradient, float64 or float32) with Loom's test main (//testing:test_main), and has
    Loom's CPU plugin (the op runner finds it through the runfiles) and
    `plugins` (the plugins under test: load one with
    loom::testing::CpuRegistryWith("<its runfiles path>"), e.g.
    "libmy_op.so" from the workspace's root package) in its data."""
    native.cc_test(
        name = name,
        srcs = srcs,
        data = [Label("//plugins/cpu:libloom_cpu.so")] + plugins + data,
        deps = [
            Label("//testing:op_runner"),
            Label("//testing:gradient_check"),
            Label("//testing:test_main"),
        ] + deps,
        **kwargs
    )

# The plugins a tool loads by default: copied into loom_plugins/ next to the
# binaries of the calling package (the core's default plugin folder).
DEFAULT_PLUGINS = [
    "//plugins/cpu:libloom_cpu.so",
    "//plugins/example:libloom_example.so",
    "//plugins/rnn:libloom_rnn.so",
    "//plugins/controlflow:libloom_controlflow.so",
    "//plugins/collectives:libloom_collectives.so",
]

def loom_default_plugins(name, plugins = None):
    """Copies `plugins` (labels; default: DEFAULT_PLUGINS, taken from Loom's
    repository even when another workspace calls this) into loom_plugins/."""
    labels = plugins if plugins != None else DEFAULT_PLUGINS
    native.genrule(
        name = name,
        srcs = plugins if plugins != None else [Label(p) for p in DEFAULT_PLUGINS],
        outs = ["loom_plugins/" + p.split(":")[1] for p in labels],
        cmd = "for f in $(SRCS); do cp $$f $(RULEDIR)/loom_plugins/; done",
    )
