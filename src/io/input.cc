#include "io/input.h"

#include <fnmatch.h>

namespace cc {

bool glob_match(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

}  // namespace cc
