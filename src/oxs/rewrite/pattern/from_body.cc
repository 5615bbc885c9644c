#include "oxs/rewrite/pattern/from_body.h"

#include <map>

#include "oxs/ir/error.h"
#include "oxs/ir/printer.h"
#include "oxs/rewrite/core/constants.h"

namespace oxs::rewrite {

Pattern pattern_from_body(const ir::Graph& body) {
  Pattern p;
  std::map<const ir::Value*, PVal> vals;
  for (const ir::Value* in : body.inputs()) vals[in] = p.var(in->name());
  for (const ir::Node* n : body.nodes()) {
    if (n->op_type() == "Constant" && n->domain().empty()) {
      auto t = constant_node_tensor(*n);
      if (!t) throw Error(ErrorKind::Invalid, "a Constant the matcher cannot read");
      vals[n->output(0)] = t->numel() == 1 && tensor_doubles(*t, 1)
                               ? p.constant((*tensor_doubles(*t, 1))[0])
                               : p.constant(ir::Tensor(*t));
      continue;
    }
    std::vector<PVal> ins;
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      ins.push_back(n->input(i) ? vals.at(n->input(i)) : p.absent());
    }
    std::vector<AttrPattern> attrs;
    for (const ir::Attr& a : n->attrs()) {
      std::string want = ir::attr_value_text(a);
      std::string name = a.name;
      attrs.push_back({name, name + " == " + want, [name, want](const ir::Attr* got) {
                         if (!got) return std::string("attribute absent");
                         std::string text = ir::attr_value_text(*got);
                         return text == want ? std::string() : "saw " + text;
                       }});
    }
    NodeOptions o;
    o.domain = n->domain();
    o.num_outputs = n->num_outputs();
    auto outs = p.node(n->op_type(), ins, std::move(attrs), o);
    for (size_t i = 0; i < n->num_outputs(); ++i) vals[n->output(i)] = outs[i];
  }
  std::vector<PVal> outs;
  for (const ir::Value* o : body.outputs()) outs.push_back(vals.at(o));
  p.set_outputs(outs);
  return p;
}

}  // namespace oxs::rewrite
