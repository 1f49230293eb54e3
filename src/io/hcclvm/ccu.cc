#include "io/hcclvm/ccu.h"

#include <fmt/format.h>

#include "io/hcclvm/op.h"

namespace cc::hcclvm {

Status fill_ccu(Db& db, CcuTables& tables, const OpGroup& group, const Blocks& blocks, Trace& trace,
                     std::vector<Finding>& findings) {
  CcuData& ccu = trace.ccu;
  if (ccu.sqes.empty()) return {};
  if (!tables.read) {
    tables.read = true;
    auto images = read_ccu_images(db, tables.skipped);
    if (!images) return images.error();
    tables.images = std::move(images.value());
    auto channels = read_ccu_channels(db);
    if (!channels) return channels.error();
    tables.channels = std::move(channels.value());
  }
  // devType 8 (Ascend 960) selects A6, anything else A5 (ccu.md §1.5).
  ccu.isa = group.members.front()->dev_type == 8 ? CcuIsa::A6 : CcuIsa::A5;
  for (const CcuImageRow& r : tables.images) {
    if (!blocks.of(r.rank)) continue;
    CcuImage img;
    img.rank = r.rank;
    img.die = r.die;
    img.size = r.words;
    img.blocks.push_back({0, r.bytes});
    ccu.images.push_back(std::move(img));
  }
  for (const CcuChannelRow& c : tables.channels)
    if (blocks.of(c.src_rank)) ccu.channels.push_back({c.src_rank, c.src_die, c.channel, c.dst_rank, c.dst_die});
  for (const auto& [rank, rb] : blocks.all()) {
    for (u32 b = 0; b < kBlockTypes; ++b)
      if (rb[b].size) ccu.addresses.push_back({rank, static_cast<u16>(b), rb[b].start});
    for (u32 die = 0; die < 2; ++die) ccu.die_bases.push_back({rank, die, kVmDieBase[die]});
  }
  if (!tables.skipped.empty()) {
    std::string rows;
    for (std::size_t i = 0; i < tables.skipped.size() && i < 8; ++i)
      rows += fmt::format("{}{}", i ? ", " : "", tables.skipped[i]);
    findings.push_back(import_warning(
        "HCCLVM-W-CCU-IMAGE-SKIPPED",
        fmt::format("ccuInstrRes row{} {}{}: instrCount 0 or above 32768, skipped (as HCCL's checker does).",
                    tables.skipped.size() > 1 ? "s" : "", rows, tables.skipped.size() > 8 ? ", …" : "")));
  }
  return {};
}

}  // namespace cc::hcclvm
