#include "check/check_result.h"

#include <fmt/format.h>

namespace cc {

Result<u32> parse_stages(std::string_view list) {
  u32 bits = 0;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view w = list.substr(0, comma);
    if (w == "graph") bits |= kStageGraph;
    else if (w == "single") bits |= kStageSingle;
    else if (w == "sync") bits |= kStageSync;
    else if (w == "mem") bits |= kStageMem;
    else if (w == "semantic") bits |= kStageSemantic;
    else return Error{fmt::format("unknown stage \"{}\" (graph, single, sync, mem, semantic)", w)};
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  return bits;
}

}  // namespace cc
