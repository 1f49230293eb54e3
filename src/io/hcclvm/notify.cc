#include "io/hcclvm/notify.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "io/hcclvm/op.h"

namespace cc::hcclvm {

namespace {

struct IdUse {
  std::vector<u32> ranks;  // sorted, distinct
  u32 records = 0, waits = 0;
  std::vector<u32> tasks;  // the first few, for reports
};

std::string rank_list(const std::vector<u32>& ranks) {
  std::string s;
  for (std::size_t i = 0; i < ranks.size() && i < 16; ++i) s += fmt::format("{}{}", i ? ", " : "", ranks[i]);
  return ranks.size() > 16 ? s + ", …" : s;
}

// HCCL's rule: the lowest rank using the id other than `rank`, else `rank`.
u32 lowest_other(const std::vector<u32>& ranks, u32 rank) {
  for (u32 r : ranks)
    if (r != rank) return r;
  return rank;
}

}  // namespace

void infer_peers(Trace& t, const std::vector<SyncUse>& uses, bool recorded_peers, std::vector<Finding>& findings) {
  if (uses.empty()) return;
  // Ranks per id, from sorted (id, rank) pairs: no per-insert cost however
  // many ranks share an id.
  std::vector<std::pair<u64, u32>> pairs;
  pairs.reserve(uses.size());
  for (const SyncUse& u : uses) pairs.emplace_back(u.id, u.rank);
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  std::map<u64, IdUse> ids;
  for (const auto& [id, rank] : pairs) ids[id].ranks.push_back(rank);
  for (const SyncUse& u : uses) {
    IdUse& x = ids[u.id];
    ++(u.record ? x.records : x.waits);
    if (x.tasks.size() < 8) x.tasks.push_back(u.task);
  }

  // Task::notify is 32 bits. Ids above (UB notify addresses in AICPU mode,
  // §11) get distinct free values, so that no two ids merge.
  std::map<u64, u32> wide;
  std::string shown;
  u32 next = 0xffffffffu;
  for (auto it = ids.lower_bound(u64{1} << 32); it != ids.end(); ++it) {
    while (ids.count(next)) --next;
    wide[it->first] = next;
    if (wide.size() <= 4) shown += fmt::format("{}{:#x} as #{}", wide.size() > 1 ? ", " : "", it->first, next);
    --next;
  }
  if (!wide.empty()) {
    Finding f = import_warning(
        "HCCLVM-W-NOTIFY-ID-64",
        fmt::format("{} notify id{} above 2^32−1 (HCCL's checker cannot translate them; in AICPU mode UB writes store "
                    "the remote notify address as the id): shown as {}{}.",
                    wide.size(), wide.size() > 1 ? "s" : "", shown, wide.size() > 4 ? ", …" : ""));
    f.tasks = ids.at(wide.begin()->first).tasks;
    findings.push_back(std::move(f));
  }

  for (const SyncUse& u : uses) {
    Task& k = t.tasks[u.task];
    const IdUse& x = ids.at(u.id);
    k.notify = u.id > 0xffffffffu ? wide.at(u.id) : static_cast<u32>(u.id);
    k.peer = recorded_peers && u.stored_peer != u.rank ? u.stored_peer : lowest_other(x.ranks, u.rank);
  }

  std::map<u64, std::string> unpaired;  // id -> the note its tasks get
  for (const auto& [id, x] : ids) {
    std::string id_text = id > 0xffffffffu ? fmt::format("{:#x}", id) : fmt::format("{}", id);
    if (x.ranks.size() >= 3) {
      std::string inferred;
      for (std::size_t i = 0; i < x.ranks.size() && i < 8; ++i)
        inferred += fmt::format("{}{}→{}", i ? ", " : "", x.ranks[i], lowest_other(x.ranks, x.ranks[i]));
      Finding f = import_warning(
          "HCCLVM-W-NOTIFY-AMBIGUOUS",
          fmt::format("Notify id {} is used by {} ranks ({}): the records name no peer, and the inference pairs each "
                      "rank with the lowest other one ({}{}); the real peer of a rank may be any of the others.",
                      id_text, x.ranks.size(), rank_list(x.ranks), inferred, x.ranks.size() > 8 ? ", …" : ""));
      f.tasks = x.tasks;
      findings.push_back(std::move(f));
    } else if (x.ranks.size() == 1 && x.records != x.waits) {
      std::string note = fmt::format(
          "id {} is used only by rank {} ({} RECORD{}, {} WAIT{}): its counterpart on another rank is probably "
          "missing; HCCL's peer inference made it local",
          id_text, x.ranks[0], x.records, x.records == 1 ? "" : "s", x.waits, x.waits == 1 ? "" : "s");
      Finding f = import_warning("HCCLVM-W-NOTIFY-UNPAIRED", fmt::format("Notify {}.", note));
      f.tasks = x.tasks;
      findings.push_back(std::move(f));
      unpaired.emplace(id, "notify " + note);
    }
  }
  if (unpaired.empty()) return;
  for (const SyncUse& u : uses) {
    auto it = unpaired.find(u.id);
    if (it != unpaired.end()) t.task_notes.emplace_back(u.task, it->second);
  }
}

}  // namespace cc::hcclvm
