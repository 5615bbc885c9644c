#include "oxs/cli/run_inputs.h"

#include <zlib.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "oxs/eval/half.h"
#include "oxs/eval/npy.h"
#include "oxs/schema/suggest.h"

namespace oxs::cli {
namespace {

using json = nlohmann::json;

[[noreturn]] void usage(const std::string& name, const std::string& msg) {
  throw Error(ErrorKind::Usage, "--input " + name + ": " + msg);
}

// Walks a nested list, recording the dims at the first visit of each depth
// and checking every other list against them.
void flatten(const std::string& name, const json& j, size_t depth, eval::Dims& dims,
             std::vector<const json*>& leaves) {
  if (!j.is_array()) {
    if (depth != dims.size()) usage(name, "the list is ragged (a value where a list was expected)");
    leaves.push_back(&j);
    return;
  }
  if (depth == dims.size()) {
    if (!leaves.empty()) usage(name, "the list is ragged (a list where a value was expected)");
    dims.push_back(static_cast<int64_t>(j.size()));
  } else if (depth > dims.size() || dims[depth] != static_cast<int64_t>(j.size())) {
    usage(name, "the list is ragged: lists at depth " + std::to_string(depth + 1) +
                    " must all have " + std::to_string(dims[depth]) + " elements");
  }
  for (const json& item : j) flatten(name, item, depth + 1, dims, leaves);
}

ir::DataType guess_dtype(const std::vector<const json*>& leaves) {
  bool all_int = true;
  for (const json* v : leaves) {
    if (v->is_string()) return ir::DataType::String;
    if (v->is_boolean()) return ir::DataType::Bool;
    all_int = all_int && v->is_number_integer();
  }
  return all_int ? ir::DataType::Int64 : ir::DataType::Float;
}

double number(const std::string& name, const json& v, ir::DataType dt) {
  if (!v.is_number()) {
    usage(name, "'" + v.dump() + "' is not a number (the input is " +
                    std::string(ir::dtype_name(dt)) + ")");
  }
  return v.get<double>();
}

template <class T>
void fill_integers(const std::string& name, const std::vector<const json*>& leaves,
                   eval::Tensor& t) {
  for (size_t i = 0; i < leaves.size(); ++i) {
    const json& v = *leaves[i];
    const std::string what = "'" + v.dump() + "'";
    double d = number(name, v, t.dtype());
    if (std::floor(d) != d) usage(name, what + " is not an integer");
    bool fits = v.is_number_unsigned()
                    ? v.get<uint64_t>() <= std::numeric_limits<T>::max()
                    : d >= static_cast<double>(std::numeric_limits<T>::min()) &&
                          d <= static_cast<double>(std::numeric_limits<T>::max());
    if (!fits) {
      usage(name, what + " does not fit in " + std::string(ir::dtype_name(t.dtype())));
    }
    t.mutable_data<T>()[i] = v.is_number_unsigned()  ? static_cast<T>(v.get<uint64_t>())
                             : v.is_number_integer() ? static_cast<T>(v.get<int64_t>())
                                                     : static_cast<T>(d);
  }
}

eval::Tensor make_tensor(const std::string& name, ir::DataType dt, eval::Dims dims,
                         const std::vector<const json*>& leaves) {
  eval::Tensor t(dt, std::move(dims));
  switch (dt) {
    case ir::DataType::Float:
      for (size_t i = 0; i < leaves.size(); ++i)
        t.mutable_data<float>()[i] = static_cast<float>(number(name, *leaves[i], dt));
      break;
    case ir::DataType::Double:
      for (size_t i = 0; i < leaves.size(); ++i)
        t.mutable_data<double>()[i] = number(name, *leaves[i], dt);
      break;
    case ir::DataType::Float16:
      for (size_t i = 0; i < leaves.size(); ++i)
        t.mutable_data<uint16_t>()[i] =
            eval::Half::from_float(static_cast<float>(number(name, *leaves[i], dt)));
      break;
    case ir::DataType::BFloat16:
      for (size_t i = 0; i < leaves.size(); ++i)
        t.mutable_data<uint16_t>()[i] =
            eval::BFloat16::from_float(static_cast<float>(number(name, *leaves[i], dt)));
      break;
    case ir::DataType::Int8:
      fill_integers<int8_t>(name, leaves, t);
      break;
    case ir::DataType::Int16:
      fill_integers<int16_t>(name, leaves, t);
      break;
    case ir::DataType::Int32:
      fill_integers<int32_t>(name, leaves, t);
      break;
    case ir::DataType::Int64:
      fill_integers<int64_t>(name, leaves, t);
      break;
    case ir::DataType::Uint8:
      fill_integers<uint8_t>(name, leaves, t);
      break;
    case ir::DataType::Uint16:
      fill_integers<uint16_t>(name, leaves, t);
      break;
    case ir::DataType::Uint32:
      fill_integers<uint32_t>(name, leaves, t);
      break;
    case ir::DataType::Uint64:
      fill_integers<uint64_t>(name, leaves, t);
      break;
    case ir::DataType::Bool:
      for (size_t i = 0; i < leaves.size(); ++i) {
        const json& v = *leaves[i];
        bool ok = v.is_boolean() || (v.is_number_integer() && (v == 0 || v == 1));
        if (!ok) usage(name, "'" + v.dump() + "' is not a bool (true, false, 0 or 1)");
        t.mutable_data<bool>()[i] = v.is_boolean() ? v.get<bool>() : v.get<int64_t>() != 0;
      }
      break;
    case ir::DataType::String:
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (!leaves[i]->is_string()) usage(name, "'" + leaves[i]->dump() + "' is not a string");
        t.mutable_strings()[i] = leaves[i]->get<std::string>();
      }
      break;
    default:
      usage(name, "literal values of type " + std::string(ir::dtype_name(dt)) +
                      " are not supported; give a .npy file");
  }
  return t;
}

uint32_t u16(const std::string& b, size_t at) {
  return static_cast<uint8_t>(b[at]) | static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8;
}
uint32_t u32(const std::string& b, size_t at) {
  return u16(b, at) | u16(b, at + 2) << 16;
}
uint64_t u64(const std::string& b, size_t at) {
  return u32(b, at) | static_cast<uint64_t>(u32(b, at + 4)) << 32;
}

[[noreturn]] void bad_zip(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::Input, "'" + path + "' is not a valid .npz archive: " + what,
              {.file = path});
}

std::string inflate_raw(const std::string& path, std::string_view in, uint64_t size) {
  if (size > static_cast<uint64_t>(eval::allocation_limit())) {
    bad_zip(path, "an entry of " + std::to_string(size) + " bytes is over the memory limit");
  }
  std::string out(size, '\0');
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) bad_zip(path, "zlib refused to start");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&z, Z_FINISH);
  const uint64_t produced = z.total_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END || produced != size) bad_zip(path, "a compressed entry is corrupt");
  return out;
}

}  // namespace

Error unknown_input(const std::string& name, const std::vector<ir::Value*>& inputs) {
  std::vector<std::string> names;
  std::string listed;
  for (const ir::Value* v : inputs) {
    if (v->is_initializer()) continue;
    names.push_back(v->name());
    listed += (listed.empty() ? "" : ", ") + v->name() + " (" + v->type().to_string() + ")";
  }
  return Error(ErrorKind::Usage, "the model has no input named '" + name + "'" +
                                     schema::did_you_mean(schema::closest_names(name, names)) +
                                     "; its inputs: " + (listed.empty() ? "none" : listed));
}

void insert_once(std::map<std::string, std::string>& given,
                 std::pair<std::string, std::string> entry, const char* flag) {
  if (!given.insert(entry).second) {
    throw Error(ErrorKind::Usage, std::string(flag) + " " + entry.first + " is given twice");
  }
}

std::optional<eval::Value> parse_literal(const std::string& name, const ir::Type& type,
                                         const std::string& text) {
  if (text.empty()) return std::nullopt;
  const char c = text[0];
  const bool numeric_start = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.';
  if (c != '[' && !numeric_start && text != "true" && text != "false") return std::nullopt;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    if (c == '[') usage(name, "'" + text + "' is not a valid literal list (JSON syntax)");
    return std::nullopt;  // e.g. "3.npy": a file name
  }
  eval::Dims dims;
  std::vector<const json*> leaves;
  flatten(name, j, 0, dims, leaves);
  ir::DataType dt = type.is_tensor() && type.elem_type() != ir::DataType::Undefined
                        ? type.elem_type()
                        : guess_dtype(leaves);
  return eval::Value(make_tensor(name, dt, std::move(dims), leaves));
}

std::vector<std::pair<std::string, eval::Tensor>> read_npz(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::IO, "cannot open '" + path + "'", {.file = path});
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string b = ss.str();
  // The end-of-central-directory record: the last "PK\5\6" within 64 KiB.
  size_t eocd = std::string::npos;
  for (size_t i = b.size() >= 22 ? b.size() - 22 : 0; b.size() >= 22; --i) {
    if (b.compare(i, 4, "PK\x05\x06") == 0) {
      eocd = i;
      break;
    }
    if (i == 0 || b.size() - i > 65557) break;
  }
  if (eocd == std::string::npos) bad_zip(path, "no zip directory (is it a .npz file?)");
  uint64_t entries = u16(b, eocd + 10);
  uint64_t dir = u32(b, eocd + 16);
  if (dir == 0xFFFFFFFFu || entries == 0xFFFF) {  // zip64: its locator precedes the record
    if (eocd < 20 || b.compare(eocd - 20, 4, "PK\x06\x07") != 0) bad_zip(path, "bad zip64 locator");
    uint64_t rec = u64(b, eocd - 20 + 8);
    if (rec + 56 > b.size() || b.compare(rec, 4, "PK\x06\x06") != 0)
      bad_zip(path, "bad zip64 record");
    entries = u64(b, rec + 32);
    dir = u64(b, rec + 48);
  }
  std::vector<std::pair<std::string, eval::Tensor>> out;
  uint64_t at = dir;
  for (uint64_t e = 0; e < entries; ++e) {
    if (at + 46 > b.size() || b.compare(at, 4, "PK\x01\x02") != 0) bad_zip(path, "bad directory");
    const uint32_t method = u16(b, at + 10);
    uint64_t csize = u32(b, at + 20), usize = u32(b, at + 24);
    const uint32_t name_len = u16(b, at + 28), extra_len = u16(b, at + 30),
                   comment_len = u16(b, at + 32);
    uint64_t local = u32(b, at + 42);
    if (at + 46 + name_len + extra_len > b.size()) bad_zip(path, "bad directory entry");
    std::string name = b.substr(at + 46, name_len);
    // zip64 extra field (id 1): the 0xFFFFFFFF fields, in order.
    for (size_t x = at + 46 + name_len; x + 4 <= at + 46 + name_len + extra_len;) {
      const uint32_t id = u16(b, x), len = u16(b, x + 2);
      size_t f = x + 4;
      if (id == 1) {
        if (usize == 0xFFFFFFFFu && f + 8 <= x + 4 + len) usize = u64(b, f), f += 8;
        if (csize == 0xFFFFFFFFu && f + 8 <= x + 4 + len) csize = u64(b, f), f += 8;
        if (local == 0xFFFFFFFFu && f + 8 <= x + 4 + len) local = u64(b, f);
      }
      x += 4 + len;
    }
    at += 46 + name_len + extra_len + comment_len;
    if (local + 30 > b.size() || b.compare(local, 4, "PK\x03\x04") != 0) {
      bad_zip(path, "bad entry for '" + name + "'");
    }
    const uint64_t data = local + 30 + u16(b, local + 26) + u16(b, local + 28);
    if (data + csize > b.size()) bad_zip(path, "entry '" + name + "' is truncated");
    std::string_view raw(b.data() + data, csize);
    std::string bytes;
    if (method == 0) {
      bytes.assign(raw);
    } else if (method == 8) {
      bytes = inflate_raw(path, raw, usize);
    } else {
      bad_zip(path, "entry '" + name + "' uses compression method " + std::to_string(method) +
                        " (only stored and deflated are supported)");
    }
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
      name.resize(name.size() - 4);
    out.emplace_back(name, eval::parse_npy(bytes, path + ":" + name));
  }
  return out;
}

void add_npz_feeds(const std::string& path, const std::vector<ir::Value*>& inputs,
                   std::map<std::string, eval::Value>& feeds) {
  for (auto& [name, tensor] : read_npz(path)) {
    bool declared = false;
    for (const ir::Value* v : inputs) declared = declared || v->name() == name;
    if (!declared) {
      Error e = unknown_input(name, inputs);
      throw Error(ErrorKind::Usage, "'" + path + "': array '" + name + "': " + e.message());
    }
    if (!feeds.emplace(name, std::move(tensor)).second) {
      throw Error(ErrorKind::Usage, "input " + name + " is given twice (again in '" + path + "')");
    }
  }
}

eval::Tensor npz_array_for(const std::string& name, const std::string& path) {
  auto arrays = read_npz(path);
  if (arrays.size() == 1) return std::move(arrays[0].second);
  std::string names;
  for (auto& [n, t] : arrays) {
    if (n == name) return std::move(t);
    names += (names.empty() ? "" : ", ") + n;
  }
  usage(name, "'" + path + "' has no array named '" + name +
                  "' (it has: " + (names.empty() ? "none" : names) + ")");
}

}  // namespace oxs::cli
