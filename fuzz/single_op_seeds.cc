// oxs_fuzz_single_op_seeds: writes single_op corpus seeds for the op
// versions that came after libonnx 1.12 (ai.onnx 18-28, ai.onnx.ml 4-5,
// ai.onnx.preview) and for ai.onnx.preview.training, and reports how each of
// those versions fared. For every version it tries random choice bytes (a
// fixed seed, so the output is reproducible) until one case runs on the
// evaluator; per op it keeps the newest version's best input as
// fuzz/corpus/single_op/<domain.>Op-<version>.bin, whose first line names
// the op without a version ("#op :Pad"): the first choice byte picks the
// version, so one file per op lets the mutation fuzzer reach all of them.
// Then a few feature seeds (kFeatures): cases that ran with a sparse-tensor
// or type-proto attribute, float8/int4/float4/int2 values, nested If
// bodies, Loop/Scan/SequenceMap bodies, map inputs.
//
//   usage: oxs_fuzz_single_op_seeds OUT_DIR [TRIES_PER_VERSION]
//
// Exit 0; versions whose cases never ran are listed with their last error
// (ops the evaluator has no kernel or body for, or that need inputs the
// harness cannot make).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/single_op/case.h"
#include "oxs/schema/registry.h"

namespace {

namespace fs = std::filesystem;
using oxs::fuzz::CaseOutcome;
using oxs::fuzz::CaseReport;
using oxs::fuzz::OpVersion;

bool is_new(const OpVersion& op) {
  if (op.domain.empty()) return op.version >= 18;
  if (op.domain == "ai.onnx.ml") return op.version >= 4;
  return true;  // ai.onnx.preview, ai.onnx.preview.training: never seeded before
}

struct Best {
  std::vector<uint8_t> input;
  CaseReport report;
};

// A seed for something the per-op seeds may miss: an op (any of its
// versions) whose case must reach `outcome` and whose description
// (CaseReport::description) must contain `needs`.
struct Feature {
  const char* file;
  const char* line;  // "#op DOMAIN:OP\n"
  const char* needs;
  CaseOutcome outcome;
};

const Feature kFeatures[] = {
    {"feature-Constant-sparse_value.bin", "#op :Constant\n", "sparse_value=sparse_tensor",
     CaseOutcome::Failed},
    {"feature-Optional-type_proto.bin", "#op :Optional\n", "type=type_proto", CaseOutcome::Ran},
    {"feature-Identity-float8e4m3fn.bin", "#op :Identity\n", "in: float8e4m3fn", CaseOutcome::Ran},
    {"feature-Identity-float8e5m2fnuz.bin", "#op :Identity\n", "in: float8e5m2fnuz",
     CaseOutcome::Ran},
    {"feature-Identity-int4.bin", "#op :Identity\n", "in: int4", CaseOutcome::Ran},
    {"feature-Identity-float4e2m1.bin", "#op :Identity\n", "in: float4e2m1", CaseOutcome::Ran},
    {"feature-Identity-uint2.bin", "#op :Identity\n", "in: uint2", CaseOutcome::Ran},
    {"feature-Cast-to-float8e4m3fn.bin", "#op :Cast\n", "to=int:17", CaseOutcome::Ran},
    {"feature-Cast-to-int4.bin", "#op :Cast\n", "to=int:22", CaseOutcome::Ran},
    {"feature-Cast-to-float4e2m1.bin", "#op :Cast\n", "to=int:23", CaseOutcome::Ran},
    {"feature-Cast-from-float8e8m0.bin", "#op :Cast\n", "in: float8e8m0", CaseOutcome::Ran},
    {"feature-QuantizeLinear-int4.bin", "#op :QuantizeLinear\n", "int4", CaseOutcome::Ran},
    {"feature-DequantizeLinear-float8.bin", "#op :DequantizeLinear\n", "in: float8",
     CaseOutcome::Ran},
    {"feature-If-nested-If.bin", "#op :If\n", ",If,", CaseOutcome::Ran},
    {"feature-Loop-scan-output.bin", "#op :Loop\n", "body=graph(", CaseOutcome::Ran},
    {"feature-Scan-body.bin", "#op :Scan\n", "body=graph(", CaseOutcome::Ran},
    {"feature-SequenceMap-body.bin", "#op :SequenceMap\n", "body=graph(", CaseOutcome::Ran},
    {"feature-FlexAttention-score_mod.bin", "#op ai.onnx.preview:FlexAttention\n",
     "score_mod=graph(", CaseOutcome::Ran},
    {"feature-ml-DictVectorizer-map.bin", "#op ai.onnx.ml:DictVectorizer\n", "in: map(",
     CaseOutcome::Ran},
};

std::vector<uint8_t> random_input(const std::string& line, std::mt19937_64& rng) {
  std::vector<uint8_t> in(line.begin(), line.end());
  const size_t n = 16 + rng() % 112;
  for (size_t i = 0; i < n; ++i) in.push_back(uint8_t(rng()));
  return in;
}

void write(const fs::path& path, const std::vector<uint8_t>& input) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(input.data()), std::streamsize(input.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s OUT_DIR [TRIES_PER_VERSION]\n", argv[0]);
    return 2;
  }
  const fs::path out = argv[1];
  const int tries = argc == 3 ? std::atoi(argv[2]) : 300;
  fs::create_directories(out);
  std::mt19937_64 rng(20261126);

  // Per op (domain, name): its versions in the table, and the new ones.
  std::map<std::pair<std::string, std::string>, std::vector<int64_t>> versions;
  for (const OpVersion& op : oxs::fuzz::single_op_table()) {
    versions[{op.domain, op.op}].push_back(op.version);
  }
  size_t ran = 0, total = 0, files = 0;
  for (const auto& [key, all] : versions) {
    const auto& [domain, name] = key;
    const std::string line = "#op " + domain + ":" + name + "\n";
    std::optional<Best> keep;
    for (size_t vi = 0; vi < all.size(); ++vi) {
      if (!is_new({domain, name, all[vi]})) continue;
      ++total;
      Best best;
      for (int t = 0; t < tries; ++t) {
        std::vector<uint8_t> in = random_input(line, rng);
        // The version byte: one that picks this version (index vi).
        const size_t wraps = 256 / all.size();
        in[line.size()] = uint8_t(vi + all.size() * (rng() % wraps));
        CaseReport rep = oxs::fuzz::run_single_op_case(in.data(), in.size());
        if (best.input.empty() || int(rep.outcome) > int(best.report.outcome)) {
          best = {in, rep};
        }
        if (rep.outcome == CaseOutcome::Ran) break;
      }
      static const char* names[] = {"no case", "not built", "refused", "failed", "ran"};
      if (best.report.outcome == CaseOutcome::Ran) {
        ++ran;
      } else {
        std::printf("%s%s%s-%lld: %s: %s\n", domain.c_str(), domain.empty() ? "" : ".",
                    name.c_str(), static_cast<long long>(all[vi]), names[int(best.report.outcome)],
                    best.report.message.c_str());
      }
      // The newest version that ran, else the newest that got furthest.
      if (!keep || int(best.report.outcome) >= int(keep->report.outcome)) keep = best;
    }
    // Only cases that reach the kernel: a refused one (a deprecated
    // version, a missing kernel) tests nothing the older seeds do not.
    if (!keep || int(keep->report.outcome) < int(CaseOutcome::Failed)) continue;
    const std::string file = (domain.empty() ? "" : domain + ".") + name + "-" +
                             std::to_string(keep->report.op.version) + ".bin";
    write(out / file, keep->input);
    ++files;
  }
  for (const Feature& f : kFeatures) {
    bool found = false;
    for (int t = 0; t < 20 * tries && !found; ++t) {
      std::vector<uint8_t> in = random_input(f.line, rng);
      CaseReport rep = oxs::fuzz::run_single_op_case(in.data(), in.size(), true);
      if (int(rep.outcome) >= int(f.outcome) &&
          rep.description.find(f.needs) != std::string::npos) {
        write(out / f.file, in);
        found = true;
        ++files;
      }
    }
    if (!found) std::printf("feature %s: no case found\n", f.file);
  }
  std::printf(
      "%zu op versions in the table; %zu of its %zu new ones ran at least once; %zu seed files "
      "written to %s\n",
      oxs::fuzz::single_op_table().size(), ran, total, files, out.string().c_str());
  return 0;
}
