// Helpers for the onnx/ tests: temporary directories, file I/O, and proto
// comparison with protobuf's MessageDifferencer.
#pragma once

#include <google/protobuf/util/message_differencer.h>
#include <unistd.h>
#include "oxs/onnx/wire/onnx_wire.pb.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace oxs::onnx::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "oxs_onnx_test_XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Empty when equal, else the differencer's report.
inline std::string proto_diff(const google::protobuf::Message& a,
                              const google::protobuf::Message& b) {
  google::protobuf::util::MessageDifferencer d;
  std::string report;
  d.ReportDifferencesToString(&report);
  if (d.Compare(a, b)) return {};
  return report.empty() ? std::string("(differ)") : report;
}

inline oxs::wire::ModelProto parse_model(const std::string& bytes) {
  oxs::wire::ModelProto p;
  p.ParseFromString(bytes);
  return p;
}

}  // namespace oxs::onnx::testing
