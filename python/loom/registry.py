"""The registry: the ops, kernels and plugins a session, workspace or net
builder works with.

The package's default plugins (``loom_plugins/`` inside it: the CPU kernels,
the recurrent-network, control-flow, collectives and example ops) load
first, with the plugins of ``LOOM_PLUGIN_PATH``, then any given ``plugins``
(paths to shared objects).
"""
import functools as _functools
import glob as _glob
import os as _os

from . import _loom

__all__ = ["Registry", "default_registry", "default_plugins", "ops", "plugins"]


def default_plugins():
    """Paths of the plugins that ship in this package (loom_plugins/), sorted."""
    return sorted(_glob.glob(_os.path.join(_os.path.dirname(__file__), "loom_plugins", "*.so")))


def plugin_paths(plugins):
    """`plugins` (a path or paths, str or os.PathLike) as a list of str."""
    if isinstance(plugins, (str, _os.PathLike)):
        plugins = [plugins]
    return [_os.fspath(p) for p in plugins]


class Registry(_loom.Registry):
    """Registry(plugins=()): the built-in standard ops, the default plugins,
    then ``plugins`` (paths). Raises loom.Error when a plugin fails to load
    (NOT_FOUND naming the folders searched, or the plugin's own error).

    Methods:
      ops()      every op: dicts with op_type, domain, since_version,
                 plugin, differentiable and kernels (device, engine,
                 priority, plugin)
      plugins()  the loaded plugins: name, version, abi_version, path,
                 schemas and kernels (counts), devices
      schema(op_type, domain="")  the op's schema: inputs and outputs
                 (name, type constraint, single/optional/variadic), their
                 bounds, attributes ({name: {type, required, doc}}; types
                 float, int, string, tensor, net, floats, ints, strings,
                 nets), differentiable, plugin, doc. NOT_FOUND for an
                 unknown op; an empty domain means ONNX's op of that type,
                 else the one op of that type in any domain.
      check_op(op_bytes)  checks one serialized loom_pb2.OperatorDef as a
                 net would (schema, input and output counts, attributes, a
                 kernel for its device); raises loom.Error naming the op,
                 the attribute, the expected and the found.
    """

    def __init__(self, plugins=()):
        super().__init__(default_plugins() + plugin_paths(plugins))
        self._schemas = {}

    def cached_schema(self, op_type, domain=""):
        """schema(op_type, domain), kept after the first call."""
        key = (domain, op_type)
        if key not in self._schemas:
            self._schemas[key] = self.schema(op_type, domain)
        return self._schemas[key]


@_functools.lru_cache(maxsize=None)
def default_registry():
    """The process's Registry() with no extra plugins, made on first use and
    shared by every NetBuilder and Workspace not given one."""
    return Registry()


def ops(plugins=()):
    """Every registered op (Registry.ops()) with the default plugins and
    `plugins` loaded. Session.ops() lists what a session loaded."""
    return (Registry(plugins) if plugins else default_registry()).ops()


def plugins(plugins=()):
    """The loaded plugins (Registry.plugins()) for the default plugins and
    `plugins`. Session.plugins() lists what a session loaded."""
    return (Registry(plugins) if plugins else default_registry()).plugins()
