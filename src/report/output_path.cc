#include "report/output_path.h"

#include <cctype>

namespace cc {

std::string case_output_path(const std::string& path, const std::string& input,
                             const std::string& case_name, bool several) {
  if (!several || path == "-") return path;
  std::string prefix = input + "#";
  std::string tag = case_name.rfind(prefix, 0) == 0 ? case_name.substr(prefix.size())
                                                      : case_name.substr(case_name.find('#') + 1);
  for (char& c : tag)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  std::size_t slash = path.find_last_of('/');
  std::size_t base = slash == std::string::npos ? 0 : slash + 1;
  std::size_t dot = path.rfind('.');
  // No extension, or a leading dot of a hidden file name: append the tag.
  if (dot == std::string::npos || dot <= base) return path + "." + tag;
  return path.substr(0, dot) + "." + tag + path.substr(dot);
}

}  // namespace cc
