// The fuzz harnesses of oxs: one entry per input format, each taking raw
// bytes and feeding them to the library the way the `oxs` command would.
// An entry returns normally when the input was handled, successfully or
// with an oxs::Error (the expected answer to bad input); anything else —
// a crash, a sanitizer report, any other exception escaping — is a finding.
//
// The same entries serve two drivers: libFuzzer (libfuzzer_main.cc, built
// with clang by fuzz/run.sh) and the corpus replay test (tests/fuzz), which
// runs every file of fuzz/corpus/<harness>/ through its entry in the
// ordinary build, so each seed and each crash once found stays a test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace oxs::fuzz {

// Model bytes -> load -> print -> everything `oxs check` does
// (infer::check_model) -> save and load again.
void load_model(const uint8_t* data, size_t size);
// Bytes choose one op version of any domain the schemas know (ai.onnx 1-28,
// ai.onnx.ml 1-5, the preview domains), its arity, input types (tensors of
// every ONNX 1.23 element type, sequences, optionals, maps), shapes and
// values, and attributes (graph bodies, sparse tensors and type protos
// included); the single-node model runs on the evaluator.
void single_op(const uint8_t* data, size_t size);
// ONNX Script source -> compile (model and functions-only).
void compile_script(const uint8_t* data, size_t size);
// Model bytes -> load -> decompile -> compile the source.
void decompile_roundtrip(const uint8_t* data, size_t size);
// YAML text -> the pass configuration of `oxs opt -c`.
void opt_config(const uint8_t* data, size_t size);
// A declared type, a form and a payload -> the value `oxs run --input
// NAME=...` reads (literals, .npy, .npz, .pb, .json files, sequences).
void run_input(const uint8_t* data, size_t size);

struct Harness {
  std::string_view name;  // also the corpus folder: fuzz/corpus/<name>/
  void (*entry)(const uint8_t*, size_t);
};

// Every harness, in a fixed order.
const std::vector<Harness>& harnesses();

}  // namespace oxs::fuzz
