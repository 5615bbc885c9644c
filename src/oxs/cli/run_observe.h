// What `oxs run` can observe besides the outputs: --profile (time per node
// and per op type), --repeat N (timing without process start-up),
// --save-intermediates DIR and --save-inputs DIR (.npy files), --trace-json
// FILE (every traced value's summary, which `oxs viz --trace` overlays on
// edges), --json (the run as one JSON document), and the warning for a
// --trace-filter that matched nothing; a progress line on stderr when it is a
// terminal (--quiet: none; --verbose: the time of each run on stderr). cmd_run.cc owns inputs and
// outputs; this file wraps the session around them.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "oxs/cli/command.h"
#include "oxs/cli/json_out.h"
#include "oxs/cli/progress.h"
#include "oxs/eval/session.h"
#include "oxs/onnx/file_io.h"

namespace oxs::cli {

struct ObserveArgs {
  bool json = false;
  bool profile = false;
  int64_t repeat = 1;
  std::string save_intermediates;
  std::string save_inputs;
  std::string trace_json;
  bool quiet = false;    // no progress line
  bool verbose = false;  // phase timings on stderr
};

// Declares --json, --profile, --repeat, --save-intermediates, --save-inputs
// and --trace-json on `app`.
void add_observe_options(CLI::App& app, ObserveArgs& args);

// A value as JSON: kind, type, statistics and the first `n` values.
Json json_runtime_value(const eval::Value& v, size_t n);

class RunObserver {
  using Clock = std::chrono::steady_clock;

 public:
  // `filters`: --trace-filter (op types, node names or output names).
  RunObserver(const ObserveArgs& args, std::vector<std::string> filters, size_t values);

  // True when `n` passes the filters (all do without filters); remembers
  // which filters matched something.
  bool matches(const ir::Node& n);
  // Adds the hooks the options need to `options`, keeping the hooks already
  // there (the --trace printer).
  // `nodes`: how many nodes the main graph has (for the progress line).
  void install(eval::SessionOptions& options, size_t nodes);
  // Records the inputs (random ones are marked) and saves them with --save-inputs.
  void inputs_ready(const std::map<std::string, eval::Value>& feeds,
                    const std::set<std::string>& random);
  // Runs the session once, or --repeat times, timing each run.
  std::vector<eval::Value> run(eval::Session& session,
                               const std::map<std::string, eval::Value>& feeds);
  // After the run: warnings, --trace-json, and either the JSON document or
  // the profile and timing text. With --json the outputs are in the document
  // (the caller prints no text).
  void finish(const std::vector<std::string>& names, const std::vector<eval::Value>& outs,
              const std::string& model);

  bool json() const { return args_.json; }

 private:
  struct NodeTime {
    const ir::Node* node;
    std::string op_type;  // "Conv+Add+Relu" for a fused group
    double seconds = 0;
    int64_t calls = 0;
  };
  void on_enter(const ir::Node& n, int depth);
  void on_exit(const eval::TraceEvent& e);
  void save_intermediate(const eval::TraceEvent& e);
  Json profile_json() const;
  void print_profile() const;
  Json timing_json() const;

  ObserveArgs args_;
  std::vector<std::string> filters_;
  std::set<std::string> matched_filters_;
  size_t values_;
  std::vector<std::chrono::steady_clock::time_point> started_;  // a stack, by depth
  std::unordered_map<const ir::Node*, size_t> node_index_;
  std::vector<NodeTime> node_times_;
  std::vector<double> run_seconds_;
  std::map<std::string, int> saved_names_;
  // Opened on first use; files are written through them (no symlink is
  // followed inside, see onnx::OutputDir).
  std::optional<onnx::OutputDir> intermediates_dir_, inputs_dir_;
  // The progress line on a terminal (stderr): node k of n.
  void progress(const ir::Node& n);
  std::optional<Progress> progress_line_;
  bool progress_ = false;
  size_t total_nodes_ = 0, done_nodes_ = 0;
  Json inputs_ = Json::array();
  Json trace_ = Json::array();
};

}  // namespace oxs::cli
