#include "ccu/nodes.h"

namespace cc::ccu {

u32 NodeStore::add(const Node& n) {
  nodes.push_back(n);
  return static_cast<u32>(nodes.size() - 1);
}

u32 NodeStore::add_data(Node n, const std::vector<GroupSpec>& gs) {
  n.first_group = static_cast<u32>(groups.size());
  n.group_count = static_cast<u32>(gs.size());
  for (const GroupSpec& g : gs) {
    Group grp;
    grp.first_src = static_cast<u32>(slices.size());
    grp.src_count = static_cast<u32>(g.srcs.size());
    slices.insert(slices.end(), g.srcs.begin(), g.srcs.end());
    grp.dst = static_cast<u32>(slices.size());
    slices.push_back(g.dst);
    groups.push_back(grp);
  }
  return add(n);
}

}  // namespace cc::ccu
