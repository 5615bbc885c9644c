#include "oxs/cli/run_observe.h"

#include <fmt/core.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>

#include <cstdio>
#include <filesystem>

#include "oxs/cli/run_values.h"
#include "oxs/eval/summary.h"
#include "oxs/ir/error.h"

namespace oxs::cli {
namespace {

Json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::string ms(double seconds) {
  return fmt::format("{:.3f} ms", seconds * 1e3);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

void add_observe_options(CLI::App& app, ObserveArgs& args) {
  app.add_flag("--json", args.json,
               "print the outputs (and --profile, --repeat figures) as one JSON document "
               "(schema: docs/json.md)");
  app.add_flag("--profile", args.profile,
               "time every node of the main graph; print the slowest nodes and the time per op "
               "type");
  app.add_option("--repeat", args.repeat,
                 "run N times in this process and report min/median/mean time per run")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}));
  app.add_option("--save-intermediates", args.save_intermediates,
                 "write every value the main graph computes (or those matching --trace-filter) "
                 "as DIR/<name>.npy");
  app.add_option("--save-inputs", args.save_inputs,
                 "write the inputs (given or --random) as DIR/<name>.npy, to rerun with --input");
  app.add_option("--trace-json", args.trace_json,
                 "write every traced value's summary (type, statistics, first values) to FILE as "
                 "JSON (`oxs viz --trace FILE` overlays it on the graph)");
  app.add_flag("-q,--quiet", args.quiet, "no progress line on the terminal");
  app.add_flag("-v,--verbose", args.verbose, "report the time of each run on stderr");
}

Json json_runtime_value(const eval::Value& v, size_t n) {
  Json j = Json::object();
  switch (v.kind()) {
    case eval::Value::Kind::None:
      j["kind"] = nullptr;
      return j;
    case eval::Value::Kind::Tensor: {
      const eval::Tensor& t = v.tensor();
      j["kind"] = "tensor";
      j["elem_type"] = std::string(ir::dtype_name(t.dtype()));
      j["shape"] = t.dims();
      Json values = Json::array();
      const int64_t shown = std::min<int64_t>(t.numel(), static_cast<int64_t>(n));
      if (t.dtype() == ir::DataType::String) {
        for (int64_t i = 0; i < shown; ++i) values.push_back(t.strings()[size_t(i)]);
      } else if (t.dtype() != ir::DataType::Complex64 && t.dtype() != ir::DataType::Complex128) {
        const eval::TensorStats s = eval::tensor_stats(t);
        j["stats"] = {{"min", number(s.min)},
                      {"max", number(s.max)},
                      {"mean", number(s.mean)},
                      {"nan_count", s.nan_count},
                      {"finite_count", s.finite_count}};
        for (int64_t i = 0; i < shown; ++i) values.push_back(number(t.get_as_double(i)));
      }
      j["values"] = values;
      j["truncated"] = shown < t.numel();
      return j;
    }
    case eval::Value::Kind::Sequence: {
      j["kind"] = "sequence";
      Json items = Json::array();
      for (const eval::Value& item : v.items()) items.push_back(json_runtime_value(item, n));
      j["items"] = items;
      return j;
    }
    case eval::Value::Kind::Optional:
      j["kind"] = "optional";
      j["element"] = v.has_element() ? json_runtime_value(v.element(), n) : Json(nullptr);
      return j;
    case eval::Value::Kind::Map:
      j["kind"] = "map";
      j["size"] = v.map_size();
      j["entries"] = Json::parse(map_to_json(v));
      return j;
  }
  return j;
}

RunObserver::RunObserver(const ObserveArgs& args, std::vector<std::string> filters, size_t values)
    : args_(args), filters_(std::move(filters)), values_(values) {}

bool RunObserver::matches(const ir::Node& n) {
  if (filters_.empty()) return true;
  bool any = false;
  for (const auto& f : filters_) {
    bool hit = n.op_type() == f || n.name() == f;
    for (size_t i = 0; i < n.num_outputs() && !hit; ++i) {
      hit = n.output(i) && n.output(i)->name() == f;
    }
    if (hit) matched_filters_.insert(f);
    any = any || hit;
  }
  return any;
}

void RunObserver::install(eval::SessionOptions& options, size_t nodes) {
  total_nodes_ = nodes;
  // Only for a person watching: stderr is a terminal and there is enough to wait for.
  if (!args_.json && nodes > 1 && !progress_line_)
    progress_line_.emplace("run", Verbosity{args_.quiet});
  progress_ = progress_line_ && progress_line_->shown();
  const bool timing = args_.profile || progress_;
  const bool capture = !args_.save_intermediates.empty() || !args_.trace_json.empty();
  // The filters must be consulted even without --trace, to warn about one
  // that matches nothing.
  if (!timing && !capture && filters_.empty()) return;
  // Captured values are per node: no fused Conv groups (a profile keeps
  // them and gives a group's time to its Conv node).
  if (capture || !filters_.empty()) options.fuse = false;
  eval::TraceEnterHook enter = std::move(options.trace_enter);
  eval::TraceHook exit = std::move(options.trace);
  options.trace_enter = [this, enter](const ir::Node& n, int depth) {
    if (enter) enter(n, depth);
    on_enter(n, depth);
  };
  options.trace = [this, exit](const eval::TraceEvent& e) {
    if (exit) exit(e);
    on_exit(e);
  };
}

void RunObserver::progress(const ir::Node& n) {
  ++done_nodes_;
  progress_line_->show(fmt::format("node {}/{} {}{}", done_nodes_, total_nodes_, n.op_type(),
                                   n.name().empty() ? "" : " '" + n.name() + "'"),
                       done_nodes_ == 1);
}

void RunObserver::on_enter(const ir::Node& n, int depth) {
  if (!filters_.empty()) matches(n);
  if (progress_ && depth == 0) progress(n);
  if (args_.profile && depth == 0) started_.push_back(Clock::now());
}

void RunObserver::on_exit(const eval::TraceEvent& e) {
  if (args_.profile && e.depth == 0 && !started_.empty()) {
    const double s = std::chrono::duration<double>(Clock::now() - started_.back()).count();
    started_.pop_back();
    auto [it, fresh] = node_index_.try_emplace(&e.node, node_times_.size());
    if (fresh) {
      std::string op = e.node.op_type();
      for (const ir::Node* m : e.fused) op += "+" + m->op_type();
      node_times_.push_back({&e.node, op});
    }
    node_times_[it->second].seconds += s;
    node_times_[it->second].calls += 1;
  }
  // Values are captured once (the first run of --repeat).
  if (e.depth == 0 && run_seconds_.empty() && (filters_.empty() || matches(e.node))) {
    save_intermediate(e);
  }
}

void RunObserver::save_intermediate(const eval::TraceEvent& e) {
  for (size_t i = 0; i < e.outputs.size(); ++i) {
    const ir::Value* out = e.node.output(i);
    if (!out || e.outputs[i].is_none()) continue;
    if (!args_.trace_json.empty()) {
      trace_.push_back({{"value", out->name()},
                        {"node", e.node.name()},
                        {"op_type", e.node.op_type()},
                        {"summary", json_runtime_value(e.outputs[i], values_)}});
    }
    if (!args_.save_intermediates.empty()) {
      if (!intermediates_dir_) {
        intermediates_dir_.emplace(onnx::OutputDir::open(args_.save_intermediates, true));
      }
      std::string base = eval::file_safe_name(out->name());
      if (int n = saved_names_[base]++) base += "_" + std::to_string(n);
      write_output_value(*intermediates_dir_, base, out->name(), e.outputs[i]);
    }
  }
}

void RunObserver::inputs_ready(const std::map<std::string, eval::Value>& feeds,
                               const std::set<std::string>& random) {
  for (const auto& [name, value] : feeds) {
    if (args_.json) {
      Json j = json_runtime_value(value, values_);
      j["name"] = name;
      j["random"] = random.count(name) > 0;
      inputs_.push_back(std::move(j));
    }
    if (!args_.save_inputs.empty()) {
      if (!inputs_dir_) inputs_dir_.emplace(onnx::OutputDir::open(args_.save_inputs, true));
      write_output_value(*inputs_dir_, eval::file_safe_name(name), name, value);
    }
  }
}

std::vector<eval::Value> RunObserver::run(eval::Session& session,
                                          const std::map<std::string, eval::Value>& feeds) {
  std::vector<eval::Value> outs;
  for (int64_t i = 0; i < args_.repeat; ++i) {
    const auto start = Clock::now();
    done_nodes_ = 0;
    outs = session.run(feeds);
    run_seconds_.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    if (args_.verbose) {
      fmt::print(stderr, "oxs: run {} took {}\n", i + 1, ms(run_seconds_.back()));
    }
  }
  if (progress_line_) progress_line_->done();  // the line is gone once done
  return outs;
}

Json RunObserver::timing_json() const {
  double total = 0;
  for (double s : run_seconds_) total += s;
  return {{"runs", run_seconds_.size()},
          {"min_ms", *std::min_element(run_seconds_.begin(), run_seconds_.end()) * 1e3},
          {"median_ms", median(run_seconds_) * 1e3},
          {"mean_ms", total / static_cast<double>(run_seconds_.size()) * 1e3}};
}

Json RunObserver::profile_json() const {
  std::vector<NodeTime> nodes = node_times_;
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const NodeTime& a, const NodeTime& b) { return a.seconds > b.seconds; });
  std::map<std::string, std::pair<double, int64_t>> per_op;
  double total = 0;
  for (const NodeTime& t : nodes) {
    auto& [seconds, count] = per_op[t.op_type];
    seconds += t.seconds;
    count += 1;
    total += t.seconds;
  }
  const double runs = static_cast<double>(std::max<size_t>(run_seconds_.size(), 1));
  Json jn = Json::array();
  for (const NodeTime& t : nodes) {
    jn.push_back({{"node", t.node->name()},
                  {"op_type", t.op_type},
                  {"ms", t.seconds / runs * 1e3},
                  {"percent", total > 0 ? 100 * t.seconds / total : 0}});
  }
  std::vector<std::pair<std::string, std::pair<double, int64_t>>> ops(per_op.begin(), per_op.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  Json jo = Json::array();
  for (const auto& [op, st] : ops) {
    jo.push_back({{"op_type", op},
                  {"nodes", st.second},
                  {"ms", st.first / runs * 1e3},
                  {"percent", total > 0 ? 100 * st.first / total : 0}});
  }
  return {{"total_ms", total / runs * 1e3}, {"per_op_type", jo}, {"per_node", jn}};
}

void RunObserver::print_profile() const {
  Json p = profile_json();
  const size_t nodes = p["per_node"].size();
  fmt::print("profile: {} node{} of the main graph, {:.3f} ms per run\n", nodes,
             nodes == 1 ? "" : "s", p["total_ms"].get<double>());
  fmt::print("  by op type:\n");
  for (const Json& o : p["per_op_type"]) {
    fmt::print("    {:<24} {:>5} node{} {:>12.3f} ms {:>6.1f}%\n", o["op_type"].get<std::string>(),
               o["nodes"].get<int64_t>(), o["nodes"].get<int64_t>() == 1 ? " " : "s",
               o["ms"].get<double>(), o["percent"].get<double>());
  }
  const size_t shown = std::min<size_t>(p["per_node"].size(), 20);
  fmt::print("  slowest nodes{}:\n", shown < p["per_node"].size() ? " (first 20)" : "");
  for (size_t i = 0; i < shown; ++i) {
    const Json& n = p["per_node"][i];
    std::string label = n["node"].get<std::string>();
    fmt::print("    {:<32} {:<16} {:>12.3f} ms {:>6.1f}%\n", label.empty() ? "(unnamed)" : label,
               n["op_type"].get<std::string>(), n["ms"].get<double>(), n["percent"].get<double>());
  }
}

void RunObserver::finish(const std::vector<std::string>& names,
                         const std::vector<eval::Value>& outs, const std::string& model) {
  for (const auto& f : filters_) {
    if (!matched_filters_.count(f)) {
      fmt::print(stderr,
                 "oxs: warning: --trace-filter '{}' matched no node (it is compared with op "
                 "types, node names and output names)\n",
                 f);
    }
  }
  if (!args_.trace_json.empty()) {
    Json doc = json_document("run-trace");
    doc["model"] = model;
    doc["values"] = trace_;
    write_json_file(args_.trace_json, doc);
    fmt::print(stderr, "oxs: wrote {} ({} values)\n", args_.trace_json, trace_.size());
  }
  if (args_.json) {
    Json doc = json_document("run");
    doc["model"] = model;
    doc["inputs"] = inputs_;
    Json jo = Json::array();
    for (size_t i = 0; i < outs.size(); ++i) {
      Json j = json_runtime_value(outs[i], values_);
      j["name"] = names[i];
      jo.push_back(std::move(j));
    }
    doc["outputs"] = jo;
    if (args_.repeat > 1) doc["timing"] = timing_json();
    if (args_.profile) doc["profile"] = profile_json();
    print_json(doc);
    return;
  }
  if (args_.profile) print_profile();
  if (args_.repeat > 1) {
    Json t = timing_json();
    fmt::print("timing: {} runs, min {}, median {}, mean {}\n", run_seconds_.size(),
               ms(t["min_ms"].get<double>() / 1e3), ms(t["median_ms"].get<double>() / 1e3),
               ms(t["mean_ms"].get<double>() / 1e3));
  }
}

}  // namespace oxs::cli
