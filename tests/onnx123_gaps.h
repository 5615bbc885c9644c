// The ONNX 1.23.2 backend cases oxs does not pass yet (tests/onnx123_gaps.txt:
// the test's folder name, then why). Tests that walk the whole node/ folder
// skip these and say how many they skipped.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace oxs::testing {

inline const std::map<std::string, std::string>& onnx123_gaps() {
  static const std::map<std::string, std::string> gaps = [] {
    std::map<std::string, std::string> out;
    std::ifstream in(std::string(OXS_SOURCE_DIR) + "/tests/onnx123_gaps.txt");
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream words(line);
      std::string name;
      words >> name;
      std::string why;
      std::getline(words, why);
      out[name] = why;
    }
    return out;
  }();
  return gaps;
}

inline bool is_onnx123_gap(const std::string& test) {
  return onnx123_gaps().count(test) > 0;
}

}  // namespace oxs::testing
