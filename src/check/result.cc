#include "check/result.h"

#include <fmt/format.h>

namespace cc {

bool parse_stages(std::string_view list, u32& bits, std::string& error) {
  bits = 0;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view w = list.substr(0, comma);
    if (w == "graph") bits |= kStageGraph;
    else if (w == "single") bits |= kStageSingle;
    else if (w == "sync") bits |= kStageSync;
    else if (w == "mem") bits |= kStageMem;
    else if (w == "semantic") bits |= kStageSemantic;
    else {
      error = fmt::format("unknown stage \"{}\" (graph, single, sync, mem, semantic)", w);
      return false;
    }
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  return true;
}

}  // namespace cc
