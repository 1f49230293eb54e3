#include "io/hcclvm/notify.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "io/hcclvm/op.h"
#include "model/jobs.h"

namespace cc::hcclvm {

namespace {

// The distinct ranks of the uses [b, e) of one id, ascending (they are
// sorted by rank). Only for the few ids a finding names.
std::vector<u32> distinct_ranks(const SyncUse* b, const SyncUse* e) {
  std::vector<u32> r;
  for (const SyncUse* u = b; u != e; ++u)
    if (r.empty() || r.back() != u->rank) r.push_back(u->rank);
  return r;
}

std::string rank_list(const std::vector<u32>& ranks) {
  std::string s;
  for (std::size_t i = 0; i < ranks.size() && i < 16; ++i) s += fmt::format("{}{}", i ? ", " : "", ranks[i]);
  return ranks.size() > 16 ? s + ", …" : s;
}

// HCCL's rule: the lowest rank using the id other than `rank`, else `rank`.
// `lowest` and `second` are the id's two lowest distinct ranks (`second`
// equals `lowest` when one rank uses it).
u32 lowest_other(u32 lowest, u32 second, u32 rank) { return lowest != rank ? lowest : second; }

// The first tasks (at most 8, in task order) of the uses [b, e).
std::vector<u32> first_tasks(const SyncUse* b, const SyncUse* e) {
  std::vector<u32> tasks;
  for (const SyncUse* u = b; u != e; ++u) tasks.push_back(u->task);
  std::sort(tasks.begin(), tasks.end());
  if (tasks.size() > 8) tasks.resize(8);
  return tasks;
}

// The order the inference reads the uses in: each id's uses together, by
// rank (a total order: no two uses share a task).
bool before(const SyncUse& a, const SyncUse& b) {
  return a.id != b.id ? a.id < b.id : a.rank != b.rank ? a.rank < b.rank : a.task < b.task;
}

// Below this many uses a part costs more to start than it saves.
constexpr std::size_t kMinUsesPerPart = 4096;

// Cuts `uses` into at most `parts` ranges of whole ids, ascending and of
// about equal size (pivots from evenly spaced uses): sorting each range
// then sorts all, and the ranges' ids never meet. Returns the boundaries.
std::vector<std::size_t> cut_by_id(std::vector<SyncUse>& uses, unsigned parts) {
  std::vector<std::size_t> cut{0};
  if (parts > 1 && uses.size() >= 2 * kMinUsesPerPart) {
    std::vector<u64> sample;
    for (std::size_t i = 0; i < 256; ++i) sample.push_back(uses[i * uses.size() / 256].id);
    std::sort(sample.begin(), sample.end());
    u64 last = 0;
    for (unsigned p = 1; p < parts; ++p) {
      u64 pivot = sample[p * sample.size() / parts];
      if (pivot <= last) continue;  // one id in many uses: fewer parts
      last = pivot;
      auto mid = std::partition(uses.begin() + static_cast<std::ptrdiff_t>(cut.back()), uses.end(),
                                [pivot](const SyncUse& u) { return u.id < pivot; });
      cut.push_back(static_cast<std::size_t>(mid - uses.begin()));
    }
  }
  cut.push_back(uses.size());
  return cut;
}

// What the ids of one range have to say, in id order.
struct Said {
  std::vector<Finding> findings;
  std::vector<std::pair<u32, std::string>> notes;  // (task, note)
};

const SyncUse* run_end(const SyncUse* b, const SyncUse* end) {
  const SyncUse* e = b;
  while (e != end && e->id == b->id) ++e;
  return e;
}

// Sets the notify and peer of the tasks of the sorted uses [b, end) (whole
// ids, so that ranges can be settled side by side: each writes its own
// tasks) and says what their ids need saying.
void settle(Trace& t, const SyncUse* b, const SyncUse* end, const std::map<u64, u32>& wide, bool recorded_peers,
            Said& said) {
  while (b != end) {
    const SyncUse* e = run_end(b, end);
    u32 lowest = b->rank, second = b->rank, ranks = 0;
    for (const SyncUse* u = b; u != e; ++u)
      if (u == b || u->rank != u[-1].rank) {
        if (ranks++ == 1) second = u->rank;
      }
    u32 notify = b->id > 0xffffffffu ? wide.at(b->id) : static_cast<u32>(b->id);
    for (const SyncUse* u = b; u != e; ++u) {
      Task& k = t.tasks[u->task];
      k.set_notify(notify);
      // Until here Task::peer holds the peer the record stores.
      k.set_peer(recorded_peers && k.peer() != u->rank ? k.peer() : lowest_other(lowest, second, u->rank));
    }
    if (ranks >= 3 || ranks == 1) {
      u64 id = b->id;
      std::string id_text = id > 0xffffffffu ? fmt::format("{:#x}", id) : fmt::format("{}", id);
      std::vector<u32> xr = distinct_ranks(b, e);
      if (ranks >= 3) {
        std::string inferred;
        for (std::size_t i = 0; i < xr.size() && i < 8; ++i)
          inferred += fmt::format("{}{}→{}", i ? ", " : "", xr[i], lowest_other(xr[0], xr[1], xr[i]));
        Finding f = import_warning(
            "HCCLVM-W-NOTIFY-AMBIGUOUS",
            fmt::format("Notify id {} is used by {} ranks ({}): the records name no peer, and the inference pairs "
                        "each rank with the lowest other one ({}{}); the real peer of a rank may be any of the others.",
                        id_text, xr.size(), rank_list(xr), inferred, xr.size() > 8 ? ", …" : ""));
        f.tasks = first_tasks(b, e);
        said.findings.push_back(std::move(f));
      } else {
        u32 records = 0, waits = 0;
        for (const SyncUse* u = b; u != e; ++u) ++(t.tasks[u->task].type == TaskType::RECORD ? records : waits);
        if (records != waits) {
          std::string note = fmt::format(
              "id {} is used only by rank {} ({} RECORD{}, {} WAIT{}): its counterpart on another rank is probably "
              "missing; HCCL's peer inference made it local",
              id_text, xr[0], records, records == 1 ? "" : "s", waits, waits == 1 ? "" : "s");
          Finding f = import_warning("HCCLVM-W-NOTIFY-UNPAIRED", fmt::format("Notify {}.", note));
          f.tasks = first_tasks(b, e);
          said.findings.push_back(std::move(f));
          for (const SyncUse* u = b; u != e; ++u) said.notes.emplace_back(u->task, "notify " + note);
        }
      }
    }
    b = e;
  }
}

}  // namespace

void infer_peers(Trace& t, std::vector<SyncUse> uses, bool recorded_peers, unsigned threads,
                 std::vector<Finding>& findings) {
  if (uses.empty()) return;
  // Uses of one id together, by rank: each id's ranks are then a sorted
  // run, found in one pass, with no look-up per use and no array per id
  // (an operator of 10^7 tasks has millions of ids, and every byte
  // allocated for them is a fresh page to fault in). The sort and the
  // pass run in ranges of ids side by side; the result is the one order
  // whatever the ranges.
  std::vector<std::size_t> cut = cut_by_id(uses, threads);
  auto parts = static_cast<unsigned>(cut.size() - 1);
  run_parts(threads, parts, [&](unsigned p) {
    std::sort(uses.begin() + static_cast<std::ptrdiff_t>(cut[p]), uses.begin() + static_cast<std::ptrdiff_t>(cut[p + 1]),
              before);
  });
  const SyncUse* all = uses.data();
  const SyncUse* end = all + uses.size();
  auto used = [&](u64 id) {
    const SyncUse* it = std::lower_bound(all, end, id, [](const SyncUse& u, u64 v) { return u.id < v; });
    return it != end && it->id == id;
  };

  // Task::notify is 32 bits. Ids above (UB notify addresses in AICPU mode,
  // §11) get distinct free values, so that no two ids merge. They sort
  // last.
  std::map<u64, u32> wide;
  std::string shown;
  const SyncUse* first_wide =
      std::lower_bound(all, end, u64{1} << 32, [](const SyncUse& u, u64 v) { return u.id < v; });
  u32 next = 0xffffffffu;
  for (const SyncUse* b = first_wide; b != end; b = run_end(b, end)) {
    while (used(next)) --next;
    wide[b->id] = next;
    if (wide.size() <= 4) shown += fmt::format("{}{:#x} as #{}", wide.size() > 1 ? ", " : "", b->id, next);
    --next;
  }
  if (!wide.empty()) {
    Finding f = import_warning(
        "HCCLVM-W-NOTIFY-ID-64",
        fmt::format("{} notify id{} above 2^32−1 (HCCL's checker cannot translate them; in AICPU mode UB writes store "
                    "the remote notify address as the id): shown as {}{}.",
                    wide.size(), wide.size() > 1 ? "s" : "", shown, wide.size() > 4 ? ", …" : ""));
    f.tasks = first_tasks(first_wide, run_end(first_wide, end));
    findings.push_back(std::move(f));
  }

  std::vector<Said> said(parts);
  run_parts(threads, parts,
            [&](unsigned p) { settle(t, all + cut[p], all + cut[p + 1], wide, recorded_peers, said[p]); });
  std::vector<std::pair<u32, std::string>> notes;
  for (Said& s : said) {
    for (Finding& f : s.findings) findings.push_back(std::move(f));
    for (auto& n : s.notes) notes.push_back(std::move(n));
  }
  // The notes in task order, as the uses were made.
  std::sort(notes.begin(), notes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& n : notes) t.task_notes.push_back(std::move(n));
}

}  // namespace cc::hcclvm
