// The progress line of long work (loading and saving models, compiling,
// optimizing, running): one line on stderr, redrawn in place, for a person
// watching. Shown only when stderr is a terminal and --quiet is not given,
// so pipes, files and scripts never see it. --verbose adds a line per
// finished step with its time (on any stderr).
//
//   Progress p("loading model.onnx", verbosity);
//   options.progress = p.bytes();          // onnx::LoadOptions/SaveOptions
//   ir::Model m = onnx::load(path, options);
//   p.done();                              // erases the line
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "oxs/onnx/model_io.h"

namespace oxs::cli {

struct Verbosity {
  bool quiet = false;    // no progress line
  bool verbose = false;  // a line per finished step, with its time
};

// Declares -q,--quiet and -v,--verbose on `app`.
void add_verbosity_options(CLI::App& app, Verbosity& v);

// Whether progress lines are drawn: stderr is a terminal and not quiet.
bool progress_wanted(const Verbosity& v);

class Progress {
 public:
  // `what` says what is going on ("loading model.onnx"); the line shows it
  // at once (work that never reports still says what it is doing).
  Progress(std::string what, const Verbosity& v);
  // Erases the line if done() was not called (an error is on its way).
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` of `total` bytes (total 0: not known).
  void bytes(uint64_t done, uint64_t total);
  // Step `index` (from 0) of `count`, named `name`.
  void step(size_t index, size_t count, std::string_view name);
  // Any detail after `what`; unless `force`, at most 10 redraws a second.
  void show(const std::string& detail, bool force = false);
  // A callback for onnx::LoadOptions/SaveOptions::progress; valid while
  // this object lives.
  onnx::ProgressFn bytes_callback();
  // Erases the line; with --verbose prints "oxs: <what> took <time>".
  void done();

  bool shown() const { return shown_; }
  double seconds() const;

 private:
  std::string what_;
  bool verbose_ = false;
  bool shown_ = false;  // drawing at all (terminal, not quiet)
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// onnx::load and onnx::save with a progress line ("loading PATH: 1.2 GiB of
// 3.4 GiB (35%)").
ir::Model load_model(const std::string& path, onnx::LoadOptions options, const Verbosity& v);
void save_model(const ir::Model& model, const std::string& path, onnx::SaveOptions options,
                const Verbosity& v);

// "1.5 GiB", "12 MiB", "640 B".
std::string human_bytes(uint64_t n);

}  // namespace oxs::cli
