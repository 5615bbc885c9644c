// The adapters that let libonnx's inference and data-propagation functions
// read our IR: everything is converted on first request, per node call.
#include "oxs/infer/impl.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/libonnx_bridge.h"

namespace oxs::infer {

namespace {

// Infers an If/Loop/Scan body in its enclosing scope: the body's nodes read
// outer values directly (the IR links them), so only the formal inputs get
// the types the op's inference function passes in.
class SubgraphInferencer final : public ::onnx::GraphInferencer {
 public:
  SubgraphInferencer(Inferencer::Impl& impl, ir::Graph& g, const Frame& f, const ir::Node& owner)
      : impl_(impl), graph_(g), frame_(f), owner_(owner) {}

  std::vector<const ::onnx::TypeProto*> doInferencing(
      const std::vector<const ::onnx::TypeProto*>& input_types,
      const std::vector<const ::onnx::TensorProto*>&) override {
    const auto& ins = graph_.inputs();
    if (input_types.size() > ins.size()) {
      throw Error(ErrorKind::Invalid,
                  node_label(owner_) + ": body graph '" + graph_.name() + "' declares " +
                      std::to_string(ins.size()) + " inputs but the op passes " +
                      std::to_string(input_types.size()),
                  {.node = owner_.name()});
    }
    for (size_t i = 0; i < input_types.size(); ++i) {
      if (!input_types[i] || input_types[i]->value_case() == ::onnx::TypeProto::VALUE_NOT_SET) {
        continue;
      }
      ir::Type t = onnx::type_from_proto(*input_types[i]);
      ir::Value* in = ins[i];
      // Loop-carried shapes may change between iterations: the body's
      // declaration wins over the op's first-iteration guess for dims.
      if (!in->type().is_none() && in->type().is_tensor() && t.is_tensor()) {
        ir::Type declared = in->type();
        if (declared.elem_type() == ir::DataType::Undefined) declared.set_elem_type(t.elem_type());
        if (!declared.shape()) declared.shape() = t.shape();
        if (declared.elem_type() != t.elem_type() && t.elem_type() != ir::DataType::Undefined) {
          merge_types(in->type(), t,
                      "input '" + in->name() + "' of body '" + graph_.name() + "' of " +
                          node_label(owner_));
        }
        in->set_type(std::move(declared));
      } else {
        in->set_type(merge_types(
            in->type(), t,
            "input '" + in->name() + "' of body '" + graph_.name() + "' of " + node_label(owner_)));
      }
    }
    impl_.infer_graph(graph_, frame_);
    outputs_.clear();
    outputs_.resize(graph_.outputs().size());
    std::vector<const ::onnx::TypeProto*> out;
    for (size_t i = 0; i < graph_.outputs().size(); ++i) {
      ir::Value* v = graph_.outputs()[i];
      if (v && !v->type().is_none()) onnx::type_to_proto(v->type(), &outputs_[i]);
      out.push_back(&outputs_[i]);
    }
    return out;
  }

 private:
  Inferencer::Impl& impl_;
  ir::Graph& graph_;
  Frame frame_;
  const ir::Node& owner_;
  std::vector<::onnx::TypeProto> outputs_;
};

}  // namespace

NodeContext::NodeContext(Inferencer::Impl& impl, ir::Node& node, const Frame& frame)
    : impl_(impl),
      node_(node),
      frame_(frame),
      inputs_(node.num_inputs()),
      input_done_(node.num_inputs(), false),
      outputs_(node.num_outputs()) {}

NodeContext::~NodeContext() = default;

const ::onnx::AttributeProto* NodeContext::getAttribute(const std::string& name) const {
  auto it = attrs_.find(name);
  if (it != attrs_.end()) return it->second.get();
  const ir::Attr* a = Inferencer::Impl::resolve_attr(node_, name, frame_);
  std::unique_ptr<::onnx::AttributeProto> p;
  if (a) {
    p = std::make_unique<::onnx::AttributeProto>();
    onnx::attr_to_proto(*a, p.get());
    p->set_name(name);
    p->clear_ref_attr_name();
  }
  const ::onnx::AttributeProto* raw = p.get();
  attrs_.emplace(name, std::move(p));
  return raw;
}

const ::onnx::TypeProto* NodeContext::getInputType(size_t index) const {
  if (index >= inputs_.size()) return nullptr;
  if (!input_done_[index]) {
    input_done_[index] = true;
    const ir::Value* v = node_.input(index);
    if (v && !v->type().is_none()) {
      inputs_[index] = std::make_unique<::onnx::TypeProto>();
      onnx::type_to_proto(v->type(), inputs_[index].get());
    }
  }
  return inputs_[index].get();
}

const ::onnx::TensorProto* NodeContext::getInputData(size_t index) const {
  if (index >= node_.num_inputs() || !node_.input(index)) return nullptr;
  return impl_.tensor_proto(node_.input(index));
}

::onnx::TypeProto* NodeContext::getOutputType(size_t index) {
  if (index >= outputs_.size()) {
    throw ::onnx::InferenceError("output " + std::to_string(index) + " is out of bounds");
  }
  return &outputs_[index];
}

::onnx::GraphInferencer* NodeContext::getGraphAttributeInferencer(const std::string& name) {
  auto it = graph_inferencers_.find(name);
  if (it != graph_inferencers_.end()) return it->second.get();
  const ir::Attr* a = node_.attr(name);
  if (!a || !a->g) return nullptr;
  inferred_.push_back(a->g.get());
  auto gi = std::make_unique<SubgraphInferencer>(impl_, *a->g, frame_, node_);
  auto* raw = gi.get();
  graph_inferencers_.emplace(name, std::move(gi));
  return raw;
}

const ::onnx::TensorShapeProto* NodeContext::getSymbolicInput(size_t index) const {
  if (index >= node_.num_inputs() || !node_.input(index)) return nullptr;
  return impl_.shape_data_of(node_.input(index));
}

const ::onnx::TensorShapeProto* PropagationContext::getInputData(size_t index) {
  if (index >= ctx_.node_.num_inputs() || !ctx_.node_.input(index)) return nullptr;
  const ::onnx::TensorShapeProto* data = ctx_.impl_.shape_data_of(ctx_.node_.input(index));
  // An empty known value reads as unknown: libonnx 1.12's propagators index
  // their inputs without checking for none (Sub of Shape(start past the
  // rank) = [] and [1] read element 0 of [] in MathOpDataPropagator:
  // SIGSEGV in `oxs check` and `oxs compile`). Propagation only sharpens
  // inference, so nothing but that sharpening is lost.
  return data && data->dim_size() == 0 ? nullptr : data;
}

void PropagationContext::addOutputData(size_t index, ::onnx::TensorShapeProto&& tp) {
  if (index >= ctx_.node_.num_outputs() || !ctx_.node_.output(index)) return;
  ctx_.impl_.shape_data[ctx_.node_.output(index)] = std::move(tp);
}

}  // namespace oxs::infer
