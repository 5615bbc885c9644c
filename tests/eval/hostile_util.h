// Helpers of the hostile-input tests (hostile_*_test.cc): one-node models
// whose inputs are initializers, and a check that running a model ends in an
// oxs::Error (never a crash, an internal error or another exception) whose
// text names the node and says what is wrong.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "oxs/eval/session.h"
#include "oxs/ir/error.h"

namespace oxs::eval::hostile {

template <class T>
Tensor tensor_of(DataType dt, Dims dims, std::vector<T> v) {
  return Tensor::of<T>(dt, std::move(dims), std::span<const T>(v));
}
inline Tensor f32(Dims dims, std::vector<float> v) {
  return tensor_of<float>(DataType::Float, std::move(dims), std::move(v));
}
inline Tensor i64(Dims dims, std::vector<int64_t> v) {
  return tensor_of<int64_t>(DataType::Int64, std::move(dims), std::move(v));
}
inline Tensor u8(Dims dims, std::vector<uint8_t> v) {
  return tensor_of<uint8_t>(DataType::Uint8, std::move(dims), std::move(v));
}
// A float tensor of `dims` filled with 1.
inline Tensor ones(Dims dims) {
  Tensor t(DataType::Float, std::move(dims));
  for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = 1;
  return t;
}

struct OpCase {
  std::string op;
  std::vector<std::optional<Tensor>> inputs;  // nullopt: an omitted input
  std::vector<ir::Attr> attrs;
  size_t outputs = 1;
  std::string domain;
  int64_t opset = 17;
};

// The model: node "hostile" of `c.op` reading initializers in0, in1, ...
inline ir::Model one_op_model(OpCase c) {
  ir::Model m;
  m.opset_imports = {{"", c.domain.empty() ? c.opset : 17}};
  if (!c.domain.empty()) m.opset_imports.push_back({c.domain, c.opset});
  ir::Graph& g = *m.graph;
  std::vector<ir::Value*> ins;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (!c.inputs[i]) {
      ins.push_back(nullptr);
      continue;
    }
    ins.push_back(g.add_initializer("in" + std::to_string(i),
                                    std::make_shared<ir::Tensor>(c.inputs[i]->to_ir())));
  }
  ir::Node* n = g.create_node(c.op, ins, c.outputs, c.domain);
  n->set_name("hostile");
  for (ir::Attr& a : c.attrs) n->set_attr(std::move(a));
  for (size_t i = 0; i < c.outputs; ++i) g.add_output(n->output(i));
  return m;
}

// (A Session does not own its model: keep the model alive as long.)
// Builds a session for `m` and runs it; returns the error's full text
// (describe(): node and message), or "" when it succeeded. An exception
// other than oxs::Error or an Internal error fails the test.
inline std::string run_error(const ir::Model& m, SessionOptions o = {},
                             const std::map<std::string, Value>& feeds = {}) {
  try {
    Session s(m, std::move(o));
    s.run(feeds);
  } catch (const Error& e) {
    EXPECT_NE(e.kind(), ErrorKind::Internal) << e.describe();
    return e.describe();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an oxs::Error: " << e.what();
    return "<std::exception>";
  }
  return "";
}

// The run fails and the error's text contains every one of `parts`.
inline void expect_error(const ir::Model& m, std::initializer_list<std::string> parts,
                         SessionOptions o = {}) {
  std::string text = run_error(m, std::move(o));
  ASSERT_FALSE(text.empty()) << "the model ran without an error";
  for (const std::string& p : parts) {
    EXPECT_NE(text.find(p), std::string::npos) << "'" << p << "' not in: " << text;
  }
}

// Attributes for OpCase::attrs (ir::Attr is move-only: no braced lists).
template <class... A>
std::vector<ir::Attr> attrs(A&&... a) {
  std::vector<ir::Attr> v;
  (v.push_back(std::forward<A>(a)), ...);
  return v;
}

inline ir::Attr a_int(const char* n, int64_t v) {
  return ir::Attr::of_int(n, v);
}
inline ir::Attr a_ints(const char* n, std::vector<int64_t> v) {
  return ir::Attr::of_ints(n, std::move(v));
}

}  // namespace oxs::eval::hostile
