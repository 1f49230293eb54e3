#include "check/race_links.h"

#include <fmt/format.h>

#include <algorithm>

namespace cc {

namespace {

struct Touched {
  u32 rank;
  std::string_view buffer;
  u64 begin, end;
};

bool meets(const Touched& a, const ByteRange& b) {
  return a.rank == b.rank && a.buffer == b.buffer && a.begin < b.end && b.begin < a.end;
}

// The bytes a race touched: the overlap it names and every destination of
// its tasks (a task that read racing bytes passes them on through what it
// writes, and the race names only its first overlap).
std::vector<Touched> touched_by(const Trace& t, const Finding& race) {
  std::vector<Touched> out;
  if (race.bytes) out.push_back({race.bytes->rank, race.bytes->buffer, race.bytes->begin, race.bytes->end});
  for (u32 id : race.tasks) {
    if (id >= t.tasks.size()) continue;
    const Task& k = t.tasks[id];
    for (u32 i = 0; i < k.group_count(); ++i) {
      const Slice& s = t.slices[t.group(k, i).dst];
      if (s.len > 0) out.push_back({s.rank, t.buffers.name(s.buf), s.offset, s.offset + s.len});
    }
  }
  return out;
}

}  // namespace

void link_results_to_races(const Trace& t, FindingSink& sink) {
  std::vector<Finding>& all = sink.findings();
  std::vector<std::pair<u32, std::vector<Touched>>> races;  // finding index, bytes
  u32 next_id = 1;
  for (u32 i = 0; i < all.size(); ++i) {
    // Past every id in use, also those of causes counted but not kept (a
    // kept 103 may name a 102 root beyond the cap).
    next_id = std::max({next_id, all[i].cause_id + 1, all[i].consequence_of + 1});
    if (all[i].code == 302 && all[i].consequence_of == 0) races.emplace_back(i, touched_by(t, all[i]));
  }
  if (races.empty()) return;
  for (Finding& f : all) {
    if ((f.code != 406 && f.code != 407) || !f.bytes || f.cause_id != 0 || f.consequence_of != 0) continue;
    for (auto& [index, bytes] : races) {
      if (std::none_of(bytes.begin(), bytes.end(), [&](const Touched& b) { return meets(b, *f.bytes); })) continue;
      Finding& race = all[index];
      bool new_cause = race.cause_id == 0;
      if (new_cause) race.cause_id = next_id++;
      f.consequence_of = race.cause_id;
      f.details.push_back(race.bytes ? fmt::format("May be a consequence of the race (302) on rank {} {} [{:#x},{:#x}): "
                                                   "fix that first.",
                                                   race.bytes->rank, race.bytes->buffer, race.bytes->begin,
                                                   race.bytes->end)
                                     : std::string("May be a consequence of a race (302) reported above: fix that "
                                                   "first."));
      sink.count_cascade(new_cause, true);
      break;
    }
  }
}

}  // namespace cc
