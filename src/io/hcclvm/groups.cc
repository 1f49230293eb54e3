#include "io/hcclvm/groups.h"

#include <fmt/format.h>

#include <map>

namespace cc::hcclvm {

std::string OpGroup::name() const { return fmt::format("w{}-op{}", window, index); }

std::string member_name(const OpRow& r) { return fmt::format("opDetails row {} (rank {})", r.id, r.rank); }

std::vector<OpGroup> form_groups(const DbRows& rows) {
  // window -> rank -> that rank's rows of the window, in id order.
  std::map<u64, std::map<u32, std::vector<const OpRow*>>> buckets;
  for (const OpRow& r : rows.ops) buckets[r.sync_iter][r.rank].push_back(&r);
  std::vector<OpGroup> groups;
  for (const auto& [window, ranks] : buckets) {
    std::size_t depth = 0;
    for (const auto& [rank, list] : ranks) depth = std::max(depth, list.size());
    for (std::size_t i = 0; i < depth; ++i) {
      OpGroup g;
      g.window = window;
      g.index = static_cast<u32>(i);
      g.synced = rows.synced && window <= rows.max_sync_iter;
      for (const auto& [rank, list] : ranks)
        if (i < list.size()) g.members.push_back(list[i]);
      groups.push_back(std::move(g));
    }
  }
  return groups;
}

}  // namespace cc::hcclvm
