#include "io/hcclvm/notify.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <map>

#include "io/hcclvm/op.h"

namespace cc::hcclvm {

namespace {

// One notify id: its ranks are rank_of[first, first + count) (sorted,
// distinct). 24 bytes and no allocation per id: an operator of 10^7 tasks
// has millions of ids, and every byte of them is a fresh page to fault in.
struct IdUse {
  u64 id = 0;
  u32 first = 0, count = 0;
  u32 records = 0, waits = 0;
};

// The ranks of one id: the second halves of its sorted (id, rank) pairs.
struct RankList {
  const std::pair<u64, u32>* at = nullptr;
  u32 n = 0;
  std::size_t size() const { return n; }
  u32 operator[](std::size_t i) const { return at[i].second; }
};

std::string rank_list(const RankList& ranks) {
  std::string s;
  for (std::size_t i = 0; i < ranks.size() && i < 16; ++i) s += fmt::format("{}{}", i ? ", " : "", ranks[i]);
  return ranks.size() > 16 ? s + ", …" : s;
}

// HCCL's rule: the lowest rank using the id other than `rank`, else `rank`.
u32 lowest_other(const RankList& ranks, u32 rank) {
  for (std::size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i] != rank) return ranks[i];
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
  std::vector<IdUse> ids;  // ascending by id
  ids.reserve(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (ids.empty() || ids.back().id != pairs[i].first) {
      IdUse x;
      x.id = pairs[i].first;
      x.first = static_cast<u32>(i);
      ids.push_back(x);
    }
    ++ids.back().count;
  }
  auto ranks = [&](const IdUse& x) { return RankList{pairs.data() + x.first, x.count}; };
  auto find = [&](u64 id) -> IdUse* {
    auto it = std::lower_bound(ids.begin(), ids.end(), id, [](const IdUse& x, u64 v) { return x.id < v; });
    return it != ids.end() && it->id == id ? &*it : nullptr;
  };
  // The id of each use, found once.
  std::vector<u32> use_id(uses.size());
  for (std::size_t i = 0; i < uses.size(); ++i) {
    IdUse& x = *find(uses[i].id);
    use_id[i] = static_cast<u32>(&x - ids.data());
    ++(uses[i].record ? x.records : x.waits);
  }
  // The first few tasks of each id a finding names (ambiguous, unpaired,
  // the first wide one), gathered in one pass.
  std::unordered_map<u32, std::vector<u32>> named;
  bool wide_named = false;
  for (const IdUse& x : ids) {
    bool ambiguous = x.count >= 3, unpaired = x.count == 1 && x.records != x.waits;
    bool first_wide = !wide_named && x.id > 0xffffffffu;
    wide_named = wide_named || first_wide;
    if (ambiguous || unpaired || first_wide) named[static_cast<u32>(&x - ids.data())];
  }
  if (!named.empty())
    for (std::size_t i = 0; i < uses.size(); ++i) {
      auto it = named.find(use_id[i]);
      if (it != named.end() && it->second.size() < 8) it->second.push_back(uses[i].task);
    }
  auto tasks_of = [&](const IdUse& x) { return named[static_cast<u32>(&x - ids.data())]; };

  // Task::notify is 32 bits. Ids above (UB notify addresses in AICPU mode,
  // §11) get distinct free values, so that no two ids merge.
  std::map<u64, u32> wide;
  std::string shown;
  u32 next = 0xffffffffu;
  for (const IdUse& x : ids) {
    if (x.id < (u64{1} << 32)) continue;
    while (find(next)) --next;
    wide[x.id] = next;
    if (wide.size() <= 4) shown += fmt::format("{}{:#x} as #{}", wide.size() > 1 ? ", " : "", x.id, next);
    --next;
  }
  if (!wide.empty()) {
    Finding f = import_warning(
        "HCCLVM-W-NOTIFY-ID-64",
        fmt::format("{} notify id{} above 2^32−1 (HCCL's checker cannot translate them; in AICPU mode UB writes store "
                    "the remote notify address as the id): shown as {}{}.",
                    wide.size(), wide.size() > 1 ? "s" : "", shown, wide.size() > 4 ? ", …" : ""));
    f.tasks = tasks_of(*find(wide.begin()->first));
    findings.push_back(std::move(f));
  }

  for (std::size_t i = 0; i < uses.size(); ++i) {
    const SyncUse& u = uses[i];
    Task& k = t.tasks[u.task];
    k.notify = u.id > 0xffffffffu ? wide.at(u.id) : static_cast<u32>(u.id);
    k.peer = recorded_peers && u.stored_peer != u.rank ? u.stored_peer : lowest_other(ranks(ids[use_id[i]]), u.rank);
  }

  std::map<u64, std::string> unpaired;  // id -> the note its tasks get
  for (const IdUse& x : ids) {
    if (x.count < 3 && !(x.count == 1 && x.records != x.waits)) continue;  // nothing to say
    u64 id = x.id;
    RankList xr = ranks(x);
    std::string id_text = id > 0xffffffffu ? fmt::format("{:#x}", id) : fmt::format("{}", id);
    if (xr.size() >= 3) {
      std::string inferred;
      for (std::size_t i = 0; i < xr.size() && i < 8; ++i)
        inferred += fmt::format("{}{}→{}", i ? ", " : "", xr[i], lowest_other(xr, xr[i]));
      Finding f = import_warning(
          "HCCLVM-W-NOTIFY-AMBIGUOUS",
          fmt::format("Notify id {} is used by {} ranks ({}): the records name no peer, and the inference pairs each "
                      "rank with the lowest other one ({}{}); the real peer of a rank may be any of the others.",
                      id_text, xr.size(), rank_list(xr), inferred, xr.size() > 8 ? ", …" : ""));
      f.tasks = tasks_of(x);
      findings.push_back(std::move(f));
    } else if (xr.size() == 1 && x.records != x.waits) {
      std::string note = fmt::format(
          "id {} is used only by rank {} ({} RECORD{}, {} WAIT{}): its counterpart on another rank is probably "
          "missing; HCCL's peer inference made it local",
          id_text, xr[0], x.records, x.records == 1 ? "" : "s", x.waits, x.waits == 1 ? "" : "s");
      Finding f = import_warning("HCCLVM-W-NOTIFY-UNPAIRED", fmt::format("Notify {}.", note));
      f.tasks = tasks_of(x);
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
