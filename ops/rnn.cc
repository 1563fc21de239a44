// Schemas of the recurrent family: ONNX LSTM, GRU and RNN (opset 14
// semantics; the opset 7-13 forms are the same without `layout`, which
// defaults to 0, so older models load unchanged), and Loom's
// DynamicQuantizeLSTM (ONNX Runtime's com.microsoft op) and
// DynamicQuantizeGRU.
#include <string>
#include <vector>

#include "ops/register_schemas.h"
#include "ops/semantics/rnn.h"

namespace loom {
namespace ops {
namespace {

// Output shapes by the kernels' semantics::RnnAttrs (ShapesOf): Y [T, D,
// N, H] (layout 0) or [N, T, D, H] (layout 1); Y_h and Y_c [D, N, H]
// (layout 0) or [N, D, H] (layout 1). H comes from hidden_size or, when
// absent, from R [D, G*H, H]. Outputs take X's dtype; the shapes are left
// unknown when the attributes do not read (the kernel reports why).
LoomStatus* RnnInfer(LoomInferenceContext* c) {
  sdk::InferenceContext ctx(c);
  for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.SetOutputDType(i, ctx.InputDType(0));
  std::vector<int64_t> x, r;
  if (!ctx.InputShape(0, &x) || x.size() != 3) return nullptr;
  const sdk::KernelInfo info = ctx.info();
  semantics::RnnAttrs attrs;
  if (!attrs.Read(info, info.op_type(), semantics::RnnCellOf(info.op_type())).ok()) return nullptr;
  int64_t hidden = attrs.hidden_size;
  if (hidden < 0) {  // R [D, G*H, H]; the DynamicQuantize ops' [D, H, G*H]
    if (!ctx.InputShape(2, &r) || r.size() != 3) return nullptr;
    hidden = info.op_type().rfind("DynamicQuantize", 0) == 0 ? r[1] : r[2];
  }
  const semantics::RnnAttrs::Shapes shapes = attrs.ShapesOf(x, hidden);
  if (ctx.num_outputs() > 0) ctx.SetOutputShape(0, shapes.y);
  for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.SetOutputShape(i, shapes.state);
  return nullptr;
}

// The inputs, outputs and attributes the three ops share. `gates` is the
// number of gates (LSTM 4, GRU 3, RNN 1) used in the docs.
void CommonSignature(sdk::SchemaBuilder& s, const std::string& gates) {
  if (gates == "1") {
    s.AttrStrings("activations", {"Tanh"}, "activation per direction (ONNX names; one entry serves both directions)");
  } else {
    s.Attr("activations", LOOM_ATTR_STRINGS, false, "activation functions per direction (ONNX names)");
  }
  s.SinceVersion(14)
      .Input("X", "T", LOOM_PARAM_SINGLE, "[seq_length, batch_size, input_size] (layout 1: [batch, seq, input])")
      .Input("W", "T", LOOM_PARAM_SINGLE, "input weights [num_directions, " + gates + "*hidden_size, input_size]")
      .Input("R", "T", LOOM_PARAM_SINGLE, "recurrence weights [num_directions, " + gates + "*hidden_size, hidden_size]")
      .Input("B", "T", LOOM_PARAM_OPTIONAL, "biases [Wb, Rb] concatenated: [num_directions, 2*" + gates + "*hidden_size]")
      .Input("sequence_lens", "T1", LOOM_PARAM_OPTIONAL, "[batch_size] valid lengths (1..seq_length); default all seq_length")
      .Input("initial_h", "T", LOOM_PARAM_OPTIONAL, "[num_directions, batch_size, hidden_size] (layout 1: [batch, dirs, hidden])")
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT, LOOM_DTYPE_DOUBLE})
      .TypeConstraint("T1", {LOOM_DTYPE_INT32})
      .Attr("activation_alpha", LOOM_ATTR_FLOATS, false, "alpha of the activations that take one, in order")
      .Attr("activation_beta", LOOM_ATTR_FLOATS, false, "beta of the activations that take one, in order")
      .Attr("clip", LOOM_ATTR_FLOAT, false, "cell clip threshold: gate inputs are clamped to [-clip, clip]")
      .AttrString("direction", "forward", "forward, reverse or bidirectional")
      .Attr("hidden_size", LOOM_ATTR_INT, false, "number of hidden units (inferred from R if absent)")
      .AttrInt("layout", 0, "0: time-major X/Y/states; 1: batch-major")
      .Infer(&RnnInfer);
}

// What DynamicQuantizeLSTM (`lstm`: initial_c and P after initial_h) and
// DynamicQuantizeGRU share: Loom's domain, the int8 W and R transposed to
// [D, K, gates*H], their scales and zero points, Y and Y_h, the attributes
// but LSTM's input_forget and GRU's linear_before_reset.
void DynamicQuantizeSignature(sdk::SchemaBuilder& s, const std::string& gates, bool lstm) {
  const std::string g = gates + "*hidden_size";
  s.Domain(LOOM_OPS_DOMAIN)
      .SinceVersion(1)
      .Input("X", "T", LOOM_PARAM_SINGLE, "[seq_length, batch_size, input_size]")
      .Input("W", "T2", LOOM_PARAM_SINGLE, "[num_directions, input_size, " + g + "]")
      .Input("R", "T2", LOOM_PARAM_SINGLE, "[num_directions, hidden_size, " + g + "]")
      .Input("B", "T", LOOM_PARAM_OPTIONAL, "biases [Wb, Rb] concatenated: [num_directions, 2*" + g + "]")
      .Input("sequence_lens", "T1", LOOM_PARAM_OPTIONAL, "[batch_size]; default all seq_length")
      .Input("initial_h", "T", LOOM_PARAM_OPTIONAL, "[num_directions, batch_size, hidden_size]");
  if (lstm) {
    s.Input("initial_c", "T", LOOM_PARAM_OPTIONAL, "[num_directions, batch_size, hidden_size]")
        .Input("P", "T", LOOM_PARAM_OPTIONAL, "peephole weights [num_directions, 3*hidden_size] (iof)");
  }
  s.Input("W_scale", "T", LOOM_PARAM_SINGLE, "[num_directions], or [num_directions, " + g + "]")
      .Input("W_zero_point", "T2", LOOM_PARAM_SINGLE, "W_scale's shape")
      .Input("R_scale", "T", LOOM_PARAM_SINGLE, "[num_directions], or [num_directions, " + g + "]")
      .Input("R_zero_point", "T2", LOOM_PARAM_SINGLE, "R_scale's shape")
      .Output("Y", "T", LOOM_PARAM_OPTIONAL, "all hidden states [seq_length, num_directions, batch_size, hidden_size]")
      .Output("Y_h", "T", LOOM_PARAM_OPTIONAL, "last hidden state")
      .TypeConstraint("T", {LOOM_DTYPE_FLOAT})
      .TypeConstraint("T1", {LOOM_DTYPE_INT32})
      .TypeConstraint("T2", {LOOM_DTYPE_INT8, LOOM_DTYPE_UINT8})
      .Attr("activation_alpha", LOOM_ATTR_FLOATS, false, "alpha of the activations that take one, in order")
      .Attr("activation_beta", LOOM_ATTR_FLOATS, false, "beta of the activations that take one, in order")
      .Attr("activations", LOOM_ATTR_STRINGS, false, "activation functions per direction (ONNX names)")
      .Attr("clip", LOOM_ATTR_FLOAT, false, "cell clip threshold")
      .AttrString("direction", "forward", "forward, reverse or bidirectional")
      .Attr("hidden_size", LOOM_ATTR_INT, false, "number of hidden units (from R if absent)")
      .Infer(&RnnInfer);
}

}  // namespace

sdk::Status RegisterRnnSchemas(sdk::Registrar& reg) {
  {
    sdk::SchemaBuilder s("LSTM");
    s.Doc("ONNX LSTM-14: gates iofc; i = f(Xt*Wi^T + Ht-1*Ri^T + Pi.Ct-1 + Wbi + Rbi), "
          "f = f(.. + Pf.Ct-1 ..), c = g(..), Ct = f.Ct-1 + i.c, o = f(.. + Po.Ct ..), Ht = o.h(Ct). "
          "Default activations Sigmoid, Tanh, Tanh.");
    CommonSignature(s, "4");
    s.Input("initial_c", "T", LOOM_PARAM_OPTIONAL, "initial cell state, shaped like initial_h")
        .Input("P", "T", LOOM_PARAM_OPTIONAL, "peephole weights [num_directions, 3*hidden_size] (iof)")
        .Output("Y", "T", LOOM_PARAM_OPTIONAL, "all hidden states")
        .Output("Y_h", "T", LOOM_PARAM_OPTIONAL, "last hidden state")
        .Output("Y_c", "T", LOOM_PARAM_OPTIONAL, "last cell state")
        .AttrInt("input_forget", 0, "1: couple the input and forget gates (f = 1 - i)");
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("GRU");
    s.Doc("ONNX GRU-14: gates zrh; z = f(Xt*Wz^T + Ht-1*Rz^T + Wbz + Rbz), r likewise, "
          "h = g(Xt*Wh^T + (r.Ht-1)*Rh^T + Rbh + Wbh) or, with linear_before_reset, "
          "g(Xt*Wh^T + Wbh + r.(Ht-1*Rh^T + Rbh)); Ht = (1 - z).h + z.Ht-1. Default activations Sigmoid, Tanh.");
    CommonSignature(s, "3");
    s.Output("Y", "T", LOOM_PARAM_OPTIONAL, "all hidden states")
        .Output("Y_h", "T", LOOM_PARAM_OPTIONAL, "last hidden state")
        .AttrInt("linear_before_reset", 0, "1: apply the linear transformation before multiplying by r");
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("RNN");
    s.Doc("ONNX RNN-14: Ht = f(Xt*Wi^T + Ht-1*Ri^T + Wbi + Rbi). Default activation Tanh.");
    CommonSignature(s, "1");
    s.Output("Y", "T", LOOM_PARAM_OPTIONAL, "all hidden states")
        .Output("Y_h", "T", LOOM_PARAM_OPTIONAL, "last hidden state");
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("DynamicQuantizeLSTM");
    s.Doc("Not an ONNX op: ONNX Runtime's com.microsoft DynamicQuantizeLSTM, which its quantize_dynamic (and "
          "loom_quantize --dynamic) write for an LSTM; the ONNX importer reads com.microsoft's into Loom's domain. "
          "ONNX LSTM-14 (layout 0, gates iofc) with int8 weights, transposed: W [num_directions, input_size, "
          "4*hidden_size], R [num_directions, hidden_size, 4*hidden_size], dequantized by W_scale / W_zero_point "
          "and R_scale / R_zero_point ([num_directions], or [num_directions, 4*hidden_size] per column). Each "
          "product is an integer matmul: X (every timestep at once) and Ht-1 (at each step) quantized to uint8 as "
          "DynamicQuantizeLinear-11 does, int32 sums times W_scale[col] (R_scale[col]), then times x_scale "
          "(h_scale), in float32; the rest of the cell in float32 as LSTM.");
    DynamicQuantizeSignature(s, "4", true);
    s.Output("Y_c", "T", LOOM_PARAM_OPTIONAL, "last cell state")
        .AttrInt("input_forget", 0, "1: couple the input and forget gates");
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  {
    sdk::SchemaBuilder s("DynamicQuantizeGRU");
    s.Doc("Not an ONNX op (ONNX Runtime has none for GRU): DynamicQuantizeLSTM's form for ONNX GRU-14 (layout 0, "
          "gates zrh), which loom_quantize --dynamic writes for a GRU. W [num_directions, input_size, "
          "3*hidden_size] and R [num_directions, hidden_size, 3*hidden_size] int8, dequantized by W_scale / "
          "W_zero_point and R_scale / R_zero_point ([num_directions], or [num_directions, 3*hidden_size] per "
          "column). Each product is an integer matmul: X (every timestep at once), Ht-1 (at each step) and, "
          "without linear_before_reset, r.Ht-1 (at each step, with R's h columns) quantized to uint8 as "
          "DynamicQuantizeLinear-11 does, int32 sums times the weights' scale, then times the operand's, in "
          "float32; the rest of the cell in float32 as GRU.");
    DynamicQuantizeSignature(s, "3", false);
    s.AttrInt("linear_before_reset", 0, "1: apply the linear transformation before multiplying by r");
    LOOM_SDK_RETURN_IF_ERROR(reg.Register(s));
  }
  return sdk::Status::Ok();
}

}  // namespace ops
}  // namespace loom
