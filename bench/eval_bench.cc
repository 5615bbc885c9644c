// Evaluator benchmark driver (bench/eval.sh): builds a ResNet-style CNN and
// a transformer encoder as ONNX models with random weights, and times
// eval::Session on them; ONNX Runtime runs the same files from the script.
//   oxs_eval_bench gen DIR            writes DIR/{resnet,transformer}.onnx and DIR/<model>_in/*.npy
//   oxs_eval_bench run MODEL IN_DIR OUT_DIR REPEAT
//       prints "oxs_ms_per_run <ms> gemm_share <fraction> cpu_ms_per_run <ms>" and
//       writes OUT_DIR/<i>.npy
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <random>
#include <string>

#include "oxs/eval/npy.h"
#include "oxs/eval/session.h"
#include "oxs/eval/summary.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/model_io.h"

namespace fs = std::filesystem;
using namespace oxs;
using eval::Tensor;

namespace {

struct Net {
  ir::Model m;
  ir::Graph& g = *m.graph;
  std::mt19937_64 rng{42};
  int counter = 0;
  Net() { m.opset_imports = {{"", 17}}; }

  ir::Value* weight(std::vector<int64_t> dims, float scale) {
    Tensor t(ir::DataType::Float, dims);
    std::normal_distribution<float> nd(0, 1);
    for (int64_t i = 0; i < t.numel(); ++i) t.mutable_data<float>()[i] = nd(rng) * scale;
    return g.add_initializer("w" + std::to_string(counter++),
                             std::make_shared<ir::Tensor>(t.to_ir()));
  }
  ir::Value* ints(std::vector<int64_t> v) {
    Tensor t =
        Tensor::of<int64_t>(ir::DataType::Int64, {int64_t(v.size())}, std::span<const int64_t>(v));
    return g.add_initializer("c" + std::to_string(counter++),
                             std::make_shared<ir::Tensor>(t.to_ir()));
  }
  ir::Node* op(const std::string& type, std::vector<ir::Value*> in) {
    return g.create_node(type, in);
  }
  ir::Value* op1(const std::string& type, std::vector<ir::Value*> in) {
    return op(type, in)->output(0);
  }

  ir::Value* conv(ir::Value* x, int64_t cin, int64_t cout, int64_t k, int64_t stride) {
    ir::Node* n = op("Conv", {x, weight({cout, cin, k, k}, std::sqrt(2.0f / float(cin * k * k))),
                              weight({cout}, 0.01f)});
    int64_t p = k / 2;
    n->set_attr(ir::Attr::of_ints("pads", {p, p, p, p}));
    n->set_attr(ir::Attr::of_ints("strides", {stride, stride}));
    return n->output(0);
  }
};

ir::Model resnet() {
  Net n;
  ir::Value* x = n.g.add_input("x", ir::Type::tensor(ir::DataType::Float, ir::Shape{1, 3, 64, 64}));
  ir::Value* h = n.op1("Relu", {n.conv(x, 3, 32, 3, 1)});
  int64_t c = 32;
  for (int stage = 0; stage < 3; ++stage) {
    int64_t co = stage == 0 ? c : c * 2;
    int64_t stride = stage == 0 ? 1 : 2;
    for (int block = 0; block < 2; ++block) {
      int64_t ci = block == 0 ? c : co;
      int64_t s = block == 0 ? stride : 1;
      ir::Value* y = n.op1("Relu", {n.conv(h, ci, co, 3, s)});
      y = n.conv(y, co, co, 3, 1);
      ir::Value* skip = (ci != co || s != 1) ? n.conv(h, ci, co, 1, s) : h;
      h = n.op1("Relu", {n.op1("Add", {y, skip})});
    }
    c = co;
  }
  ir::Value* pooled = n.op1("Flatten", {n.op1("GlobalAveragePool", {h})});
  ir::Node* fc = n.op("Gemm", {pooled, n.weight({10, c}, 0.05f), n.weight({10}, 0.01f)});
  fc->set_attr(ir::Attr::of_int("transB", 1));
  n.g.add_output(fc->output(0));
  return std::move(n.m);
}

ir::Model transformer() {
  Net n;
  const int64_t S = 128, D = 256, H = 4, F = 1024;
  ir::Value* x = n.g.add_input("x", ir::Type::tensor(ir::DataType::Float, ir::Shape{1, S, D}));
  ir::Value* h = x;
  for (int layer = 0; layer < 2; ++layer) {
    auto proj = [&](ir::Value* v, int64_t in, int64_t out) {
      return n.op1("Add", {n.op1("MatMul", {v, n.weight({in, out}, 1.0f / std::sqrt(float(in)))}),
                           n.weight({out}, 0.01f)});
    };
    auto heads = [&](ir::Value* v) {  // [1,S,D] -> [1,H,S,D/H]
      ir::Node* t = n.op("Transpose", {n.op1("Reshape", {v, n.ints({1, S, H, D / H})})});
      t->set_attr(ir::Attr::of_ints("perm", {0, 2, 1, 3}));
      return t->output(0);
    };
    ir::Value* q = heads(proj(h, D, D));
    ir::Value* k = heads(proj(h, D, D));
    ir::Value* v = heads(proj(h, D, D));
    ir::Node* kt = n.op("Transpose", {k});
    kt->set_attr(ir::Attr::of_ints("perm", {0, 1, 3, 2}));
    ir::Value* scores = n.op1("Mul", {n.op1("MatMul", {q, kt->output(0)}), n.weight({1}, 0.0f)});
    // The scale: overwrite the random weight with 1/sqrt(d_head).
    {
      auto t = std::make_shared<ir::Tensor>(
          Tensor::of<float>(ir::DataType::Float, {1},
                            std::vector<float>{1.0f / std::sqrt(float(D / H))})
              .to_ir());
      scores->producer()->input(1)->set_const_value(t);
    }
    ir::Node* sm = n.op("Softmax", {scores});
    sm->set_attr(ir::Attr::of_int("axis", -1));
    ir::Node* merged = n.op("Transpose", {n.op1("MatMul", {sm->output(0), v})});
    merged->set_attr(ir::Attr::of_ints("perm", {0, 2, 1, 3}));
    ir::Value* attn = proj(n.op1("Reshape", {merged->output(0), n.ints({1, S, D})}), D, D);
    ir::Node* ln1 = n.op("LayerNormalization",
                         {n.op1("Add", {h, attn}), n.weight({D}, 0.0f), n.weight({D}, 0.0f)});
    ir::Value* h1 = ln1->output(0);
    ir::Value* ff = proj(n.op1("Relu", {proj(h1, D, F)}), F, D);
    ir::Node* ln2 = n.op("LayerNormalization",
                         {n.op1("Add", {h1, ff}), n.weight({D}, 0.0f), n.weight({D}, 0.0f)});
    h = ln2->output(0);
  }
  n.g.add_output(h);
  return std::move(n.m);
}

void fix_layernorm_scales(ir::Model& m) {
  // LayerNorm scale 1 and bias 0 (weights made with scale 0 are all zeros).
  for (ir::Node* node : m.graph->nodes()) {
    if (node->op_type() != "LayerNormalization") continue;
    ir::Value* s = node->input(1);
    Tensor one(ir::DataType::Float, s->const_value()->dims());
    for (int64_t i = 0; i < one.numel(); ++i) one.mutable_data<float>()[i] = 1.0f;
    auto t = std::make_shared<ir::Tensor>(one.to_ir());
    t->name = s->name();
    s->set_const_value(t);
  }
}

int gen(const fs::path& dir) {
  fs::create_directories(dir);
  std::map<std::string, ir::Model> models;
  models.emplace("resnet", resnet());
  ir::Model t = transformer();
  fix_layernorm_scales(t);
  models.emplace("transformer", std::move(t));
  for (auto& [name, m] : models) {
    onnx::save(m, (dir / (name + ".onnx")).string());
    fs::create_directories(dir / (name + "_in"));
    std::mt19937_64 rng(7);
    for (const ir::Value* in : m.graph->inputs()) {
      if (in->const_value()) continue;
      eval::write_npy((dir / (name + "_in") / (in->name() + ".npy")).string(),
                      eval::random_tensor(in->name(), in->type(), {}, rng));
    }
  }
  return 0;
}

int run(const std::string& model_path, const fs::path& in_dir, const fs::path& out_dir,
        int repeat) {
  ir::Model m = onnx::load(model_path);
  std::map<std::string, eval::Value> feeds;
  for (const ir::Value* in : m.graph->inputs()) {
    if (!in->const_value())
      feeds[in->name()] = eval::read_npy((in_dir / (in->name() + ".npy")).string());
  }
  using clock = std::chrono::steady_clock;
  eval::SessionOptions one_thread;
  one_thread.threads = 1;  // as ORT in bench/eval.sh
  eval::Session session(m, one_thread);
  std::vector<eval::Value> outs = session.run(feeds);  // warm-up (plans, function bodies)
  auto t0 = clock::now();
  std::clock_t c0 = std::clock();
  for (int i = 0; i < repeat; ++i) outs = session.run(feeds);
  double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count() / repeat;
  // CPU time too: on a loaded machine it moves much less than wall time.
  double cpu_ms = 1000.0 * double(std::clock() - c0) / CLOCKS_PER_SEC / repeat;
  // GEMM share: time inside Conv/MatMul/Gemm nodes of one traced run.
  double gemm_ms = 0, total_ms = 0;
  clock::time_point start;
  eval::SessionOptions o;
  o.threads = 1;
  o.trace_nested = false;
  o.trace_enter = [&](const ir::Node&, int) { start = clock::now(); };
  o.trace = [&](const eval::TraceEvent& e) {
    double d = std::chrono::duration<double, std::milli>(clock::now() - start).count();
    total_ms += d;
    const std::string& op = e.node.op_type();
    if (op == "Conv" || op == "MatMul" || op == "Gemm") gemm_ms += d;
  };
  eval::Session traced(m, o);
  traced.run(feeds);
  fs::create_directories(out_dir);
  for (size_t i = 0; i < outs.size(); ++i)
    eval::write_npy((out_dir / (std::to_string(i) + ".npy")).string(), outs[i].tensor());
  std::printf("oxs_ms_per_run %.3f gemm_share %.3f cpu_ms_per_run %.3f\n", ms,
              total_ms > 0 ? gemm_ms / total_ms : 0.0, cpu_ms);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "gen" && argc == 3) return gen(argv[2]);
    if (cmd == "run" && argc == 6) return run(argv[2], argv[3], argv[4], std::stoi(argv[5]));
    std::fprintf(stderr, "usage: oxs_eval_bench gen DIR | run MODEL IN_DIR OUT_DIR REPEAT\n");
    return 2;
  } catch (const oxs::Error& e) {
    std::fprintf(stderr, "oxs_eval_bench: %s\n", e.describe().c_str());
    return 1;
  }
}
