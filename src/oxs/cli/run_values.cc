#include "oxs/cli/run_values.h"

#include "oxs/cli/run_inputs.h"

#include <fmt/core.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "oxs/eval/npy.h"
#include "oxs/ir/error.h"
#include "oxs/ir/printable.h"
#include "oxs/onnx/tensor_io.h"
#include "oxs/onnx/value_io.h"

namespace oxs::cli {
namespace {

namespace fs = std::filesystem;
using Kind = ir::Type::Kind;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

[[noreturn]] void usage(const std::string& name, const std::string& msg) {
  throw Error(ErrorKind::Usage, "--input " + name + ": " + msg);
}

eval::Value from_data(onnx::ValueData& d) {
  switch (d.kind) {
    case onnx::ValueData::Kind::Tensor:
      return eval::Tensor::from_ir(std::shared_ptr<const ir::Tensor>(d.tensor));
    case onnx::ValueData::Kind::Sequence: {
      std::vector<eval::Value> items;
      for (auto& e : d.items) items.push_back(from_data(e));
      return eval::Value::sequence(std::move(items));
    }
    case onnx::ValueData::Kind::Optional:
      if (d.items.empty()) return eval::Value::optional(std::nullopt);
      return eval::Value::optional(from_data(d.items[0]));
    case onnx::ValueData::Kind::Map:
      return eval::Value::map(eval::Tensor::from_ir(*d.tensor),
                              eval::Tensor::from_ir(*d.map_values));
  }
  return {};
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::IO, "cannot open '" + path + "': " + std::strerror(errno),
                {.file = path});
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A .npy or TensorProto .pb file; `type` (a tensor type or none) is only for
// the error a file of another kind gets.
eval::Value read_tensor_file(const std::string& name, const ir::Type& type,
                             const std::string& path) {
  if (ends_with(path, ".npy")) return eval::read_npy(path);
  if (ends_with(path, ".npz")) return npz_array_for(name, path);
  if (ends_with(path, ".pb")) {
    auto d = onnx::load_value(path, type.is_tensor() ? type : ir::Type());
    return from_data(d);
  }
  usage(name, "'" + path +
                  "' must be a .npy, .npz or TensorProto .pb file, or a literal value "
                  "such as [[1,2],[3,4]]");
}

std::vector<std::string> split_list(const std::string& name, const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    bool last = comma == std::string::npos;
    if (item.empty() && !(last && !items.empty())) {  // "a.npy," is a one-element list
      usage(name, "'" + text + "' has an empty item; give FILE,FILE,... or [] for an empty list");
    }
    if (!item.empty()) items.push_back(item);
    if (last) break;
    start = comma + 1;
  }
  return items;
}

// A JSON object {"key": value} as a map with the declared key and value
// types (int64 keys parsed from the JSON strings; values float by default).
eval::Value read_json_map(const std::string& name, const ir::Type& type, const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_text(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::Input, "input '" + name + "': the file is not valid JSON: " + e.what(),
                {.file = path});
  }
  if (!j.is_object()) {
    throw Error(ErrorKind::Input,
                "input '" + name + "': the file must hold a JSON object {\"key\": value}",
                {.file = path});
  }
  ir::DataType kt =
      type.elem_type() == ir::DataType::String ? ir::DataType::String : ir::DataType::Int64;
  ir::DataType vt = ir::DataType::Undefined;
  if (type.element() && type.element()->is_tensor()) vt = type.element()->elem_type();
  if (vt == ir::DataType::Undefined) {
    vt = (!j.empty() && j.begin()->is_string()) ? ir::DataType::String : ir::DataType::Float;
  }
  if (vt != ir::DataType::Float && vt != ir::DataType::Double && vt != ir::DataType::Int64 &&
      vt != ir::DataType::String) {
    throw Error(ErrorKind::Unsupported, "input '" + name + "': JSON maps take float, double, " +
                                            "int64 or string values, not " +
                                            std::string(ir::dtype_name(vt)));
  }
  int64_t n = int64_t(j.size());
  eval::Tensor keys(kt, {n});
  eval::Tensor vals(vt, {n});
  int64_t i = 0;
  for (auto it = j.begin(); it != j.end(); ++it, ++i) {
    auto bad = [&](const std::string& what) {
      throw Error(ErrorKind::Input, "input '" + name + "': entry \"" + it.key() + "\": " + what,
                  {.file = path});
    };
    if (kt == ir::DataType::String) {
      keys.mutable_strings()[size_t(i)] = it.key();
    } else {
      try {
        size_t used = 0;
        keys.mutable_data<int64_t>()[i] = std::stoll(it.key(), &used);
        if (used != it.key().size()) bad("the key is not an integer (the map has int64 keys)");
      } catch (const std::logic_error&) {
        bad("the key is not an integer (the map has int64 keys)");
      }
    }
    const nlohmann::json& v = it.value();
    if (vt == ir::DataType::String) {
      if (!v.is_string()) bad("the value must be a string");
      vals.mutable_strings()[size_t(i)] = v.get<std::string>();
    } else if (!v.is_number()) {
      bad("the value must be a number");
    } else if (vt == ir::DataType::Int64) {
      if (!v.is_number_integer()) bad("the value must be an integer");
      vals.mutable_data<int64_t>()[i] = v.get<int64_t>();
    } else if (vt == ir::DataType::Double) {
      vals.mutable_data<double>()[i] = v.get<double>();
    } else {
      vals.mutable_data<float>()[i] = v.get<float>();
    }
  }
  return eval::Value::map(std::move(keys), std::move(vals));
}

eval::Value read_sequence(const std::string& name, const ir::Type& type, const std::string& text) {
  const ir::Type* elem = type.element();
  ir::Type elem_type = elem ? *elem : ir::Type();
  if (text == "[]") return eval::Value::sequence({}, elem_type);
  std::vector<std::string> files = split_list(name, text);
  bool single_pb =
      files.size() == 1 && text.find(',') == std::string::npos && ends_with(files[0], ".pb");
  if (single_pb && (onnx::guess_value_message(read_text(files[0])) != "TensorProto" ||
                    (elem && !elem->is_none() && !elem->is_tensor()))) {
    auto d = onnx::load_value(files[0], type);
    eval::Value v = from_data(d);
    if (v.items().empty()) return eval::Value::sequence({}, elem_type);
    return v;
  }
  if (elem && !elem->is_none() && !elem->is_tensor()) {
    usage(name, "the input is " + type.to_string() +
                    "; a list of files is for sequences of tensors; give a SequenceProto .pb");
  }
  std::vector<eval::Value> items;
  for (const auto& f : files) items.push_back(read_tensor_file(name, elem_type, f));
  return eval::Value::sequence(std::move(items), elem_type);
}

// Entries a previous run left in a sequence directory ("0.npy", "3/", ...);
// removed without following links (OutputDir::remove).
void remove_stale_elements(const onnx::OutputDir& dir) {
  for (const std::string& entry : dir.entries()) {
    const size_t dot = entry.find('.');
    const std::string stem = entry.substr(0, dot);
    const std::string ext = dot == std::string::npos ? "" : entry.substr(dot);
    bool numeric = !stem.empty() && stem.find_first_not_of("0123456789") == std::string::npos;
    if (numeric && (ext == ".npy" || ext == ".json" || ext.empty())) dir.remove(entry);
  }
}

void write_value(const onnx::OutputDir& dir, const std::string& base, const std::string& name,
                 const eval::Value& v) {
  switch (v.kind()) {
    case eval::Value::Kind::Tensor:
      dir.write_file(base + ".npy", eval::npy_bytes(v.tensor()));
      fmt::print(stderr, "oxs: wrote {}/{}.npy\n", dir.path(), base);
      return;
    case eval::Value::Kind::Sequence: {
      onnx::OutputDir sub = dir.subdir(base);
      remove_stale_elements(sub);
      for (size_t i = 0; i < v.items().size(); ++i) {
        write_value(sub, std::to_string(i), name + "[" + std::to_string(i) + "]", v.items()[i]);
      }
      fmt::print(stderr, "oxs: wrote {}/ ({} elements)\n", sub.path(), v.items().size());
      return;
    }
    case eval::Value::Kind::Optional:
      if (v.has_element()) {
        write_value(dir, base, name, v.element());
      } else {
        fmt::print(stderr, "oxs: note: output '{}' is an empty optional; nothing written\n",
                   ir::printable(name));
      }
      return;
    case eval::Value::Kind::Map:
      dir.write_file(base + ".json", map_to_json(v) + "\n");
      fmt::print(stderr, "oxs: wrote {}/{}.json\n", dir.path(), base);
      return;
    case eval::Value::Kind::None:
      fmt::print(stderr, "oxs: note: output '{}' has no value; nothing written\n",
                 ir::printable(name));
      return;
  }
}

}  // namespace

std::string map_to_json(const eval::Value& map) {
  const eval::Tensor& k = map.map_keys();
  const eval::Tensor& v = map.map_values();
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (int64_t i = 0; i < k.numel(); ++i) {
    std::string key = k.dtype() == ir::DataType::String ? k.strings()[size_t(i)]
                                                        : std::to_string(k.data<int64_t>()[i]);
    if (v.dtype() == ir::DataType::String) {
      j[key] = v.strings()[size_t(i)];
    } else if (v.dtype() == ir::DataType::Int64) {
      j[key] = v.data<int64_t>()[i];
    } else if (v.dtype() == ir::DataType::Float) {
      // The shortest text that reads back as the same float, not the
      // double's 17 digits.
      std::array<char, 32> buf{};
      auto res = std::to_chars(buf.data(), buf.data() + buf.size(), v.data<float>()[i]);
      j[key] = std::strtod(std::string(buf.data(), res.ptr).c_str(), nullptr);
    } else {
      j[key] = v.get_as_double(i);
    }
  }
  return j.dump();
}

namespace {

eval::Value read_input(const std::string& name, const ir::Type& type, const std::string& text) {
  if (text.empty()) usage(name, "give a file after '='");
  switch (type.kind()) {
    case Kind::Sequence:
      return read_sequence(name, type, text);
    case Kind::Optional: {
      const ir::Type* elem = type.element();
      if (text == "none") return eval::Value::optional(std::nullopt, elem ? *elem : ir::Type());
      if (ends_with(text, ".pb") && text.find(',') == std::string::npos) {
        auto d = onnx::load_value(text, type);
        return from_data(d);
      }
      if (!elem) usage(name, "the optional's element type is unknown; give an OptionalProto .pb");
      return eval::Value::optional(read_input(name, *elem, text), *elem);
    }
    case Kind::Map:
      if (ends_with(text, ".json")) return read_json_map(name, type, text);
      if (ends_with(text, ".pb")) {
        auto d = onnx::load_value(text, type);
        return from_data(d);
      }
      usage(name, "the input is a map (" + type.to_string() +
                      "); give a JSON object file (.json) or a MapProto .pb");
    default:
      break;
  }
  if (text != "[]") {
    if (auto literal = parse_literal(name, type, text)) return *literal;
  }
  if (text == "none" || text == "[]" || text.find(',') != std::string::npos) {
    usage(name, "the input is a tensor (" + type.to_string() + "); '" + text +
                    "' is for sequence or optional inputs; give one .npy or .pb file");
  }
  return read_tensor_file(name, type, text);
}

}  // namespace

eval::Value read_input_value(const std::string& name, const ir::Type& type,
                             const std::string& text) {
  try {
    return read_input(name, type, text);
  } catch (const Error& e) {
    // Say which input a file error is about (the file is in the location).
    if (e.message().rfind("--input ", 0) == 0 || e.message().rfind("input '", 0) == 0) throw;
    throw Error(e.kind(), "input '" + name + "': " + e.message(), e.where());
  }
}

void write_output_value(const onnx::OutputDir& dir, const std::string& base,
                        const std::string& name, const eval::Value& value) {
  write_value(dir, base, name, value);
}

}  // namespace oxs::cli
