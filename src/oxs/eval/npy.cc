#include "oxs/eval/npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "oxs/eval/dispatch.h"
#include "oxs/eval/kernel_util.h"
#include "oxs/ir/error.h"
#include "oxs/onnx/file_io.h"

namespace oxs::eval {

namespace {

[[noreturn]] void bad(const std::string& name, const std::string& what) {
  throw Error(ErrorKind::Input, "'" + name + "' is not a valid .npy file: " + what, {.file = name});
}

struct Descr {
  DataType dtype = DataType::Undefined;
  size_t item = 0;
  bool big_endian = false;
  bool unicode = false;  // '<U': `item` = 4 * chars
};

Descr parse_descr(const std::string& d, const std::string& name) {
  if (d.size() < 3) bad(name, "unknown dtype '" + d + "'");
  Descr r;
  char order = d[0], kind = d[1];
  r.big_endian = order == '>';
  if (order != '<' && order != '>' && order != '|' && order != '=')
    bad(name, "unknown dtype '" + d + "'");
  size_t size = 0;
  for (size_t i = 2; i < d.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(d[i])) || size > 1000000)
      bad(name, "unknown dtype '" + d + "'");
    size = size * 10 + size_t(d[i] - '0');
  }
  r.item = size;
  switch (kind) {
    case 'b':
      if (size == 1) r.dtype = DataType::Bool;
      break;
    case 'i':
      r.dtype = size == 1   ? DataType::Int8
                : size == 2 ? DataType::Int16
                : size == 4 ? DataType::Int32
                : size == 8 ? DataType::Int64
                            : DataType::Undefined;
      break;
    case 'u':
      r.dtype = size == 1   ? DataType::Uint8
                : size == 2 ? DataType::Uint16
                : size == 4 ? DataType::Uint32
                : size == 8 ? DataType::Uint64
                            : DataType::Undefined;
      break;
    case 'f':
      r.dtype = size == 2   ? DataType::Float16
                : size == 4 ? DataType::Float
                : size == 8 ? DataType::Double
                            : DataType::Undefined;
      break;
    case 'U':
      r.dtype = DataType::String;
      r.unicode = true;
      r.item = size * 4;
      break;
    default:
      break;
  }
  if (r.dtype == DataType::Undefined) bad(name, "unsupported dtype '" + d + "'");
  return r;
}

// The value of `key` in the header dict: the text up to the next ',' at
// nesting depth 0 (or '}').
std::string dict_value(const std::string& h, const std::string& key, const std::string& name) {
  std::string k1 = "'" + key + "'", k2 = "\"" + key + "\"";
  size_t p = h.find(k1);
  if (p == std::string::npos) p = h.find(k2);
  if (p == std::string::npos) bad(name, "the header has no '" + key + "'");
  p = h.find(':', p);
  if (p == std::string::npos) bad(name, "malformed header");
  ++p;
  int depth = 0;
  size_t q = p;
  for (; q < h.size(); ++q) {
    char c = h[q];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  std::string v = h.substr(p, q - p);
  size_t a = v.find_first_not_of(" \t"), b = v.find_last_not_of(" \t");
  return a == std::string::npos ? "" : v.substr(a, b - a + 1);
}

std::string utf32_to_utf8(const char* p, size_t chars) {
  std::string out;
  for (size_t i = 0; i < chars; ++i) {
    uint32_t c;
    std::memcpy(&c, p + 4 * i, 4);
    if (c == 0) break;
    if (c < 0x80) {
      out += char(c);
    } else if (c < 0x800) {
      out += char(0xc0 | (c >> 6));
      out += char(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
      out += char(0xe0 | (c >> 12));
      out += char(0x80 | ((c >> 6) & 0x3f));
      out += char(0x80 | (c & 0x3f));
    } else {
      out += char(0xf0 | (c >> 18));
      out += char(0x80 | ((c >> 12) & 0x3f));
      out += char(0x80 | ((c >> 6) & 0x3f));
      out += char(0x80 | (c & 0x3f));
    }
  }
  return out;
}

std::vector<uint32_t> utf8_to_utf32(const std::string& s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    uint32_t cp;
    size_t n;
    if (c < 0x80) {
      cp = c;
      n = 1;
    } else if ((c >> 5) == 6) {
      cp = c & 0x1f;
      n = 2;
    } else if ((c >> 4) == 14) {
      cp = c & 0x0f;
      n = 3;
    } else {
      cp = c & 0x07;
      n = 4;
    }
    for (size_t k = 1; k < n && i + k < s.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    out.push_back(cp);
    i += n;
  }
  return out;
}

}  // namespace

Tensor parse_npy(std::string_view bytes, const std::string& name) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != std::string_view("\x93NUMPY", 6)) {
    bad(name, "it does not start with the numpy magic bytes");
  }
  uint8_t major = uint8_t(bytes[6]);
  size_t hlen, off;
  if (major == 1) {
    hlen = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
    off = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) bad(name, "truncated header");
    hlen = 0;
    for (int i = 3; i >= 0; --i) hlen = (hlen << 8) | uint8_t(bytes[8 + size_t(i)]);
    off = 12;
  } else {
    bad(name, "unsupported format version " + std::to_string(major));
  }
  if (hlen > bytes.size() - off) bad(name, "the header is longer than the file");
  std::string header(bytes.substr(off, hlen));
  off += hlen;
  std::string descr = dict_value(header, "descr", name);
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"'))
    bad(name, "descr is not a string");
  Descr d = parse_descr(descr.substr(1, descr.size() - 2), name);
  bool fortran = dict_value(header, "fortran_order", name) == "True";
  std::string shape = dict_value(header, "shape", name);
  if (shape.empty() || shape.front() != '(' || shape.back() != ')')
    bad(name, "shape is not a tuple");
  Dims dims;
  {
    std::string cur;
    for (char c : shape.substr(1, shape.size() - 2)) {
      if (c == ',') {
        if (!cur.empty()) dims.push_back(std::stoll(cur));
        cur.clear();
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        if (cur.size() > 18) bad(name, "a dimension is too large");
        cur += c;
      } else if (c != ' ' && c != 'L') {
        bad(name, "shape '" + shape + "' is not a tuple of sizes");
      }
    }
    if (!cur.empty()) dims.push_back(std::stoll(cur));
  }
  int64_t numel = checked_numel(dims, "'" + name + "'");
  if (d.item && numel > int64_t((bytes.size() - off) / d.item) + (numel == 0 ? 0 : 0)) {
    bad(name, "shape " + dims_to_string(dims) + " needs " + std::to_string(numel) +
                  " elements of " + std::to_string(d.item) + " bytes but the file holds only " +
                  std::to_string(bytes.size() - off) + " bytes of data");
  }
  Dims load_dims = dims;
  if (fortran) std::reverse(load_dims.begin(), load_dims.end());
  Tensor t(d.dtype, load_dims);  // checks the allocation limit
  const char* p = bytes.data() + off;
  if (d.unicode) {
    size_t chars = d.item / 4;
    for (int64_t i = 0; i < numel; ++i)
      t.mutable_strings()[size_t(i)] = utf32_to_utf8(p + size_t(i) * d.item, chars);
  } else {
    std::memcpy(t.mutable_raw(), p, size_t(numel) * d.item);
    if (d.dtype == DataType::Bool) {  // bytes other than 0/1 are not valid bools
      auto* b = static_cast<uint8_t*>(t.mutable_raw());
      for (int64_t i = 0; i < numel; ++i) b[i] = b[i] != 0;
    }
    if (d.big_endian && d.item > 1) {
      auto* b = static_cast<unsigned char*>(t.mutable_raw());
      for (int64_t i = 0; i < numel; ++i)
        std::reverse(b + size_t(i) * d.item, b + size_t(i + 1) * d.item);
    }
  }
  if (fortran && dims.size() > 1) {
    std::vector<int64_t> perm;
    for (size_t i = dims.size(); i-- > 0;) perm.push_back(int64_t(i));
    t = transpose_tensor(t, perm);
  }
  return t;
}

Tensor read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(ErrorKind::IO, "cannot open '" + path + "': " + std::strerror(errno),
                {.file = path});
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_npy(ss.str(), path);
}

std::string npy_bytes(const Tensor& t0) {
  Tensor t = t0.dtype() == DataType::BFloat16 ? cast_tensor(t0, DataType::Float) : t0;
  std::string descr;
  size_t item = ir::element_size(t.dtype());
  size_t max_chars = 1;
  switch (t.dtype()) {
    case DataType::Bool:
      descr = "|b1";
      break;
    case DataType::Int8:
      descr = "|i1";
      break;
    case DataType::Uint8:
      descr = "|u1";
      break;
    case DataType::Int16:
      descr = "<i2";
      break;
    case DataType::Int32:
      descr = "<i4";
      break;
    case DataType::Int64:
      descr = "<i8";
      break;
    case DataType::Uint16:
      descr = "<u2";
      break;
    case DataType::Uint32:
      descr = "<u4";
      break;
    case DataType::Uint64:
      descr = "<u8";
      break;
    case DataType::Float16:
      descr = "<f2";
      break;
    case DataType::Float:
      descr = "<f4";
      break;
    case DataType::Double:
      descr = "<f8";
      break;
    case DataType::String:
      for (const auto& s : t.strings()) max_chars = std::max(max_chars, utf8_to_utf32(s).size());
      descr = "<U" + std::to_string(max_chars);
      item = 4 * max_chars;
      break;
    default:
      throw Error(ErrorKind::Unsupported,
                  "cannot write " + std::string(ir::dtype_name(t.dtype())) +
                      " as .npy: numpy has no such type; print the values (--json) or Cast "
                      "them to a numpy type in the model");
  }
  std::string shape = "(";
  for (size_t i = 0; i < t.rank(); ++i)
    shape += std::to_string(t.dim(i)) + (t.rank() == 1 ? "," : i + 1 < t.rank() ? ", " : "");
  shape += ")";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  out += header;
  if (t.dtype() == DataType::String) {
    for (const auto& s : t.strings()) {
      std::vector<uint32_t> u = utf8_to_utf32(s);
      u.resize(max_chars, 0);
      out.append(reinterpret_cast<const char*>(u.data()), u.size() * 4);
    }
  } else {
    out.append(static_cast<const char*>(t.raw()), size_t(t.numel()) * item);
  }
  return out;
}

// Through onnx::AtomicFile, the one writer of the project: a temporary name
// no one can predict, created with O_EXCL|O_NOFOLLOW, renamed over `path`
// (a link there is replaced, never written through).
void write_npy(const std::string& path, const Tensor& t) {
  const std::string bytes = npy_bytes(t);
  onnx::AtomicFile out(path);
  out.write(bytes.data(), bytes.size());
  out.finish();
  out.commit();
}

}  // namespace oxs::eval
