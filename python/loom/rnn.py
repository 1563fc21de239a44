"""Recurrent networks from Python: Caffe2's recurrent.recurrent_net and
its cell helpers, building the same RecurrentNetwork op as the C++ builder
(plugins/rnn/builder.h, which does the building for both).

A cell net is one timestep: it reads row t of each input sequence and each
recurrent state's previous value, and writes the state's next value. The
op runs it T times (the threaded timestep executor by default) and, for
training, keeps what the backward pass (RecurrentNetworkGradient, derived
from the cell net) needs.

    cell = loom.NetBuilder("lstm_cell")
    loom.rnn.lstm_cell(cell, "x_t", "h_prev", "c_prev", ("W", "R", "B"), "h_next", "c_next")
    h_all, h_last, c_all, c_last = loom.rnn.recurrent_net(
        net, cell, inputs=[("x_t", "x")],
        initial_cell_inputs=[("h_prev", "h0"), ("c_prev", "c0")],
        links={"h_prev": "h_next", "c_prev": "c_next"}, scope="lstm")
"""
from . import _loom
from . import loom_pb2
from .protos import make_argument

__all__ = ["recurrent_net", "lstm_cell", "gru_cell", "rnn_cell", "stacked_lstm"]


def _reads(cell):
    """Blobs the cell net reads before writing them, in order."""
    written, reads = set(), []
    for op in cell.op:
        for b in op.input:
            if b and b not in written and b not in reads:
                reads.append(b)
        written.update(op.output)
    for b in cell.external_input:
        if b not in written and b not in reads:
            reads.append(b)
    return reads


def recurrent_net(net, cell_net, inputs, initial_cell_inputs, links, timestep=None, scope=None,
                  outputs_with_grads=(0,), recompute_blobs_on_backward=None, forward_only=False, *,
                  reverse=False, threaded=True, num_threads=2, max_parallel_timesteps=2):
    """Appends a RecurrentNetwork op to `net` (a NetBuilder) running
    `cell_net` (a NetBuilder or NetDef, one timestep) over the sequences,
    with Caffe2's recurrent_net arguments:

      inputs               [(cell_blob, sequence)]: the cell reads row t of
                           `sequence` [T, N, ...] as `cell_blob` [1, N, ...];
                           the first sequence sets T
      initial_cell_inputs  [(cell_blob, initial)]: a recurrent state, read by
                           the cell as `cell_blob` [1, N, ...], row 0 being
                           `initial` [1, N, ...]
      links                {cell_blob: cell_output}: the state's next value,
                           written by the cell (every state needs one)
      timestep             the cell's blob holding t (int32 scalar;
                           default "timestep")
      scope                prefix of the op's blobs ("<scope>/..."; default
                           "recurrent_<k>")
      outputs_with_grads   indices into the returned outputs whose
                           gradients flow back; the others are added to
                           net.stop_gradients (add_backward honours them)
      recompute_blobs_on_backward  cell blobs the backward pass recomputes
                           instead of keeping them per timestep
      forward_only         True: inference (no step workspaces kept)

    Loom's own: `reverse` (read the sequences from row T-1 down),
    `threaded` (the threaded timestep executor with `num_threads` workers
    and up to `max_parallel_timesteps` timesteps in flight; else timesteps
    in order).

    Every other blob the cell reads is a parameter: an outer blob of the
    same name (weights), which the gradient reaches. Returns, for each
    state in order, ("<scope>/<cell_blob>_all" [T, N, ...] (rows 1..T: the
    state after each step), "<scope>/<cell_blob>_last" [1, N, ...]), as one
    flat tuple. The full state "<scope>/<cell_blob>_states" [T+1, N, ...]
    is an output too. loom.Error names a cell blob that is neither an
    input, a state, the timestep nor a known outer blob, or a state with
    no link."""
    cell = cell_net.proto if hasattr(cell_net, "proto") else cell_net
    if not isinstance(cell, loom_pb2.NetDef):
        raise TypeError("loom: recurrent_net: cell_net must be a NetBuilder or NetDef")
    timestep = timestep or "timestep"
    if scope is None:
        scope = "recurrent_%d" % sum(1 for op in net.proto.op if op.type == "RecurrentNetwork")
    inputs = [(str(a), str(b)) for a, b in inputs]
    initial_cell_inputs = [(str(a), str(b)) for a, b in initial_cell_inputs]
    for state, _ in initial_cell_inputs:
        if state not in links:
            raise ValueError("loom: recurrent_net: state '%s' has no link (links maps each state read by the "
                             "cell to the blob it writes for the next step)" % state)
    states, aliases, outputs = [], [], []
    for state, initial in initial_cell_inputs:
        full = "%s/%s_states" % (scope, state)
        states.append((full, initial, state, links[state]))
        for suffix, offset in (("_all", 1), ("_last", -1)):
            out = "%s/%s%s" % (scope, state, suffix)
            aliases.append((full, out, offset))
            outputs.append(out)
    known = {i for i, _ in inputs} | {s for s, _ in initial_cell_inputs} | {timestep}
    params = [b for b in _reads(cell) if b not in known]
    op_bytes = _loom._build_recurrent_network(
        scope, cell.SerializeToString(), [(ext, internal) for internal, ext in inputs], states, params, aliases,
        timestep, reverse, threaded, num_threads, max_parallel_timesteps, forward_only)
    op = loom_pb2.OperatorDef()
    op.ParseFromString(op_bytes)
    if recompute_blobs_on_backward:
        op.arg.append(make_argument("recompute_blobs_on_backward", list(recompute_blobs_on_backward), "strings"))
    for i in outputs_with_grads:
        if not 0 <= i < len(outputs):
            raise ValueError("loom: recurrent_net: outputs_with_grads index %d is out of range (%d outputs)"
                             % (i, len(outputs)))
    net.add_op(op)
    net.stop_gradients.update(o for i, o in enumerate(outputs) if i not in set(outputs_with_grads))
    return tuple(outputs)


def _extend(cell_net, data):
    cell = cell_net.proto if hasattr(cell_net, "proto") else cell_net
    cell.ParseFromString(data)


def _cell(cell_net):
    return (cell_net.proto if hasattr(cell_net, "proto") else cell_net).SerializeToString()


def lstm_cell(cell_net, x_t, h_prev, c_prev, weights, h_next, c_next, *, prefix="", fused=True, seq_lengths="",
              timestep="timestep"):
    """Appends one LSTM step to `cell_net`: gates = x_t @ W + h_prev @ R + B;
    (h_next, c_next) = LSTMUnit(h_prev, c_prev, gates). `weights` (W, R, B):
    W [I, 4H], R [H, 4H], B [4H], right-multiplied, gate order i, f, o, g.
    `fused` False spells the unit out in standard ops. `seq_lengths` (an
    int32 [N] blob; fused only): past a sequence's end the state carries
    over. Blob names get `prefix`. ValueError for `seq_lengths` without
    `fused` (the spelled-out unit has no place for it)."""
    if seq_lengths and not fused:
        raise ValueError("loom: lstm_cell: seq_lengths needs the fused LSTMUnit cell (fused=True)")
    _extend(cell_net, _loom._add_lstm_cell(_cell(cell_net), prefix, x_t, h_prev, c_prev, list(weights), h_next,
                                           c_next, fused, seq_lengths, timestep))


def gru_cell(cell_net, x_t, h_prev, weights, h_next, *, prefix="", linear_before_reset=False, fused=True):
    """Appends one GRU step (ONNX GRU semantics): `weights` (W [I, 3H],
    R_rz [H, 2H], R_n [H, H], B [3H], B_rn [H]), gate order r, z, n,
    right-multiplied (plugins/rnn/builder.h AddGruCell)."""
    _extend(cell_net, _loom._add_gru_cell(_cell(cell_net), prefix, x_t, h_prev, list(weights), h_next,
                                          linear_before_reset, fused))


def rnn_cell(cell_net, x_t, h_prev, weights, h_next, *, prefix="", activation="Tanh"):
    """Appends one plain RNN step: h_next = act(x_t @ W + h_prev @ R + B),
    `weights` (W [I, H], R [H, H], B [H]), act Tanh or Relu."""
    _extend(cell_net, _loom._add_rnn_cell(_cell(cell_net), prefix, x_t, h_prev, list(weights), h_next, activation))


def stacked_lstm(net, input, weights, h0, c0, output, *, reverse=False, threaded=True, num_threads=2,
                 max_parallel_timesteps=2, fused=True, forward_only=False, seq_lengths=""):
    """Appends a stacked LSTM over `input` [T, N, I] as one RecurrentNetwork
    op (the C++ BuildStackedLstm, which loom_train --text uses): per layer
    l, weights[l] = (W, R, B) and initial states h0[l], c0[l] [1, N, H].
    Outputs "<output>_all" [T, 1, N, H], "<output>_last" [1, 1, N, H] and
    per layer "<output>_h<l>", "<output>_c<l>" [T+1, 1, N, H]; returns the
    op's outputs."""
    op = loom_pb2.OperatorDef()
    op.ParseFromString(_loom._stacked_lstm(output, input, [list(w) for w in weights], list(h0), list(c0), output,
                                           reverse, threaded, num_threads, max_parallel_timesteps, fused,
                                           forward_only, seq_lengths))
    return net.add_op(op)
