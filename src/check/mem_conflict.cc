#include "check/mem_conflict.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <functional>
#include <memory>
#include <tuple>
#include <unordered_map>

#include "check/access_set.h"
#include "check/aiv_rules.h"
#include "check/interval_map.h"
#include "check/single_task.h"
#include "model/describe.h"
#include "model/jobs.h"

namespace cc {

namespace {

struct Frontier {
  AccessSet writes;  // W
  AccessSet reads;   // R
  // A read found ordered after every member of W that it saw (a dominator),
  // or kNone. Invariant: every member x of W with τ(x) ≤ τ(dom) happens
  // before dom — W gains only accesses later in τ, so it stays true as W
  // changes. A later access ordered after dom is then ordered after all
  // those members, which one question settles (docs/MEMCONFLICT.md). The
  // invariant speaks of W and dom alone, so two segments with equal W and R
  // are equal whichever dominator each keeps: either is valid for both.
  u32 dom = kNone;
  bool operator==(const Frontier& o) const { return writes == o.writes && reads == o.reads; }
};

using DomainMap = SplitIntervalMap<Frontier>;

u64 domain_key(const Slice& s) { return (u64{s.rank} << 16) | s.buf; }

struct Access {
  u64 domain;
  u64 begin, end;
  u32 slice;
  bool write;
  u16 cls;  // atomic_reduce_class of the task for a write, else 0
  bool flag = false;  // an AIV flag operation's 4 bytes (aiv.md §6.3): never against another flag access
  u32 index = 0;      // position among the task's accesses (orders the ATOMIC-REDUCE-ORDER candidates)
};

// Where one conflicting pair touches: a byte range of one domain.
struct Overlap {
  u32 earlier_slice, later_slice;
  u64 domain, begin, end;
};

// The accesses of a data task: sources read, destinations written; slices
// that are empty or not addressable (stage 2 reports those) are left out.
void task_accesses(const Trace& t, const Task& k, u16 cls, std::vector<Access>& out) {
  out.clear();
  for (u32 gi = 0; gi < k.group_count(); ++gi) {
    const Group& g = t.group(k, gi);
    auto add = [&](u32 si, bool write) {
      const Slice& s = t.slices[si];
      if (s.len == 0 || !slice_addressable(t, s)) return;
      out.push_back({domain_key(s), s.offset, s.offset + s.len, si, write, write ? cls : u16{0}});
    };
    for (u32 i = 0; i < g.src_count; ++i) add(g.first_src + i, false);
    add(g.dst, true);
  }
}

// The nearest RECORD/WAIT before (dir = -1) or after (dir = +1) a task on
// its chain. A chain of unchained tasks (CCU nodes) has no stream order:
// there the nearest syncs are the explicit neighbours of its ends.
u32 nearest_sync(const Trace& t, const TaskGraph& g, u32 task, int dir) {
  u32 c = g.chain(task);
  u32 begin = g.chain_begin(c), end = g.chain_end(c);
  if (dir < 0) {
    for (u32 i = task; i > begin;)
      if (is_sync_task(t.tasks[--i].type)) return i;
  } else {
    for (u32 i = task + 1; i < end; ++i)
      if (is_sync_task(t.tasks[i].type)) return i;
  }
  if (!(t.tasks[begin].flags & kTaskUnchained) || !g.has_explicit_edges()) return kNone;
  // The latest sync predecessor, or the earliest sync successor, in τ.
  u32 best = kNone;
  auto consider = [&](u32 v) {
    if (!is_sync_task(t.tasks[v].type) || !g.executed(v)) return;
    if (best == kNone || (dir < 0 ? g.tau[v] > g.tau[best] : g.tau[v] < g.tau[best])) best = v;
  };
  if (dir < 0)
    for (u32 e = g.in_begin[begin]; e < g.in_begin[begin + 1]; ++e) consider(g.in_from[e]);
  else
    for (u32 e = g.out_begin[end - 1]; e < g.out_begin[end]; ++e) consider(g.out_to[e]);
  return best;
}

std::string sync_line(const Trace& t, u32 task) {
  return task == kNone ? "(none)" : fmt::format("{} {}", task_position(t, task), describe_task(t, task));
}

std::string domain_text(const Trace& t, u64 domain, u64 begin, u64 end) {
  return fmt::format("rank {} {} {}", domain >> 16, t.buffers.name(static_cast<BufId>(domain & 0xffff)),
                     hex_range(begin, end));
}

ByteRange domain_range(const Trace& t, u64 domain, u64 begin, u64 end) {
  return {static_cast<u32>(domain >> 16), std::string(t.buffers.name(static_cast<BufId>(domain & 0xffff))), begin,
          end};
}

std::string access_text(const Trace& t, u32 task, u32 slice, bool write) {
  const Slice& s = t.slices[slice];
  return fmt::format("{} {} {}  {}", task_ref(t, task), write ? "writes" : "reads",
                     hex_range(s.offset, s.offset + s.len), describe_task(t, task));
}

// What every shard of the sweep reads and none changes: the memory tasks
// in τ (graph/data_order.h), whose positions are the sweep's task ids;
// which of them owns each slice; which slices are written or flag cells;
// and (when the domains are split into shards) which shards each task and
// each slice belong to.
struct SweepShared {
  const Trace& t;
  const TaskGraph& g;
  const DataOrder& order;
  const MemConflictOptions& opt;
  // Per slice: the position in `order` of the task that accesses it
  // (kNone: none does).
  std::vector<u32> pos_of_slice;
  // Per slice, one byte: kWritten, kFlag (the cell of an AIV flag
  // operation) and, sharded only, its domain's shard from bit kShardShift.
  static constexpr u8 kWritten = 1, kFlag = 2, kShardShift = 2;
  std::vector<u8> slice_bits;
  // Sharded only: per shard, the positions of the tasks with an access in
  // one of its domains, ascending (4 bytes per task and shard it touches,
  // and a shard walks only its own tasks).
  std::vector<std::vector<u32>> shard_tasks;

  SweepShared(const Trace& trace, const TaskGraph& graph, const DataOrder& data, const MemConflictOptions& options)
      : t(trace), g(graph), order(data), opt(options) {
    pos_of_slice.assign(t.slices.size(), kNone);
    slice_bits.assign(t.slices.size(), 0);
    const std::vector<u32>& ids = order.tasks;
    auto id_at = [&](std::size_t p) { return ids[p]; };
    for (u32 p = 0; p < ids.size(); ++p) {
      fetch_ahead(t, id_at, p, ids.size());
      u32 id = ids[p];
      const Task& k = t.tasks[id];
      if (!is_data_task(k.type)) {
        bool write = false;
        if (u32 sl = (k.flags & kTaskAiv) ? aiv_flag_access(t, id, write) : kNone; sl != kNone) {
          pos_of_slice[sl] = p;
          slice_bits[sl] = static_cast<u8>((write ? kWritten : 0) | kFlag);
        }
        continue;
      }
      for (u32 gi = 0; gi < k.group_count(); ++gi) {
        const Group& gr = t.group(k, gi);
        for (u32 i = 0; i < gr.src_count; ++i) pos_of_slice[gr.first_src + i] = p;
        pos_of_slice[gr.dst] = p;
        slice_bits[gr.dst] |= kWritten;
      }
    }
  }

  // Once every sweep has ended and there is nothing to report.
  void release() {
    std::vector<u32>().swap(pos_of_slice);
    std::vector<u8>().swap(slice_bits);
  }

  u32 task_of_slice(u32 slice) const { return order.tasks[pos_of_slice[slice]]; }
  bool written(u32 slice) const { return slice_bits[slice] & kWritten; }
  bool flag(u32 slice) const { return slice_bits[slice] & kFlag; }
  u32 shard(u32 slice) const { return slice_bits[slice] >> kShardShift; }

  // The accesses of `task` in τ's sweep (data slices, or an AIV flag
  // operation's cell), each with its position; false when the task has
  // none to compare.
  bool accesses_of(u32 task, std::vector<Access>& out) const {
    const Task& k = t.tasks[task];
    out.clear();
    if (!is_data_task(k.type)) {
      if (!(k.flags & kTaskAiv)) return false;
      bool write = false;
      u32 sl = aiv_flag_access(t, task, write);
      if (sl == kNone) return false;
      const Slice& c = t.slices[sl];
      if (slice_addressable(t, c)) out.push_back({domain_key(c), c.offset, c.offset + c.len, sl, write, 0, true});
    } else {
      task_accesses(t, k, opt.strict_reduce ? 0 : atomic_reduce_class(k), out);
    }
    for (u32 i = 0; i < out.size(); ++i) out[i].index = i;
    return !out.empty();
  }
};

// The conflicts one shard found for one later task: its overlaps (a range
// of the shard's list) and whether it left members unasked.
struct TaskConflicts {
  u32 at;  // the task's position in τ's memory tasks
  std::size_t begin, end;
  bool stopped;
};

// The ATOMIC-REDUCE-ORDER candidate: the first unordered pair of
// floating-point reduces of one class in the sweep's order — by τ of the
// later task (its position), then the position of its access, then the
// sweep's order within that access (segments by address, members in
// frontier order). The key does not depend on how the domains were split,
// so neither does the pair.
struct OrderCandidate {
  Overlap pair{0, kNone, 0, 0, 0};  // later_slice kNone: none yet
  u32 at = 0, index = 0;
  bool precedes(u32 other_at, u32 other_index) const {
    return pair.later_slice != kNone && (at < other_at || (at == other_at && index <= other_index));
  }
};

// The sweep over the domains of one shard (all of them when the stage runs
// on one thread). Everything a task learns is kept per domain: its answers
// (a member's order with the task), its partners toward the cap and its
// atomic pairs are forgotten when the task moves on to its accesses in
// another domain, so that what one domain's frontiers become never depends
// on another's — the condition for splitting domains into shards without
// changing a byte of the findings (docs/MEMCONFLICT.md, "Threads").
//
// Tasks are named by their position among τ's memory tasks (SweepShared::
// order): the answers are an array over positions, and a dominator is a
// position, so "τ(x) < τ(dom)" compares two numbers. The oracle is asked
// with task ids.
class Sweep {
 public:
  using Emit = std::function<void(u32 at, std::vector<Overlap>& overlaps, bool stopped)>;

  // `shard` kNone: every domain.
  Sweep(const SweepShared& sh, Reachability& reach, u32 shard, const Emit& emit)
      : sh_(sh), t_(sh.t), reach_(reach), opt_(sh.opt), pos_of_slice_(sh.pos_of_slice),
        tasks_(sh.order.tasks), shard_(shard), emit_(emit) {
    answer_.assign(tasks_.size(), 0);
  }

  void run() {
    auto visit = [&](u32 at) {
      cur_ = at;
      cur_task_ = tasks_[at];
      if (!sh_.accesses_of(cur_task_, accesses_)) return;
      if (shard_ != kNone)
        std::erase_if(accesses_, [&](const Access& a) { return sh_.shard(a.slice) != shard_; });
      stats_.accesses += accesses_.size();
      overlaps_.clear();
      stopped_ = false;
      // The task's accesses domain by domain, each domain's in their order.
      for (std::size_t i = 0; i < accesses_.size(); ++i) {
        bool seen = false;
        for (std::size_t j = 0; j < i && !seen; ++j) seen = accesses_[j].domain == accesses_[i].domain;
        if (seen) continue;
        group_.clear();
        for (std::size_t j = i; j < accesses_.size(); ++j)
          if (accesses_[j].domain == accesses_[i].domain) group_.push_back(accesses_[j]);
        sweep_domain();
      }
      if (!overlaps_.empty()) emit_(at, overlaps_, stopped_);
    };
    if (shard_ != kNone) {
      const std::vector<u32>& mine = sh_.shard_tasks[shard_];
      auto id_at = [&](std::size_t k) { return tasks_[mine[k]]; };
      for (std::size_t k = 0; k < mine.size(); ++k) {
        fetch_ahead(t_, id_at, k, mine.size());
        visit(mine[k]);
      }
    } else {
      auto id_at = [&](std::size_t k) { return tasks_[k]; };
      for (u32 at = 0; at < tasks_.size(); ++at) {
        fetch_ahead(t_, id_at, at, tasks_.size());
        visit(at);
      }
    }
  }

  const MemConflictStats& stats() const { return stats_; }
  const OrderCandidate& order_candidate() const { return order_warning_; }

 private:
  // The current task's accesses in one domain (group_).
  void sweep_domain() {
    forget_answers();
    if (opt_.all_pairs) {
      for (const Access& a : group_) find_in_history(a);
      for (const Access& a : group_) history_[a.domain].push_back(a);
    } else if (!self_overlap()) {
      // The usual case: each access alone decides its segments, so the
      // comparison with the frontier and its update share one pass.
      for (const Access& a : group_)
        domain(a.domain).update(a.begin, a.end, [&](u64 s, u64 e, Frontier& f) {
          compare(a, s, e, f);
          advance(a, f);
        });
    } else {
      // A task whose own accesses overlap: compare all of them with the
      // frontiers before any of them changes one.
      DomainMap& d = domain(group_.front().domain);
      for (const Access& a : group_)
        d.scan(a.begin, a.end, [&](u64 s, u64 e, const Frontier& f) { compare(a, s, e, f); });
      for (const Access& a : group_) d.update(a.begin, a.end, [&](u64, u64, Frontier& f) { advance(a, f); });
    }
  }

  // The position of the task that accesses `slice`.
  u32 pos(u32 slice) const { return pos_of_slice_[slice]; }

  // Whether the task at position x happens before the current task
  // (memoised per task). A "no" counts x as a partner of the current task
  // unless `partner` is false (an atomic pair, which is not a conflict).
  bool before(u32 x, bool partner = true) {
    if (x == cur_) return true;
    if (const bool* yes = answer(x)) return *yes;
    bool yes = reach_.happens_before(tasks_[x], cur_task_);
    stats_.queries++;
    remember(x, yes, partner);
    return yes;
  }

  // The atomic class of the access `slice` (0 unless an SDMA reduce's
  // destination, and always 0 with --strict-reduce).
  u16 access_class(u32 slice) const {
    if (opt_.strict_reduce || !sh_.written(slice)) return 0;
    return atomic_reduce_class(t_.tasks[sh_.task_of_slice(slice)]);
  }

  // Whether x must stay in a frontier the current task joins (advance()):
  // it is not known ordered before the task. The comparison asked about
  // every member of the segment unless it stopped (saturated), so a member
  // with no answer is one it left unasked, and stays; advance() never asks.
  bool unordered_or_untested(u32 x) const {
    if (x == cur_) return false;
    const bool* yes = answer(x);
    return !yes || !*yes;
  }

  // The comparison with a segment stops asking once the task has
  // partner_cap partners in all and one in this segment. A task saturated
  // by a slot of racing writes must still ask about the members of its
  // other segments until it meets a partner there: members ordered before
  // it but never asked about would pile up in those frontiers, and every
  // later read would ask about all of them (docs/MEMCONFLICT.md).
  bool saturated() const {
    return segment_partners_ > 0 && partners_found_ >= std::max(opt_.partner_cap, 1u);
  }

  // x was never asked about and, the current segment being saturated, will not be.
  bool left_unasked(u32 x) {
    if (!saturated() || x == cur_ || answer(x)) return false;
    stopped_ = true;
    return true;
  }

  // The answers for the current task, in an array over positions, each
  // entry the turn of the task that found it and the answer in its lowest
  // bit: one load per look-up, and forgetting them all is one increment. A
  // task is looked up once per frontier member it meets (in the comparison
  // and in the update), and racing slots have frontiers of thousands: a
  // hash map of the answers was most of the stage's time there.
  const bool* answer(u32 x) const {
    static constexpr bool kYes = true, kNo = false;
    u32 a = answer_[x];
    if (a >> 1 != turn_) return nullptr;
    return a & 1 ? &kYes : &kNo;
  }
  void remember(u32 x, bool yes, bool partner) {
    if (!yes && partner) ++partners_found_, ++segment_partners_;
    answer_[x] = turn_ << 1 | u32{yes};
  }
  // Forgotten when the task moves to another domain (stopped_ is the task's).
  void forget_answers() {
    if (++turn_ == kTurns) {  // every turn used: start again on a clean array
      std::fill(answer_.begin(), answer_.end(), 0);
      turn_ = 1;
    }
    partners_found_ = segment_partners_ = 0;
    atomic_found_ = 0;
  }

  DomainMap& domain(u64 key) {
    if (key != last_key_ || !last_domain_) {
      last_domain_ = &domains_[key];
      last_key_ = key;
    }
    return *last_domain_;
  }

  // Two accesses of the current task in the domain (group_) that overlap.
  bool self_overlap() const {
    for (std::size_t i = 0; i < group_.size(); ++i)
      for (std::size_t j = i + 1; j < group_.size(); ++j) {
        const Access &a = group_[i], &b = group_[j];
        if (a.begin < b.end && b.begin < a.end) return true;
      }
    return false;
  }

  // Whether the segment's dominator happens before the current task. The
  // question counts no partner and a "no" is not remembered: the dominator
  // is a read, which conflicts with the task only if the task writes, and
  // then the comparison with R asks about it as usual.
  //
  // A search that ends "no" scans all of the dominator's cone up to the
  // task, and a dominator runs in parallel with the task whenever readers
  // of one block do (each becomes the dominator in turn): on a ring of
  // servers those fruitless searches grew faster than the ring and were
  // most of the stage. So the dominator gets the cheap layers only when it
  // spares few questions (kFewCovered members or fewer): without it the
  // comparison asks those members themselves, which mostly end "yes" after
  // a short search. The findings are the same either way; only the number
  // and cost of the questions change.
  static constexpr u32 kFewCovered = 8;
  bool dominated(const Frontier& f) {
    if (f.dom == kNone || f.writes.empty()) return false;
    if (f.dom == cur_) return true;
    if (const bool* yes = answer(f.dom)) return *yes;
    // Counted whatever answers it: whether τ2 (built per thread, when its
    // searches have cost a pass) answers a "no" must not change the count.
    stats_.queries++;
    int cheap = reach_.without_search(tasks_[f.dom], cur_task_);
    if (cheap < 0 && covers_few(f)) return false;
    bool yes = cheap >= 0 ? cheap == 1 : reach_.happens_before(tasks_[f.dom], cur_task_);
    if (yes) remember(f.dom, true, false);
    return yes;
  }

  // Whether the dominator covers kFewCovered members of W or fewer.
  bool covers_few(const Frontier& f) const {
    u32 n = 0;
    for (u32 x : f.writes)
      if (covered(f, x) && ++n > kFewCovered) return false;
    return true;
  }

  // dominated() without a new question: the answer the comparison found.
  bool dominance_known(const Frontier& f) const {
    if (f.dom == kNone || f.writes.empty()) return false;
    if (f.dom == cur_) return true;
    const bool* yes = answer(f.dom);
    return yes && *yes;
  }

  // Whether the member x of W is covered by the dominator (happens before
  // it by the invariant), given that the dominator happens before the task.
  bool covered(const Frontier& f, u32 x) const { return pos(x) <= f.dom; }

  // Whether every member of W is known to happen before the current task,
  // without a new question (covered, or answered "yes"): a read that is
  // becomes the segment's dominator.
  bool after_all_writes(const Frontier& f) const {
    bool dom = dominance_known(f);
    for (u32 x : f.writes) {
      if (dom && covered(f, x)) continue;
      u32 px = pos(x);
      if (px == cur_) continue;
      const bool* yes = answer(px);
      if (!yes || !*yes) return false;
    }
    return true;
  }

  // An access against one segment's frontier: writes conflict with W and R,
  // reads with W.
  //
  // Once the task has partner_cap partners it is reported; members it was
  // not yet compared with are left alone (known answers still add their
  // overlaps, so the reported pairs keep all their bytes).
  void compare(const Access& a, u64 s, u64 e, const Frontier& f) {
    segment_partners_ = 0;
    auto check = [&](u32 x) {
      u32 px = pos(x);
      if (left_unasked(px)) return;
      if (!before(px)) overlaps_.push_back({x, a.slice, a.domain, s, e});
    };
    // Members covered by a dominator that happens before the task happen
    // before it too: none conflicts (and no pair of one atomic class is
    // unordered), so they need not be asked.
    bool dom = dominated(f);
    for (u32 x : f.writes) {
      if (dom && covered(f, x)) continue;
      if (a.flag && sh_.flag(x)) continue;
      if (a.cls && access_class(x) == a.cls)
        atomic_pair(a, x, s, e);
      else
        check(x);
    }
    if (a.write)
      for (u32 x : f.reads)
        if (!(a.flag && sh_.flag(x))) check(x);
  }

  // Two SDMA reduces of one class into the same bytes: not a conflict, the
  // engine applies each atomically. The current task asks about such a
  // member only to prune it from W (advance) and to find the first unordered
  // pair for the ATOMIC-REDUCE-ORDER warning. After partner_cap unordered
  // ones it stops asking: k reduces in parallel into one slot then cost
  // O(k·cap) queries, and a member left unasked stays in W, which is safe.
  void atomic_pair(const Access& a, u32 x, u64 s, u64 e) {
    u32 px = pos(x);
    if (px == cur_) return;
    bool ordered;
    if (const bool* yes = answer(px)) {
      ordered = *yes;
    } else {
      if (saturated()) stopped_ = true;
      if (saturated() || atomic_found_ >= std::max(opt_.partner_cap, 1u)) return;
      ordered = before(px, false);
      if (!ordered) {
        ++atomic_found_;
        stats_.atomic_pairs++;
      }
    }
    if (ordered || order_warning_.precedes(cur_, a.index)) return;
    if (is_floating(t_.tasks[cur_task_].data_type)) order_warning_ = {{x, a.slice, a.domain, s, e}, cur_, a.index};
  }

  // The frontier after the access (memconflict.md): a write replaces every
  // access ordered before it; a read joins R, replacing reads ordered before it.
  //
  // A read drops from R only the reads known ordered before it without a
  // search (same stream, the cheap filters, answers already found): reads
  // that truly run in parallel — every peer pulling one block in a mesh —
  // would otherwise cost |R| fruitless searches per read. Keeping a read
  // that is in fact ordered before t changes no verdict: the next write
  // compares with it as well, and any conflict it reports is real. For the
  // same reason a saturated task (partner_cap partners) keeps the members
  // it never asked about: among k mutually unordered writes into one slot
  // each write then asks about partner_cap of them, not all.
  //
  // An SDMA reduce stands in only for earlier reduces of its own class: a
  // read, or another kind of write, ordered before it still conflicts with
  // a later reduce of the class that this one does not conflict with, so
  // it stays. Of its own class it drops the members known ordered before
  // it (asked in compare(), or the cheap filters); unasked ones stay.
  void advance(const Access& a, Frontier& f) {
    auto unordered = [&](u32 x) { return unordered_or_untested(pos(x)); };
    if (a.flag) {
      // A flag access never stands in for a data access: a later flag
      // access is not compared with it, so the data access must stay. Of
      // the flag accesses it drops those known ordered before it.
      auto keep = [&](u32 x) { return !sh_.flag(x) || !known_before(pos(x)); };
      if (a.write) {
        f.writes.retain(keep);
        f.writes.insert(a.slice);
      } else {
        f.reads.retain(keep);
        f.reads.insert(a.slice);
      }
    } else if (a.write && a.cls) {
      bool dom = dominance_known(f);
      f.writes.retain([&](u32 x) {
        return access_class(x) != a.cls || !((dom && covered(f, x)) || known_before(pos(x)));
      });
      f.writes.insert(a.slice);
    } else if (a.write) {
      bool dom = dominance_known(f);
      f.writes.retain([&](u32 x) { return !(dom && covered(f, x)) && unordered(x); });
      f.writes.insert(a.slice);
      f.reads.retain(unordered);
    } else {
      f.reads.retain([&](u32 x) { return !known_before(pos(x)); });
      f.reads.insert(a.slice);
      // A newer dominator covers more of W.
      if (!f.writes.empty() && after_all_writes(f)) f.dom = cur_;
    }
  }

  bool known_before(u32 x) {
    if (x == cur_) return true;
    if (const bool* yes = answer(x)) return *yes;
    return reach_.quick(tasks_[x], cur_task_) == 1;
  }

  // --all-pairs: every earlier access of the domain is a candidate partner.
  // Cost grows with the number of earlier overlapping accesses (debug use).
  void find_in_history(const Access& a) {
    auto it = history_.find(a.domain);
    if (it == history_.end()) return;
    for (const Access& h : it->second) {
      if (h.end <= a.begin || a.end <= h.begin || (!h.write && !a.write) || (h.flag && a.flag)) continue;
      if (a.cls && h.cls == a.cls) {
        atomic_pair(a, h.slice, std::max(h.begin, a.begin), std::min(h.end, a.end));
        continue;
      }
      if (!before(pos(h.slice)))
        overlaps_.push_back({h.slice, a.slice, a.domain, std::max(h.begin, a.begin), std::min(h.end, a.end)});
    }
  }

  // Turns live in the answers' upper 31 bits.
  static constexpr u32 kTurns = u32{1} << 31;

  const SweepShared& sh_;
  const Trace& t_;
  Reachability& reach_;
  const MemConflictOptions& opt_;
  const std::vector<u32>& pos_of_slice_;
  const std::vector<u32>& tasks_;  // position -> task id
  u32 shard_;
  const Emit& emit_;
  MemConflictStats stats_;

  std::unordered_map<u64, DomainMap> domains_;  // node-based: pointers stay valid
  u64 last_key_ = 0;
  DomainMap* last_domain_ = nullptr;
  std::unordered_map<u64, std::vector<Access>> history_;
  std::vector<Access> accesses_;
  std::vector<Access> group_;  // the current task's accesses in one domain
  u32 cur_ = kNone;       // the current task's position
  u32 cur_task_ = kNone;  // and its id
  std::vector<u32> answer_;  // per position: turn_ << 1 | answer (turn 0: none yet)
  u32 turn_ = 0;
  u32 partners_found_ = 0;    // "no" answers of the current task in the domain
  u32 segment_partners_ = 0;  // of them, in the segment compared
  bool stopped_ = false;      // the current task left some member unasked
  u32 atomic_found_ = 0;    // unordered atomic pairs the current task asked about in the domain
  std::vector<Overlap> overlaps_;
  OrderCandidate order_warning_;
};

// Turns the conflicts of each later task into findings, in τ order.
class Reporter {
 public:
  Reporter(const SweepShared& sh, FindingSink& out, std::vector<ConflictPair>* pairs)
      : sh_(sh), t_(sh.t), g_(sh.g), opt_(sh.opt), out_(out), pairs_(pairs) {}

  u64 pairs_reported = 0;

  // `later_at`: the later task's position in τ's memory tasks.
  void report(u32 later_at, std::vector<Overlap>& overlaps_, bool stopped_) {
    u32 later = sh_.order.tasks[later_at];
    // Group by earlier task, in τ order; merge each pair's overlaps.
    std::sort(overlaps_.begin(), overlaps_.end(), [&](const Overlap& x, const Overlap& y) {
      u32 tx = sh_.pos_of_slice[x.earlier_slice], ty = sh_.pos_of_slice[y.earlier_slice];
      if (tx != ty) return tx < ty;
      // A total order: which shard found an overlap, or in what order,
      // does not change the finding.
      return std::tie(x.domain, x.begin, x.end, x.earlier_slice, x.later_slice) <
             std::tie(y.domain, y.begin, y.end, y.earlier_slice, y.later_slice);
    });
    std::vector<u32> partners;
    for (const Overlap& o : overlaps_) {
      u32 e = sh_.task_of_slice(o.earlier_slice);
      if (partners.empty() || partners.back() != e) partners.push_back(e);
    }
    if (pairs_)
      for (u32 e : (opt_.all_pairs ? partners : std::vector<u32>{partners.front()}))
        pairs_->push_back({e, later});
    pairs_reported += opt_.all_pairs ? partners.size() : 1;
    // One finding per reported pair: the first partner, or every partner
    // with --all-pairs.
    std::size_t shown = opt_.all_pairs ? partners.size() : 1;
    for (std::size_t p = 0; p < shown; ++p) {
      if (!out_.wants(302)) {
        out_.count(302, Severity::Error);
        continue;
      }
      u32 earlier = partners[p];
      Finding f = make_finding(302, StageTag::MemConflict,
                               "Unordered tasks touch overlapping bytes; at least one writes.");
      const Overlap* first = nullptr;
      u64 dom = 0, b = 0, e = 0;
      bool open = false;
      auto flush = [&] {
        if (!open) return;
        f.details.push_back("Bytes   : " + domain_text(t_, dom, b, e));
        if (!f.bytes) f.bytes = domain_range(t_, dom, b, e);
      };
      for (const Overlap& o : overlaps_) {
        if (sh_.task_of_slice(o.earlier_slice) != earlier) continue;
        if (!first) first = &o;
        if (open && o.domain == dom && o.begin <= e) {
          e = std::max(e, o.end);
          continue;
        }
        flush();
        dom = o.domain, b = o.begin, e = o.end, open = true;
      }
      flush();
      f.details.push_back("Earlier : " + access_text(t_, earlier, first->earlier_slice,
                                                      sh_.written(first->earlier_slice)));
      f.details.push_back("Later   : " + access_text(t_, later, first->later_slice,
                                                      sh_.written(first->later_slice)));
      f.details.push_back("Last sync before the earlier task on its stream : " +
                          sync_line(t_, nearest_sync(t_, g_, earlier, -1)));
      f.details.push_back("First sync after the earlier task on its stream : " +
                          sync_line(t_, nearest_sync(t_, g_, earlier, +1)));
      if (!opt_.all_pairs && partners.size() > 1) {
        std::string more;
        for (std::size_t i = 1; i < partners.size() && i <= 5; ++i)
          more += (i > 1 ? ", " : "") + task_position(t_, partners[i]);
        if (partners.size() > 6)
          more += fmt::format(" and {}{} more", stopped_ ? "at least " : "", partners.size() - 6);
        f.details.push_back("Also unordered with the later task: " + more + " (--all-pairs lists every pair)");
      }
      f.tasks = {earlier, later};
      out_.add(std::move(f));
    }
  }

  // The first unordered pair of floating-point SDMA reduces of one class:
  // their sum is not a race, but its rounding depends on their order.
  void report_order_warning(const Overlap& o) {
    u32 earlier = sh_.task_of_slice(o.earlier_slice), later = sh_.task_of_slice(o.later_slice);
    const Task& k = t_.tasks[later];
    Finding f = make_finding(0, StageTag::MemConflict,
                             fmt::format("Unordered SDMA reduces ({} {}) add into the same bytes: not a race, "
                                         "since the engine applies each reduction atomically, but the "
                                         "rounding of the result depends on their order.",
                                         name(k.reduce_op), name(k.data_type)));
    f.tag = "ATOMIC-REDUCE-ORDER";
    f.severity = Severity::Warning;
    f.details.push_back("Bytes   : " + domain_text(t_, o.domain, o.begin, o.end));
    f.bytes = domain_range(t_, o.domain, o.begin, o.end);
    f.details.push_back("Earlier : " + access_text(t_, earlier, o.earlier_slice, true));
    f.details.push_back("Later   : " + access_text(t_, later, o.later_slice, true));
    f.details.push_back(
        "The result may differ in its last bits from run to run; order the two reduces (a RECORD/WAIT "
        "between them) if it must be reproducible. The first such pair is named; --strict-reduce reports "
        "every pair as 302, as HCCL's checker does.");
    f.tasks = {earlier, later};
    out_.add(std::move(f));
  }


 private:
  const SweepShared& sh_;
  const Trace& t_;
  const TaskGraph& g_;
  const MemConflictOptions& opt_;
  FindingSink& out_;
  std::vector<ConflictPair>* pairs_;
};

// Splits the domains into at most `threads` shards of about equal weight
// (accesses): the heaviest first, each to the lightest shard so far, ties
// to the lower shard. Fills the shared tables; returns the number of shards
// (1: no split). How the domains are split changes no finding (Sweep).
unsigned plan_shards(SweepShared& sh, unsigned threads) {
  // A shard is a bit of a task's mask while planning, and six bits of a
  // slice's byte (SweepShared::slice_bits).
  threads = std::min(threads, 64u);
  if (threads <= 1) return 1;
  // The weight of a domain: its slices (an access each, but for those of
  // stage 2's errors; the weight only balances the shards).
  const std::vector<Slice>& slices = sh.t.slices;
  std::unordered_map<u64, u64> weight;
  u64 last = ~u64{0};
  u64* w = nullptr;
  for (const Slice& sl : slices) {
    u64 key = domain_key(sl);
    if (key != last) w = &weight[key], last = key;
    ++*w;
  }
  if (weight.size() <= 1) return 1;
  std::vector<std::pair<u64, u64>> domains(weight.begin(), weight.end());
  std::sort(domains.begin(), domains.end(), [](const auto& x, const auto& y) {
    return x.second != y.second ? x.second > y.second : x.first < y.first;
  });
  unsigned shards = static_cast<unsigned>(std::min<std::size_t>(threads, domains.size()));
  std::vector<u64> load(shards, 0);
  std::unordered_map<u64, u8> shard_of;
  for (const auto& [key, dw] : domains) {
    u8 lightest = static_cast<u8>(std::min_element(load.begin(), load.end()) - load.begin());
    shard_of[key] = lightest;
    load[lightest] += dw;
  }
  // Bit s: the task at this position touches shard s (8 bytes per memory
  // task, while planning).
  std::vector<u64> task_shards(sh.order.size(), 0);
  last = ~u64{0};
  u8 shard = 0;
  for (std::size_t i = 0; i < slices.size(); ++i) {
    u64 key = domain_key(slices[i]);
    if (key != last) shard = shard_of[key], last = key;
    sh.slice_bits[i] |= static_cast<u8>(shard << SweepShared::kShardShift);
    if (u32 at = sh.pos_of_slice[i]; at != kNone) task_shards[at] |= u64{1} << shard;
  }
  // Each list allocated once at its size.
  std::vector<u32> length(shards, 0);
  for (u64 mask : task_shards)
    for (u64 bits = mask; bits; bits &= bits - 1) ++length[std::countr_zero(bits)];
  sh.shard_tasks.assign(shards, {});
  for (u32 s = 0; s < shards; ++s) sh.shard_tasks[s].reserve(length[s]);
  for (u32 at = 0; at < task_shards.size(); ++at)
    for (u64 bits = task_shards[at]; bits; bits &= bits - 1) sh.shard_tasks[std::countr_zero(bits)].push_back(at);
  return shards;
}

// What one shard found: per later task (in τ order) a range of overlaps.
struct ShardOutcome {
  std::vector<TaskConflicts> tasks;
  std::vector<Overlap> overlaps;
  MemConflictStats stats;
  OrderCandidate warning;
};

// Stage 4 as pieces: the domains split into shards (one piece each), swept
// by whichever threads the caller runs them on; piece 0 asks the caller's
// oracle, every other its own fork (an oracle's search state is per query
// and per target, not thread-safe). With one piece the sweep reports each
// later task as it goes; with several, finish() reports each with the
// overlaps of every shard, in τ order, as one sweep would.
class ShardedSweeps final : public MemConflictSweeps {
 public:
  ShardedSweeps(const Trace& trace, const TaskGraph& graph, const DataOrder& order, Reachability& reach,
                const MemConflictOptions& options, unsigned pieces, FindingSink& out,
                std::vector<ConflictPair>* pairs)
      : opt_(options), shared_(trace, graph, order, opt_), reporter_(shared_, out, pairs), reach_(reach) {
    shards_ = plan_shards(shared_, pieces);
    pieces_left_ = shards_;
    outcome_.resize(shards_);
    // The forks are made here, before piece 0 changes `reach` (it may build τ2).
    for (u32 s = 1; s < shards_; ++s) forks_.push_back(std::make_unique<Reachability>(reach, Reachability::Fork{}));
  }

  unsigned pieces() const override { return shards_; }

  void run(unsigned piece) override {
    ShardOutcome& o = outcome_[piece];
    Reachability& r = piece == 0 ? reach_ : *forks_[piece - 1];
    Sweep::Emit emit = [&](u32 at, std::vector<Overlap>& found, bool stopped) {
      if (shards_ == 1) return reporter_.report(at, found, stopped);
      o.tasks.push_back({at, o.overlaps.size(), o.overlaps.size() + found.size(), stopped});
      o.overlaps.insert(o.overlaps.end(), found.begin(), found.end());
    };
    {
      Sweep sweep(shared_, r, shards_ == 1 ? kNone : piece, emit);
      sweep.run();
      o.stats = sweep.stats();
      o.warning = sweep.order_candidate();
    }  // its frontiers and answers freed here, while other pieces may still run
    // The piece's task list and oracle fork too (only this piece uses
    // them; a fork may have built its own τ2, 4 bytes per task).
    if (piece != 0) {
      o.stats.scanned = r.scanned();
      forks_[piece - 1].reset();
    }
    if (shards_ > 1) std::vector<u32>().swap(shared_.shard_tasks[piece]);
    // The last piece to end (it sees every other's outcome): with nothing
    // left to report, the tables of the slices are not needed either, and
    // the caller's other work (stage 5) may still be running.
    if (pieces_left_.fetch_sub(1, std::memory_order_acq_rel) == 1 && nothing_to_report()) shared_.release();
  }

  void finish(MemConflictStats* stats) override {
    if (shards_ > 1) merge();
    OrderCandidate warning;
    for (const ShardOutcome& o : outcome_) {
      const OrderCandidate& c = o.warning;
      if (c.pair.later_slice != kNone && !warning.precedes(c.at, c.index)) warning = c;
    }
    if (warning.pair.later_slice != kNone) reporter_.report_order_warning(warning.pair);
    if (!stats) return;
    for (const ShardOutcome& o : outcome_) {
      stats->accesses += o.stats.accesses;
      stats->queries += o.stats.queries;
      stats->atomic_pairs += o.stats.atomic_pairs;
      stats->scanned += o.stats.scanned;
    }
    stats->pairs += reporter_.pairs_reported;
  }

 private:
  bool nothing_to_report() const {
    for (const ShardOutcome& o : outcome_)
      if (!o.tasks.empty() || o.warning.pair.later_slice != kNone) return false;
    return true;
  }

  void merge() {
    std::vector<std::size_t> next(shards_, 0);
    std::vector<Overlap> merged;
    for (;;) {
      u32 at = kNone;  // the earliest position any shard has left; positions follow τ
      for (u32 s = 0; s < shards_; ++s)
        if (next[s] < outcome_[s].tasks.size()) at = std::min(at, outcome_[s].tasks[next[s]].at);
      if (at == kNone) break;
      merged.clear();
      bool stopped = false;
      for (u32 s = 0; s < shards_; ++s) {
        if (next[s] >= outcome_[s].tasks.size() || outcome_[s].tasks[next[s]].at != at) continue;
        const TaskConflicts& c = outcome_[s].tasks[next[s]++];
        merged.insert(merged.end(), outcome_[s].overlaps.begin() + static_cast<std::ptrdiff_t>(c.begin),
                      outcome_[s].overlaps.begin() + static_cast<std::ptrdiff_t>(c.end));
        stopped |= c.stopped;
      }
      reporter_.report(at, merged, stopped);
    }
  }

  MemConflictOptions opt_;  // SweepShared keeps a reference to it
  SweepShared shared_;
  Reporter reporter_;
  Reachability& reach_;
  unsigned shards_ = 1;
  std::atomic<unsigned> pieces_left_{0};
  std::vector<std::unique_ptr<Reachability>> forks_;
  std::vector<ShardOutcome> outcome_;
};

}  // namespace

u16 atomic_reduce_class(const Task& k) {
  // SDMA and RDMA both reduce inline: the engine or the NIC applies the
  // reduction where it writes, atomically. HCCL's two-server mesh-graph
  // pipeline executors reduce into one buffer from both at once (RDMA from
  // the other server, SDMA from the own one).
  // An AIV reduce is an atomic-add/max/min write of MTE3 (aiv.md §2.5).
  if (!is_reduce_task(k.type) || (k.link != Link::SDMA && k.link != Link::RDMA && k.link != Link::AIV)) return 0;
  return static_cast<u16>(1 + static_cast<u32>(k.reduce_op) * kDataTypeCount + static_cast<u32>(k.data_type));
}

std::unique_ptr<MemConflictSweeps> plan_mem_conflict(const Trace& trace, const TaskGraph& graph,
                                                     const DataOrder& order, Reachability& reach,
                                                     const MemConflictOptions& options, unsigned pieces,
                                                     FindingSink& out, std::vector<ConflictPair>* pairs) {
  return std::make_unique<ShardedSweeps>(trace, graph, order, reach, options, pieces, out, pairs);
}

void check_mem_conflict(const Trace& trace, const TaskGraph& graph, Reachability& reach,
                        const MemConflictOptions& options, FindingSink& out,
                        std::vector<ConflictPair>* pairs, MemConflictStats* stats) {
  DataOrder order;
  if (graph.complete) order = data_order(trace, graph, std::max(1u, options.threads));
  check_mem_conflict(trace, graph, order, reach, options, out, pairs, stats);
}

void check_mem_conflict(const Trace& trace, const TaskGraph& graph, const DataOrder& order, Reachability& reach,
                        const MemConflictOptions& options, FindingSink& out,
                        std::vector<ConflictPair>* pairs, MemConflictStats* stats) {
  if (!graph.complete) {
    // Reached only through the library API: run_checks skips this stage
    // when the graph could not be built.
    Finding f = make_finding(301, StageTag::MemConflict,
                             "The task graph is not a DAG reachable from START; memory conflicts "
                             "cannot be decided.");
    out.add(std::move(f));
    return;
  }
  unsigned threads = std::max(1u, options.threads);
  auto sweeps = plan_mem_conflict(trace, graph, order, reach, options, threads, out, pairs);
  run_parts(threads, sweeps->pieces(), [&](unsigned p) { sweeps->run(p); });
  sweeps->finish(stats);
}

}  // namespace cc
