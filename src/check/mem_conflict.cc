#include "check/mem_conflict.h"

#include <fmt/format.h>

#include <algorithm>
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
  for (u32 gi = 0; gi < k.group_count; ++gi) {
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

// What every shard of the sweep reads and none changes: which task owns
// each slice, which slices are written, and (when the domains are split
// into shards) which shards each task and each slice belong to.
struct SweepShared {
  const Trace& t;
  const TaskGraph& g;
  const MemConflictOptions& opt;
  std::vector<u32> task_of_slice;
  std::vector<u8> written;
  std::vector<u8> flag_slice;  // the cell slices of AIV flag operations
  // Sharded only: per shard, the tasks with an access in one of its
  // domains, in τ order (4 bytes per task and shard it touches, and a shard
  // walks only its own tasks); and the shard of each slice's domain.
  std::vector<std::vector<u32>> shard_tasks;
  std::vector<u8> slice_shard;

  SweepShared(const Trace& trace, const TaskGraph& graph, const MemConflictOptions& options)
      : t(trace), g(graph), opt(options) {
    task_of_slice.assign(t.slices.size(), kNone);
    written.assign(t.slices.size(), 0);
    flag_slice.assign(t.slices.size(), 0);
    for (u32 id = 0; id < t.tasks.size(); ++id) {
      const Task& k = t.tasks[id];
      if (!is_data_task(k.type)) {
        bool write = false;
        if (u32 sl = (k.flags & kTaskAiv) ? aiv_flag_access(t, id, write) : kNone; sl != kNone) {
          task_of_slice[sl] = id;
          written[sl] = write;
          flag_slice[sl] = 1;
        }
        continue;
      }
      for (u32 gi = 0; gi < k.group_count; ++gi) {
        const Group& gr = t.group(k, gi);
        for (u32 i = 0; i < gr.src_count; ++i) task_of_slice[gr.first_src + i] = id;
        task_of_slice[gr.dst] = id;
        written[gr.dst] = 1;
      }
    }
  }

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
  u32 task;
  std::size_t begin, end;
  bool stopped;
};

// The ATOMIC-REDUCE-ORDER candidate: the first unordered pair of
// floating-point reduces of one class in the sweep's order — by τ of the
// later task, then the position of its access, then the sweep's order within
// that access (segments by address, members in frontier order). The key
// does not depend on how the domains were split, so neither does the pair.
struct OrderCandidate {
  Overlap pair{0, kNone, 0, 0, 0};  // later_slice kNone: none yet
  u32 tau = 0, index = 0;
  bool precedes(u32 other_tau, u32 other_index) const {
    return pair.later_slice != kNone && (tau < other_tau || (tau == other_tau && index <= other_index));
  }
};

// The sweep over the domains of one shard (all of them when the stage runs
// on one thread). Everything a task learns is kept per domain: its answers
// (a member's order with the task), its partners toward the cap and its
// atomic pairs are forgotten when the task moves on to its accesses in
// another domain, so that what one domain's frontiers become never depends
// on another's — the condition for splitting domains into shards without
// changing a byte of the findings (docs/MEMCONFLICT.md, "Threads").
class Sweep {
 public:
  using Emit = std::function<void(u32 task, std::vector<Overlap>& overlaps, bool stopped)>;

  // `shard` kNone: every domain.
  Sweep(const SweepShared& sh, Reachability& reach, u32 shard, const Emit& emit)
      : sh_(sh), t_(sh.t), g_(sh.g), reach_(reach), opt_(sh.opt), task_of_slice_(sh.task_of_slice),
        written_(sh.written), flag_slice_(sh.flag_slice), shard_(shard), emit_(emit) {
    answer_turn_.assign(t_.tasks.size(), 0);
    answer_yes_.assign(t_.tasks.size(), 0);
  }

  void run() {
    for (u32 task : shard_ == kNone ? g_.order : sh_.shard_tasks[shard_]) {
      if (!sh_.accesses_of(task, accesses_)) continue;
      if (shard_ != kNone)
        std::erase_if(accesses_, [&](const Access& a) { return sh_.slice_shard[a.slice] != shard_; });
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
        sweep_domain(task);
      }
      if (!overlaps_.empty()) emit_(task, overlaps_, stopped_);
    }
  }

  const MemConflictStats& stats() const { return stats_; }
  const OrderCandidate& order_candidate() const { return order_warning_; }

 private:
  // The task's accesses in one domain (group_).
  void sweep_domain(u32 task) {
    forget_answers();
    if (opt_.all_pairs) {
      for (const Access& a : group_) find_in_history(task, a);
      for (const Access& a : group_) history_[a.domain].push_back(a);
    } else if (!self_overlap()) {
      // The usual case: each access alone decides its segments, so the
      // comparison with the frontier and its update share one pass.
      for (const Access& a : group_)
        domain(a.domain).update(a.begin, a.end, [&](u64 s, u64 e, Frontier& f) {
          compare(task, a, s, e, f);
          advance(task, a, f);
        });
    } else {
      // A task whose own accesses overlap: compare all of them with the
      // frontiers before any of them changes one.
      DomainMap& d = domain(group_.front().domain);
      for (const Access& a : group_)
        d.scan(a.begin, a.end, [&](u64 s, u64 e, const Frontier& f) { compare(task, a, s, e, f); });
      for (const Access& a : group_) d.update(a.begin, a.end, [&](u64, u64, Frontier& f) { advance(task, a, f); });
    }
  }

 private:
  // Whether task x happens before the current task (memoised per task).
  // A "no" counts x as a partner of the current task unless `partner` is
  // false (an atomic pair, which is not a conflict).
  bool before(u32 x, u32 current, bool partner = true) {
    if (x == current) return true;
    if (const bool* yes = answer(x)) return *yes;
    bool yes = reach_.happens_before(x, current);
    stats_.queries++;
    remember(x, yes, partner);
    return yes;
  }

  // The atomic class of the access `slice` (0 unless an SDMA reduce's
  // destination, and always 0 with --strict-reduce).
  u16 access_class(u32 slice) const {
    if (opt_.strict_reduce || !written_[slice]) return 0;
    return atomic_reduce_class(t_.tasks[task_of_slice_[slice]]);
  }

  // Whether x must stay in a frontier the current task joins (advance()):
  // it is not known ordered before the task. The comparison asked about
  // every member of the segment unless it stopped (saturated), so a member
  // with no answer is one it left unasked, and stays; advance() never asks.
  bool unordered_or_untested(u32 x, u32 current) const {
    if (x == current) return false;
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
  bool left_unasked(u32 x, u32 current) {
    if (!saturated() || x == current || answer(x)) return false;
    stopped_ = true;
    return true;
  }

  // The answers for the current task, in arrays indexed by task and
  // stamped with the task's turn: one load per look-up, and forgetting
  // them all is one increment. A task is looked up once per frontier member
  // it meets (in the comparison and in the update), and racing slots have
  // frontiers of thousands: a hash map of the answers was most of the
  // stage's time there.
  const bool* answer(u32 x) const {
    static constexpr bool kYes = true, kNo = false;
    if (answer_turn_[x] != turn_) return nullptr;
    return answer_yes_[x] ? &kYes : &kNo;
  }
  void remember(u32 x, bool yes, bool partner) {
    if (!yes && partner) ++partners_found_, ++segment_partners_;
    answer_turn_[x] = turn_;
    answer_yes_[x] = yes;
  }
  // Forgotten when the task moves to another domain (stopped_ is the task's).
  void forget_answers() {
    ++turn_;
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
  bool dominated(const Frontier& f, u32 task) {
    if (f.dom == kNone || f.writes.empty()) return false;
    if (f.dom == task) return true;
    if (const bool* yes = answer(f.dom)) return *yes;
    bool yes = reach_.happens_before(f.dom, task);
    stats_.queries++;
    if (yes) remember(f.dom, true, false);
    return yes;
  }

  // dominated() without a new question: the answer the comparison found.
  bool dominance_known(const Frontier& f, u32 task) const {
    if (f.dom == kNone || f.writes.empty()) return false;
    if (f.dom == task) return true;
    const bool* yes = answer(f.dom);
    return yes && *yes;
  }

  // Whether the member x of W is covered by the dominator (happens before
  // it by the invariant), given that the dominator happens before the task.
  bool covered(const Frontier& f, u32 x) const {
    u32 tx = task_of_slice_[x];
    return tx == f.dom || g_.tau[tx] < g_.tau[f.dom];
  }

  // Whether every member of W is known to happen before the current task,
  // without a new question (covered, or answered "yes"): a read that is
  // becomes the segment's dominator.
  bool after_all_writes(const Frontier& f, u32 task) const {
    bool dom = dominance_known(f, task);
    for (u32 x : f.writes) {
      if (dom && covered(f, x)) continue;
      u32 tx = task_of_slice_[x];
      if (tx == task) continue;
      const bool* yes = answer(tx);
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
  void compare(u32 task, const Access& a, u64 s, u64 e, const Frontier& f) {
    segment_partners_ = 0;
    auto check = [&](u32 x) {
      u32 tx = task_of_slice_[x];
      if (left_unasked(tx, task)) return;
      if (!before(tx, task)) overlaps_.push_back({x, a.slice, a.domain, s, e});
    };
    // Members covered by a dominator that happens before the task happen
    // before it too: none conflicts (and no pair of one atomic class is
    // unordered), so they need not be asked.
    bool dom = dominated(f, task);
    for (u32 x : f.writes) {
      if (dom && covered(f, x)) continue;
      if (a.flag && flag_slice_[x]) continue;
      if (a.cls && access_class(x) == a.cls)
        atomic_pair(task, a, x, s, e);
      else
        check(x);
    }
    if (a.write)
      for (u32 x : f.reads)
        if (!(a.flag && flag_slice_[x])) check(x);
  }

  // Two SDMA reduces of one class into the same bytes: not a conflict, the
  // engine applies each atomically. The current task asks about such a
  // member only to prune it from W (advance) and to find the first unordered
  // pair for the ATOMIC-REDUCE-ORDER warning. After partner_cap unordered
  // ones it stops asking: k reduces in parallel into one slot then cost
  // O(k·cap) queries, and a member left unasked stays in W, which is safe.
  void atomic_pair(u32 task, const Access& a, u32 x, u64 s, u64 e) {
    u32 tx = task_of_slice_[x];
    if (tx == task) return;
    bool ordered;
    if (const bool* yes = answer(tx)) {
      ordered = *yes;
    } else {
      if (saturated()) stopped_ = true;
      if (saturated() || atomic_found_ >= std::max(opt_.partner_cap, 1u)) return;
      ordered = before(tx, task, false);
      if (!ordered) {
        ++atomic_found_;
        stats_.atomic_pairs++;
      }
    }
    if (ordered || order_warning_.precedes(g_.tau[task], a.index)) return;
    if (is_floating(t_.tasks[task].data_type)) order_warning_ = {{x, a.slice, a.domain, s, e}, g_.tau[task], a.index};
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
  void advance(u32 task, const Access& a, Frontier& f) {
    auto unordered = [&](u32 x) { return unordered_or_untested(task_of_slice_[x], task); };
    if (a.flag) {
      // A flag access never stands in for a data access: a later flag
      // access is not compared with it, so the data access must stay. Of
      // the flag accesses it drops those known ordered before it.
      auto keep = [&](u32 x) { return !flag_slice_[x] || !known_before(task_of_slice_[x], task); };
      if (a.write) {
        f.writes.retain(keep);
        f.writes.insert(a.slice);
      } else {
        f.reads.retain(keep);
        f.reads.insert(a.slice);
      }
    } else if (a.write && a.cls) {
      bool dom = dominance_known(f, task);
      f.writes.retain([&](u32 x) {
        return access_class(x) != a.cls || !((dom && covered(f, x)) || known_before(task_of_slice_[x], task));
      });
      f.writes.insert(a.slice);
    } else if (a.write) {
      bool dom = dominance_known(f, task);
      f.writes.retain([&](u32 x) { return !(dom && covered(f, x)) && unordered(x); });
      f.writes.insert(a.slice);
      f.reads.retain(unordered);
    } else {
      f.reads.retain([&](u32 x) { return !known_before(task_of_slice_[x], task); });
      f.reads.insert(a.slice);
      // A newer dominator covers more of W.
      if (!f.writes.empty() && after_all_writes(f, task)) f.dom = task;
    }
  }

  bool known_before(u32 x, u32 current) {
    if (x == current) return true;
    if (const bool* yes = answer(x)) return *yes;
    return reach_.quick(x, current) == 1;
  }

  // --all-pairs: every earlier access of the domain is a candidate partner.
  // Cost grows with the number of earlier overlapping accesses (debug use).
  void find_in_history(u32 task, const Access& a) {
    auto it = history_.find(a.domain);
    if (it == history_.end()) return;
    for (const Access& h : it->second) {
      if (h.end <= a.begin || a.end <= h.begin || (!h.write && !a.write) || (h.flag && a.flag)) continue;
      if (a.cls && h.cls == a.cls) {
        atomic_pair(task, a, h.slice, std::max(h.begin, a.begin), std::min(h.end, a.end));
        continue;
      }
      u32 th = task_of_slice_[h.slice];
      if (!before(th, task))
        overlaps_.push_back({h.slice, a.slice, a.domain, std::max(h.begin, a.begin), std::min(h.end, a.end)});
    }
  }

  const SweepShared& sh_;
  const Trace& t_;
  const TaskGraph& g_;
  Reachability& reach_;
  const MemConflictOptions& opt_;
  const std::vector<u32>& task_of_slice_;
  const std::vector<u8>& written_;
  const std::vector<u8>& flag_slice_;
  u32 shard_;
  const Emit& emit_;
  MemConflictStats stats_;

  std::unordered_map<u64, DomainMap> domains_;  // node-based: pointers stay valid
  u64 last_key_ = 0;
  DomainMap* last_domain_ = nullptr;
  std::unordered_map<u64, std::vector<Access>> history_;
  std::vector<Access> accesses_;
  std::vector<Access> group_;  // the current task's accesses in one domain
  std::vector<u32> answer_turn_;  // per task: the turn_ of its answer (0: none yet)
  std::vector<u8> answer_yes_;
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
      : t_(sh.t), g_(sh.g), opt_(sh.opt), task_of_slice_(sh.task_of_slice), written_(sh.written), out_(out),
        pairs_(pairs) {}

  u64 pairs_reported = 0;

  void report(u32 later, std::vector<Overlap>& overlaps_, bool stopped_) {
    // Group by earlier task, in τ order; merge each pair's overlaps.
    std::sort(overlaps_.begin(), overlaps_.end(), [&](const Overlap& x, const Overlap& y) {
      u32 tx = g_.tau[task_of_slice_[x.earlier_slice]], ty = g_.tau[task_of_slice_[y.earlier_slice]];
      if (tx != ty) return tx < ty;
      // A total order: which shard found an overlap, or in what order,
      // does not change the finding.
      return std::tie(x.domain, x.begin, x.end, x.earlier_slice, x.later_slice) <
             std::tie(y.domain, y.begin, y.end, y.earlier_slice, y.later_slice);
    });
    std::vector<u32> partners;
    for (const Overlap& o : overlaps_) {
      u32 e = task_of_slice_[o.earlier_slice];
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
        if (task_of_slice_[o.earlier_slice] != earlier) continue;
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
                                                      written_[first->earlier_slice]));
      f.details.push_back("Later   : " + access_text(t_, later, first->later_slice,
                                                      written_[first->later_slice]));
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
    u32 earlier = task_of_slice_[o.earlier_slice], later = task_of_slice_[o.later_slice];
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
  const Trace& t_;
  const TaskGraph& g_;
  const MemConflictOptions& opt_;
  const std::vector<u32>& task_of_slice_;
  const std::vector<u8>& written_;
  FindingSink& out_;
  std::vector<ConflictPair>* pairs_;
};

// Splits the domains into at most `threads` shards of about equal weight
// (accesses): the heaviest first, each to the lightest shard so far, ties
// to the lower shard. Fills the shared tables; returns the number of shards
// (1: no split). How the domains are split changes no finding (Sweep).
unsigned plan_shards(SweepShared& sh, unsigned threads) {
  threads = std::min(threads, 64u);  // a shard is a bit of a task's mask while planning
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
  sh.slice_shard.resize(slices.size());
  std::vector<u64> task_shards(sh.t.tasks.size(), 0);  // bit s: the task touches shard s
  last = ~u64{0};
  u8 shard = 0;
  for (std::size_t i = 0; i < slices.size(); ++i) {
    u64 key = domain_key(slices[i]);
    if (key != last) shard = shard_of[key], last = key;
    sh.slice_shard[i] = shard;
    if (sh.task_of_slice[i] != kNone) task_shards[sh.task_of_slice[i]] |= u64{1} << shard;
  }
  sh.shard_tasks.assign(shards, {});
  for (u32 task : sh.g.order)
    for (u64 bits = task_shards[task]; bits; bits &= bits - 1) sh.shard_tasks[std::countr_zero(bits)].push_back(task);
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
  ShardedSweeps(const Trace& trace, const TaskGraph& graph, Reachability& reach, const MemConflictOptions& options,
                unsigned pieces, FindingSink& out, std::vector<ConflictPair>* pairs)
      : opt_(options), shared_(trace, graph, opt_), reporter_(shared_, out, pairs), reach_(reach) {
    shards_ = plan_shards(shared_, pieces);
    outcome_.resize(shards_);
    // The forks are made here, before piece 0 changes `reach` (it may build τ2).
    for (u32 s = 1; s < shards_; ++s) forks_.push_back(std::make_unique<Reachability>(reach, Reachability::Fork{}));
  }

  unsigned pieces() const override { return shards_; }

  void run(unsigned piece) override {
    ShardOutcome& o = outcome_[piece];
    Reachability& r = piece == 0 ? reach_ : *forks_[piece - 1];
    Sweep::Emit emit = [&](u32 task, std::vector<Overlap>& found, bool stopped) {
      if (shards_ == 1) return reporter_.report(task, found, stopped);
      o.tasks.push_back({task, o.overlaps.size(), o.overlaps.size() + found.size(), stopped});
      o.overlaps.insert(o.overlaps.end(), found.begin(), found.end());
    };
    Sweep sweep(shared_, r, shards_ == 1 ? kNone : piece, emit);
    sweep.run();
    o.stats = sweep.stats();
    if (piece != 0) o.stats.scanned = r.scanned();
    o.warning = sweep.order_candidate();
  }

  void finish(MemConflictStats* stats) override {
    if (shards_ > 1) merge();
    OrderCandidate warning;
    for (const ShardOutcome& o : outcome_) {
      const OrderCandidate& c = o.warning;
      if (c.pair.later_slice != kNone && !warning.precedes(c.tau, c.index)) warning = c;
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
  void merge() {
    std::vector<std::size_t> next(shards_, 0);
    std::vector<Overlap> merged;
    for (;;) {
      u32 task = kNone;
      for (u32 s = 0; s < shards_; ++s)
        if (next[s] < outcome_[s].tasks.size()) {
          u32 t = outcome_[s].tasks[next[s]].task;
          if (task == kNone || shared_.g.tau[t] < shared_.g.tau[task]) task = t;
        }
      if (task == kNone) break;
      merged.clear();
      bool stopped = false;
      for (u32 s = 0; s < shards_; ++s) {
        if (next[s] >= outcome_[s].tasks.size() || outcome_[s].tasks[next[s]].task != task) continue;
        const TaskConflicts& c = outcome_[s].tasks[next[s]++];
        merged.insert(merged.end(), outcome_[s].overlaps.begin() + static_cast<std::ptrdiff_t>(c.begin),
                      outcome_[s].overlaps.begin() + static_cast<std::ptrdiff_t>(c.end));
        stopped |= c.stopped;
      }
      reporter_.report(task, merged, stopped);
    }
  }

  MemConflictOptions opt_;  // SweepShared keeps a reference to it
  SweepShared shared_;
  Reporter reporter_;
  Reachability& reach_;
  unsigned shards_ = 1;
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

std::unique_ptr<MemConflictSweeps> plan_mem_conflict(const Trace& trace, const TaskGraph& graph, Reachability& reach,
                                                     const MemConflictOptions& options, unsigned pieces,
                                                     FindingSink& out, std::vector<ConflictPair>* pairs) {
  return std::make_unique<ShardedSweeps>(trace, graph, reach, options, pieces, out, pairs);
}

void check_mem_conflict(const Trace& trace, const TaskGraph& graph, Reachability& reach,
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
  auto sweeps = plan_mem_conflict(trace, graph, reach, options, threads, out, pairs);
  run_parts(threads, sweeps->pieces(), [&](unsigned p) { sweeps->run(p); });
  sweeps->finish(stats);
}

}  // namespace cc
