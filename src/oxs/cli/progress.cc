#include "oxs/cli/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "oxs/ir/printable.h"

namespace oxs::cli {

void add_verbosity_options(CLI::App& app, Verbosity& v) {
  app.add_flag("-q,--quiet", v.quiet, "no progress line on the terminal");
  app.add_flag("-v,--verbose", v.verbose, "say on stderr how long each step took");
}

bool progress_wanted(const Verbosity& v) {
  return !v.quiet && isatty(2) == 1;
}

std::string human_bytes(uint64_t n) {
  if (n < 1024) return fmt::format("{} B", n);
  static const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double x = static_cast<double>(n) / 1024;
  size_t u = 0;
  while (x >= 1024 && u + 1 < std::size(units)) {
    x /= 1024;
    ++u;
  }
  return x < 10 ? fmt::format("{:.1f} {}", x, units[u]) : fmt::format("{:.0f} {}", x, units[u]);
}

Progress::Progress(std::string what, const Verbosity& v)
    : what_(ir::printable(what)),
      verbose_(v.verbose),
      shown_(progress_wanted(v)),
      start_(std::chrono::steady_clock::now()) {
  show("", true);
}

Progress::~Progress() {
  if (shown_ && !finished_) {
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
  }
}

double Progress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::show(const std::string& detail, bool force) {
  if (!shown_ || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  // At most 10 redraws a second: a terminal is slow, and nobody reads faster.
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  fmt::print(stderr, "\roxs: {}{}{}\033[K", what_, detail.empty() ? "" : ": ",
             ir::printable(detail));
  std::fflush(stderr);
}

void Progress::bytes(uint64_t done, uint64_t total) {
  if (total == 0) {
    show(human_bytes(done), false);
  } else {
    const uint64_t percent = done >= total ? 100 : done / (total / 100 + 1);
    show(fmt::format("{} of {} ({}%)", human_bytes(done), human_bytes(total), percent), false);
  }
}

void Progress::step(size_t index, size_t count, std::string_view name) {
  show(fmt::format("[{}/{}] {}", index + 1, count, name), true);
}

onnx::ProgressFn Progress::bytes_callback() {
  if (!shown_) return {};  // no per-chunk calls when nobody watches
  return [this](uint64_t done, uint64_t total) { bytes(done, total); };
}

void Progress::done() {
  if (finished_) return;
  if (shown_) fmt::print(stderr, "\r\033[K");
  finished_ = true;
  if (verbose_) fmt::print(stderr, "oxs: {} took {:.3f} s\n", what_, seconds());
  std::fflush(stderr);
}

ir::Model load_model(const std::string& path, onnx::LoadOptions options, const Verbosity& v) {
  Progress p("loading " + path, v);
  options.progress = p.bytes_callback();
  ir::Model model = onnx::load(path, options);
  p.done();
  return model;
}

void save_model(const ir::Model& model, const std::string& path, onnx::SaveOptions options,
                const Verbosity& v) {
  Progress p("saving " + path, v);
  options.progress = p.bytes_callback();
  onnx::save(model, path, options);
  p.done();
}

}  // namespace oxs::cli
