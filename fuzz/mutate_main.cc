// oxs_fuzz_mutate: a bounded mutation fuzzer in the ordinary build, for CI.
// The libFuzzer binaries need a clang build of every room (fuzz/run.sh, ~45
// minutes from scratch); this driver needs nothing more than the Release
// build, so `make test` runs each harness for a few seconds on every run.
// It has no coverage feedback: it mutates the harness' corpus files
// (fuzz/corpus/<harness>/) at random, from a fixed seed, so a run is
// reproducible up to where its time ends.
//
//   usage: oxs_fuzz_mutate CORPUS_DIR HARNESS SECONDS [SEED]
//
// SECONDS 0 replays every corpus file once, unmutated (for triage, with
// OXS_FUZZ_VERBOSE=1).
//
// A finding (a signal, an exception other than oxs::Error escaping the
// entry, or one input running longer than OXS_FUZZ_HANG_SECONDS, 20 by
// default) leaves the input in ./mutate-finding-<harness>.bin (add it to the
// corpus once fixed) and exits non-zero; a clean run prints its executions.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/harness.h"

namespace {

namespace fs = std::filesystem;

// The input being run, for the signal handler (written with write(2) only).
const std::vector<uint8_t>* g_current = nullptr;
char g_finding_path[256];

void save_current() {
  if (g_current) {
    int fd = ::open(g_finding_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ssize_t ignored = ::write(fd, g_current->data(), g_current->size());
      (void)ignored;
      ::close(fd);
    }
  }
}

void on_signal(int sig) {
  save_current();
  static const char msg[] = "oxs_fuzz_mutate: signal while running an input (saved)\n";
  ssize_t ignored = ::write(2, msg, sizeof msg - 1);
  (void)ignored;
  signal(sig, SIG_DFL);
  raise(sig);
}

// An input that runs longer than the hang limit is a finding too (the
// harnesses bound their runs: single_op's sessions stop after 0.5 s).
void on_hang(int) {
  save_current();
  static const char msg[] = "oxs_fuzz_mutate: an input ran past the hang limit (saved)\n";
  ssize_t ignored = ::write(2, msg, sizeof msg - 1);
  (void)ignored;
  _exit(1);
}

std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  const std::string b = s.str();
  return std::vector<uint8_t>(b.begin(), b.end());
}

// One random edit of `d`: flip a bit, set an interesting byte, insert or
// erase a few bytes, copy a range within the input, or splice in a range
// of another corpus file.
void mutate_once(std::vector<uint8_t>& d, const std::vector<std::vector<uint8_t>>& corpus,
                 std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n == 0 ? size_t(0) : size_t(rng() % n); };
  static const uint8_t interesting[] = {0, 1, 0x7f, 0x80, 0xff, 0xfe, 0x40, 0x10, 8, 2};
  switch (rng() % 7) {
    case 0:
      if (!d.empty()) d[pick(d.size())] ^= uint8_t(1u << (rng() % 8));
      break;
    case 1:
      if (!d.empty()) d[pick(d.size())] = interesting[pick(sizeof interesting)];
      break;
    case 2: {
      const size_t at = pick(d.size() + 1), n = 1 + pick(8);
      for (size_t i = 0; i < n; ++i) d.insert(d.begin() + long(at), uint8_t(rng()));
      break;
    }
    case 3:
      if (!d.empty()) {
        const size_t at = pick(d.size()), n = std::min(d.size() - at, 1 + pick(16));
        d.erase(d.begin() + long(at), d.begin() + long(at + n));
      }
      break;
    case 4:
      if (d.size() > 2) {
        const size_t from = pick(d.size()), n = std::min(d.size() - from, 1 + pick(32));
        const size_t to = pick(d.size() - n + 1);
        std::vector<uint8_t> chunk(d.begin() + long(from), d.begin() + long(from + n));
        std::copy(chunk.begin(), chunk.end(), d.begin() + long(to));
      }
      break;
    case 5: {
      const std::vector<uint8_t>& other = corpus[pick(corpus.size())];
      if (other.empty()) break;
      const size_t from = pick(other.size()), n = std::min(other.size() - from, 1 + pick(64));
      const size_t at = pick(d.size() + 1);
      d.insert(d.begin() + long(at), other.begin() + long(from), other.begin() + long(from + n));
      break;
    }
    default:
      if (d.size() > 1) {  // a little-endian varint-sized field made huge or zero
        const size_t at = pick(d.size() - 1);
        d[at] = rng() % 2 ? 0xff : 0x00;
        d[at + 1] = rng() % 2 ? 0xff : 0x7f;
      }
      break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR HARNESS SECONDS [SEED]\n", argv[0]);
    return 2;
  }
  const fs::path corpus_dir = argv[1];
  const std::string name = argv[2];
  const double seconds = std::atof(argv[3]);
  const uint64_t seed = argc == 5 ? std::strtoull(argv[4], nullptr, 10) : 1;
  const oxs::fuzz::Harness* h = nullptr;
  for (const auto& x : oxs::fuzz::harnesses()) {
    if (x.name == name) h = &x;
  }
  if (!h || !(seconds >= 0)) {
    std::fprintf(stderr, "oxs_fuzz_mutate: unknown harness '%s' or bad SECONDS '%s'\n",
                 name.c_str(), argv[3]);
    return 2;
  }
  std::vector<std::vector<uint8_t>> corpus;
  std::vector<fs::path> files;
  if (fs::is_directory(corpus_dir / name)) {
    for (const auto& e : fs::directory_iterator(corpus_dir / name)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) corpus.push_back(read_file(f));
  if (corpus.empty()) {
    std::fprintf(stderr, "oxs_fuzz_mutate: no corpus files in %s\n",
                 (corpus_dir / name).string().c_str());
    return 2;
  }
  std::snprintf(g_finding_path, sizeof g_finding_path, "mutate-finding-%s.bin", name.c_str());
  // The handler runs on its own stack, so a stack overflow is saved too.
  static std::vector<char> alt(1 << 16);
  stack_t ss{};
  ss.ss_sp = alt.data();
  ss.ss_size = alt.size();
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_ONSTACK;
  for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL}) sigaction(sig, &sa, nullptr);
  struct sigaction hang {};
  hang.sa_handler = on_hang;
  sigaction(SIGALRM, &hang, nullptr);
  const char* hang_env = std::getenv("OXS_FUZZ_HANG_SECONDS");
  const unsigned hang_seconds = hang_env ? unsigned(std::atoi(hang_env)) : 20;
  // For campaigns: inputs that return but take longer than this are kept
  // (mutate-slow-<harness>-<n>.bin, at most 20) and named, not failed.
  const char* slow_env = std::getenv("OXS_FUZZ_SLOW_SECONDS");
  const double slow_seconds = slow_env ? std::atof(slow_env) : 0;
  int slow_found = 0;

  if (seconds == 0) {  // replay: every corpus file once, as it is
    for (size_t i = 0; i < corpus.size(); ++i) {
      std::fprintf(stderr, "oxs_fuzz_mutate: replaying %s\n", files[i].string().c_str());
      g_current = &corpus[i];
      h->entry(corpus[i].data(), corpus[i].size());
    }
    std::printf("oxs_fuzz_mutate: %s: replayed %zu files\n", name.c_str(), corpus.size());
    return 0;
  }
  std::mt19937_64 rng(seed);
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(seconds));
  uint64_t execs = 0;
  std::vector<uint8_t> input;
  while (std::chrono::steady_clock::now() < end) {
    input = corpus[size_t(rng() % corpus.size())];
    const int edits = 1 + int(rng() % 8);
    for (int i = 0; i < edits; ++i) mutate_once(input, corpus, rng);
    g_current = &input;
    const auto started = std::chrono::steady_clock::now();
    alarm(hang_seconds);
    try {
      h->entry(input.data(), input.size());
    } catch (const std::exception& e) {
      std::ofstream(g_finding_path, std::ios::binary)
          .write(reinterpret_cast<const char*>(input.data()), std::streamsize(input.size()));
      std::fprintf(stderr,
                   "oxs_fuzz_mutate: %s: an exception escaped after %llu runs: %s (input in %s)\n",
                   name.c_str(), static_cast<unsigned long long>(execs), e.what(), g_finding_path);
      return 1;
    }
    alarm(0);
    g_current = nullptr;
    ++execs;
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (slow_seconds > 0 && took > slow_seconds && slow_found < 20) {
      const std::string path = "mutate-slow-" + name + "-" + std::to_string(slow_found++) + ".bin";
      std::ofstream(path, std::ios::binary)
          .write(reinterpret_cast<const char*>(input.data()), std::streamsize(input.size()));
      std::fprintf(stderr, "oxs_fuzz_mutate: %s: a slow input (%.1f s) in %s\n", name.c_str(), took,
                   path.c_str());
    }
  }
  std::printf(
      "oxs_fuzz_mutate: %s: %llu runs in %.0f s from %zu corpus files (seed %llu), no finding\n",
      name.c_str(), static_cast<unsigned long long>(execs), seconds, corpus.size(),
      static_cast<unsigned long long>(seed));
  return 0;
}
