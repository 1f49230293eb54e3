// Launches, validation and nodes (aiv.md §2, §4.1, §4.3, §4.5–§4.8, §5):
// every AIV_GRAPH record finds its snapshot; a usable snapshot becomes
// lanes of nodes, merged barrier and SyncAll nodes, interned pipe events
// and flag cells. A 107, 105 or 111 leaves the launch an empty kernel.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "aiv/engine.h"
#include "model/describe.h"

namespace cc::aiv {

std::string Engine::launch_name(const Launch& l) const {
  return fmt::format("AIV rank {} launch {}", l.rank, l.launch);
}

Finding Engine::launch_finding(u16 code, const Launch& l, std::string message) const {
  Finding f = make_finding(code, StageTag::GenGraph, std::move(message));
  if (code == 0) f.severity = Severity::Warning;
  if (l.snapshot != kNone) {
    const AivSnapshot& s = trace.aiv.snapshots[l.snapshot];
    f.details.push_back("Snapshot : " + s.where(trace.file));
  }
  f.details.push_back("Launch   : " + task_line(trace, l.placeholder));
  f.tasks.push_back(l.placeholder);
  return f;
}

std::string Engine::name(u32 n) const {
  const Node& nd = nodes[n];
  const Launch& l = launches[nd.launch];
  const AivNodeInfo& i = nd.info;
  switch (i.kind) {
    case AivNodeKind::Start:
      return fmt::format("rank{} L{} START", l.rank, l.launch);
    case AivNodeKind::End:
      return fmt::format("rank{} L{} END", l.rank, l.launch);
    case AivNodeKind::Barrier:
    case AivNodeKind::SyncAll: {
      const AivGroup& g = l.groups[i.group];
      std::string m;
      for (const AivMember& x : g.members)
        m += fmt::format("{}L{}.b{}.{}[{}]", m.empty() ? "" : ", ", l.launch, x.block, aiv_pipe_name(x.pipe), x.pos);
      return fmt::format("rank{} {}({})", l.rank, i.kind == AivNodeKind::Barrier ? "BARRIER" : "SYNCALL", m);
    }
    default:
      return fmt::format("rank{} L{}.b{}.{}[{}]", l.rank, l.launch, i.block, aiv_pipe_name(i.pipe), i.pos);
  }
}

namespace {

// Where a snapshot task sits, for messages: "L0.b1.MTE2[3] (taskId 7)".
std::string task_where(const Launch& l, const AivCore& c, u32 pipe, u32 k, const AivTask& t) {
  return fmt::format("L{}.b{}.{}[{}] (taskId {})", l.launch, c.block, aiv_pipe_name(pipe), k, t.id);
}

struct Ref {
  u32 core = 0, pipe = 0, pos = 0;
};

// taskId -> where the task sits, as a sorted array (a snapshot holds
// thousands of tasks; a tree would allocate one node each).
class IdIndex {
 public:
  void clear() { v_.clear(); }
  void add(u32 id, Ref r) { v_.push_back({id, r}); }
  // Sorts; `dup(earlier, later)` for every task whose id an earlier one has.
  template <typename F>
  void finish(F&& dup) {
    std::stable_sort(v_.begin(), v_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t out = 0;
    for (std::size_t i = 0; i < v_.size(); ++i) {
      if (out > 0 && v_[out - 1].first == v_[i].first) {
        dup(v_[out - 1].second, v_[i].second);
        continue;
      }
      v_[out++] = v_[i];
    }
    v_.resize(out);
  }
  const Ref* find(u32 id) const {
    auto it = std::lower_bound(v_.begin(), v_.end(), id, [](const auto& e, u32 x) { return e.first < x; });
    return it != v_.end() && it->first == id ? &it->second : nullptr;
  }
  const Ref& at(u32 id) const { return *find(id); }
  auto begin() const { return v_.begin(); }
  auto end() const { return v_.end(); }

 private:
  std::vector<std::pair<u32, Ref>> v_;
};

class Builder {
 public:
  explicit Builder(Engine& en) : en_(en), t_(en.trace) {}

  // `no_buffers`: the trace's buffer table is full (65535 types), so CCL
  // or AIV_COMM has no id: no launch can be expanded.
  void run(bool no_buffers) {
    collect();
    check_sizes();
    u64 tasks = 0;
    for (const Launch& l : en_.launches)
      if (l.snapshot != kNone)
        for (const AivCore& c : t_.aiv.snapshots[l.snapshot].cores)
          for (const auto& lane : c.lanes) tasks += lane.size();
    en_.nodes.reserve(tasks + 2 * en_.launches.size());
    for (u32 li = 0; li < en_.launches.size(); ++li) {
      Launch& l = en_.launches[li];
      if (l.snapshot != kNone && no_buffers) {
        en_.findings.push_back(en_.launch_finding(
            111, l, fmt::format("{}: the trace already has 65535 buffer types; CCL and AIV_COMM cannot be added.",
                                en_.launch_name(l))));
      } else if (l.snapshot != kNone) {
        l.usable = validate(l);
      }
      make_nodes(li);
    }
  }

 private:
  // §2: every AIV_GRAPH record and its snapshot, launches in task order.
  void collect() {
    std::map<std::pair<u32, u64>, u32> snap;
    for (u32 i = 0; i < t_.aiv.snapshots.size(); ++i) snap.emplace(std::pair(t_.aiv.snapshots[i].rank, t_.aiv.snapshots[i].launch), i);
    std::vector<u8> used(t_.aiv.snapshots.size(), 0);
    std::map<std::pair<u32, u64>, u32> seen;  // (rank, launch) -> launch
    std::map<std::pair<u32, u32>, u32> ordinal;
    for (u32 id = 0; id < t_.tasks.size(); ++id) {
      const Task& k = t_.tasks[id];
      if (k.type != TaskType::AIV_GRAPH || (k.flags & kTaskAiv)) continue;
      Launch l;
      l.rank = k.rank;
      l.placeholder = id;
      l.host_stream = k.stream;
      l.ordinal = ordinal[{k.rank, k.stream}]++;
      l.record = k.notify() < t_.aiv.records.size() ? k.notify() : kNone;
      l.launch = l.record != kNone ? t_.aiv.records[l.record].launch : 0;
      en_.launches.push_back(l);
      Launch& me = en_.launches.back();
      if (me.record == kNone) {
        en_.findings.push_back(en_.launch_finding(107, me, "AIV_GRAPH record without a launch index."));
        continue;
      }
      auto [it, first] = seen.emplace(std::pair(me.rank, me.launch), static_cast<u32>(en_.launches.size() - 1));
      if (!first) {
        en_.findings.push_back(en_.launch_finding(
            105, me,
            fmt::format("{}: a second AIV_GRAPH record of this launch (the first is {}); launch indices are never "
                        "reused by a process, so this one is expanded as an empty kernel.",
                        en_.launch_name(me), task_position(t_, en_.launches[it->second].placeholder))));
        continue;
      }
      auto s = snap.find({me.rank, me.launch});
      if (s == snap.end()) {
        if (!t_.aiv.records[me.record].carried)
          en_.findings.push_back(en_.launch_finding(
              107, me,
              fmt::format("{}: no snapshot (the trace has no \"aiv\" line with rank {} and launchIndex {}); the "
                          "launch is expanded as an empty kernel.",
                          en_.launch_name(me), me.rank, me.launch)));
        continue;
      }
      me.snapshot = s->second;
      used[s->second] = 1;
    }
    for (u32 i = 0; i < t_.aiv.snapshots.size(); ++i) {
      if (used[i]) continue;
      const AivSnapshot& s = t_.aiv.snapshots[i];
      Finding f = make_finding(0, StageTag::GenGraph,
                               fmt::format("The snapshot of rank {} launch {} ({}) belongs to no AIV_GRAPH task: it is "
                                           "ignored.",
                                           s.rank, s.launch, s.where(t_.file)));
      f.tag = "AIV-W-UNUSED-SNAPSHOT";
      f.severity = Severity::Warning;
      en_.findings.push_back(std::move(f));
    }
  }

  // 106 (aiv.md §5): rankSize against the operator; UB and AIV_COMM sizes
  // against the first non-zero value among the op group's snapshots.
  void check_sizes() {
    std::vector<u32> order;
    for (u32 li = 0; li < en_.launches.size(); ++li)
      if (en_.launches[li].snapshot != kNone) order.push_back(li);
    std::sort(order.begin(), order.end(), [&](u32 a, u32 b) {
      const Launch &x = en_.launches[a], &y = en_.launches[b];
      return std::pair(x.rank, x.launch) < std::pair(y.rank, y.launch);
    });
    const AivSnapshot* first_ub = nullptr;
    const AivSnapshot* first_comm = nullptr;
    for (u32 li : order) {
      const Launch& l = en_.launches[li];
      const AivSnapshot& s = t_.aiv.snapshots[l.snapshot];
      if (!s.problems.empty()) continue;
      if (s.rank_size && t_.op.ranks && s.rank_size != t_.op.ranks)
        en_.findings.push_back(en_.launch_finding(
            106, l,
            fmt::format("{}: the snapshot's rankSize {} differs from the operator's {} ranks.", en_.launch_name(l),
                        s.rank_size, t_.op.ranks)));
      auto compare = [&](u64 v, const AivSnapshot*& first, const char* key) {
        if (!v) return;
        if (!first) {
          first = &s;
          return;
        }
        u64 w = std::string_view(key) == "ubBufferSize" ? first->ub_size : first->comm_size;
        if (w != v)
          en_.findings.push_back(en_.launch_finding(
              106, l,
              fmt::format("{}: {} {} differs from {} in the snapshot of rank {} launch {} (the first non-zero value "
                          "of the op group).",
                          en_.launch_name(l), key, v, w, first->rank, first->launch)));
      };
      compare(s.ub_size, first_ub, "ubBufferSize");
      compare(s.comm_size, first_comm, "aivCommInfoSize");
    }
  }

  // 107, 105, 111 and the groups' 104/105 (aiv.md §5, §4.6, §4.7). True when
  // the launch can be expanded.
  bool validate(Launch& l) {
    const AivSnapshot& s = t_.aiv.snapshots[l.snapshot];
    if (!s.problems.empty()) {
      for (const AivProblem& p : s.problems)
        en_.findings.push_back(en_.launch_finding(
            p.code, l, fmt::format("{}: snapshot {}: {}.", en_.launch_name(l), s.where(t_.file), p.message)));
      return false;
    }
    bool ok = true;
    auto fail = [&](u16 code, std::string msg) {
      en_.findings.push_back(en_.launch_finding(code, l, fmt::format("{}: {}", en_.launch_name(l), msg)));
      if (code == 105 || code == 111) ok = false;
    };
    std::map<u32, u32> block_at;
    for (u32 c = 0; c < s.cores.size(); ++c) {
      auto [it, added] = block_at.emplace(s.cores[c].block, c);
      if (!added)
        fail(105, fmt::format("aivCores[{}] and aivCores[{}] both have blockIdx {}.", it->second, c, s.cores[c].block));
    }
    // Tasks: ids, redundant fields, kinds and their values.
    ids_.clear();
    u32 lane_warnings = 0;
    std::string first_lane_warning;
    for (u32 c = 0; c < s.cores.size(); ++c) {
      const AivCore& core = s.cores[c];
      for (u32 p = 0; p < kAivPipes; ++p)
        for (u32 k = 0; k < core.lanes[p].size(); ++k) {
          const AivTask& t = core.lanes[p][k];
          ids_.add(t.id, Ref{c, p, k});
          auto w = [&] { return task_where(l, core, p, k, t); };  // built only for a message
          if (t.rank_id && *t.rank_id != s.rank)
            fail(105, fmt::format("{} says rankId {}, but the snapshot is rank {}'s.", w(), *t.rank_id, s.rank));
          if (t.block_id && *t.block_id != core.block)
            fail(105, fmt::format("{} says blockId {}, but sits in the core of blockIdx {}.", w(), *t.block_id, core.block));
          if (t.cur_pipe && *t.cur_pipe != p)
            fail(105, fmt::format("{} says curPipe {}, but sits in the {} list.", w(), *t.cur_pipe, aiv_pipe_name(p)));
          if (t.type >= kAivTaskTypes) {
            fail(111, fmt::format("{} has taskType {}, which is not an AIV task kind (0-7).", w(), t.type));
            continue;
          }
          switch (static_cast<AivTaskType>(t.type)) {
            case AivTaskType::Reduce:
              if (!hccl_reduce_op(t.reduce_op))
                fail(111, fmt::format("{} has reduceOp {} (SUM 0, PROD 1, MAX 2, MIN 3).", w(), t.reduce_op));
              if (!hccl_data_type(t.data_type))
                fail(111, fmt::format("{} has dataType {}, not an HCCL data type collcheck knows.", w(), t.data_type));
              [[fallthrough]];
            case AivTaskType::MemCopy:
              for (auto [sl, side] : {std::pair{&t.src, "src"}, {&t.dst, "dst"}})
                if (sl->buffer >= kAivBufferTypes)
                  fail(111, fmt::format("{} {} has bufferType {} (INPUT 0 … AIV_COMM 4).", w(), side, sl->buffer));
              break;
            case AivTaskType::SetFlag:
            case AivTaskType::WaitFlag: {
              bool set = t.type == 2;
              if (t.src_pipe >= kAivPipes || t.dst_pipe >= kAivPipes || t.src_pipe == t.dst_pipe) {
                fail(111, fmt::format("{} is an event from pipe {} to pipe {}: both must be S, MTE2 or MTE3 (0-2) and "
                                      "differ.",
                                      w(), t.src_pipe, t.dst_pipe));
                break;
              }
              if ((set ? t.src_pipe : t.dst_pipe) != p) {
                if (lane_warnings++ == 0)
                  first_lane_warning = fmt::format("{} {} {}→{} #{} sits in the {} list, not its {} pipe's", w(),
                                                   set ? "SetFlag" : "WaitFlag", aiv_pipe_name(t.src_pipe),
                                                   aiv_pipe_name(t.dst_pipe), t.event, aiv_pipe_name(p),
                                                   set ? "source" : "destination");
              }
              break;
            }
            case AivTaskType::PipeBarrier:
              if (t.pipe_type > kAivPipeAll)
                fail(111, fmt::format("{} is a pipe barrier of pipeType {} (0-3).", w(), t.pipe_type));
              break;
            default:
              break;
          }
        }
    }
    ids_.finish([&](const Ref& a, const Ref& b) {
      const AivTask& ta = s.cores[a.core].lanes[a.pipe][a.pos];
      const AivTask& tb = s.cores[b.core].lanes[b.pipe][b.pos];
      fail(105, fmt::format("{} has the taskId of {}; task ids must be unique in a snapshot.",
                            task_where(l, s.cores[b.core], b.pipe, b.pos, tb),
                            task_where(l, s.cores[a.core], a.pipe, a.pos, ta)));
    });
    if (lane_warnings) {
      Finding f = en_.launch_finding(
          0, l,
          fmt::format("{}: {}{}; the event is matched by its key as written.", en_.launch_name(l), first_lane_warning,
                      lane_warnings > 1 ? fmt::format(" (and {} more such events)", lane_warnings - 1) : ""));
      f.tag = "AIV-W-EVENT-LANE";
      en_.findings.push_back(std::move(f));
    }
    if (!ok) return false;
    // Unified buffers of the blocks (one memory each).
    ub_.assign(s.cores.size(), kNoBuf);
    for (u32 c = 0; c < s.cores.size(); ++c) {
      BufId b = t_.buffers.intern(fmt::format("AIV_UB(launch {}, block {})", l.launch, s.cores[c].block));
      if (b == kNoBuf) {
        fail(111, "more unified buffers (launch, block) than collcheck can tell apart (65535 buffer types).");
        return false;
      }
      ub_[c] = b;
      en_.own_buffers.push_back(b);
    }
    return groups(l, s) && ok;
  }

  // Barrier groups (§4.6) and SyncAll rounds (§4.7) of a snapshot whose
  // task ids are unique. Fills l.groups and group_of_.
  bool groups(Launch& l, const AivSnapshot& s) {
    bool ok = true;
    auto fail = [&](u16 code, std::string msg) {
      en_.findings.push_back(en_.launch_finding(code, l, fmt::format("{}: {}", en_.launch_name(l), msg)));
      if (code == 105 || code == 111) ok = false;
    };
    group_of_.clear();
    // Union-find over the barrier tasks, by task id.
    std::map<u32, u32> parent;
    std::function<u32(u32)> root = [&](u32 x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    auto task = [&](u32 id) -> const AivTask& {
      const Ref& r = ids_.at(id);
      return s.cores[r.core].lanes[r.pipe][r.pos];
    };
    for (const auto& [id, r] : ids_)
      if (task(id).type == 4) parent[id] = id;
    for (const auto& [id, r] : ids_) {
      const AivTask& t = task(id);
      if (t.type != 4) continue;
      for (u32 other : t.group) {
        auto it = parent.find(other);
        if (it == parent.end()) {
          fail(104, fmt::format("{} lists taskId {} as a member of its barrier, but {}; the barrier is a rendezvous "
                                "of the members that exist.",
                                task_where(l, s.cores[r.core], r.pipe, r.pos, t), other,
                                ids_.find(other) ? "that task is not a PIPE_BARRIER" : "the snapshot has no such task"));
          continue;
        }
        u32 a = root(id), b = root(other);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
      }
    }
    std::map<u32, std::vector<u32>> barrier;  // root -> member ids (ascending)
    for (const auto& [id, p] : parent) barrier[root(id)].push_back(id);
    for (const auto& [rt, members] : barrier) {
      AivGroup g;
      g.sync_all = false;
      const AivTask& first = task(members.front());
      g.value = first.pipe_type;
      std::set<std::pair<u32, u32>> lanes;
      std::set<u32> blocks;
      std::string names;
      for (u32 id : members) {
        const Ref& r = ids_.at(id);
        const AivTask& t = task(id);
        std::string w = task_where(l, s.cores[r.core], r.pipe, r.pos, t);
        names += (names.empty() ? "" : ", ") + w;
        if (!lanes.emplace(r.core, r.pipe).second)
          fail(105, fmt::format("barrier member {} is the second member on its lane.", w));
        blocks.insert(r.core);
        if (t.pipe_type != g.value)
          fail(105, fmt::format("barrier member {} has pipeType {}, but {} has {}.", w, t.pipe_type,
                                task_where(l, s.cores[ids_.at(members.front()).core], ids_.at(members.front()).pipe,
                                           ids_.at(members.front()).pos, first),
                                g.value));
        g.members.push_back({s.cores[r.core].block, r.core, static_cast<u8>(r.pipe), r.pos, id});
      }
      if (blocks.size() > 1) fail(105, fmt::format("the barrier {{{}}} spans several blocks.", names));
      if (g.value == kAivPipeAll) {
        for (u32 p = 0; p < kAivPipes; ++p)
          if (std::none_of(lanes.begin(), lanes.end(), [&](auto x) { return x.second == p; }))
            fail(104, fmt::format("the PIPE_ALL barrier {{{}}} has no member on pipe {}.", names, aiv_pipe_name(p)));
      } else if (g.value < kAivPipes) {
        if (members.size() > 1)
          fail(105, fmt::format("the {} barrier {{{}}} has {} members; a one-pipe barrier has one.",
                                aiv_pipe_name(g.value), names, members.size()));
        for (const AivMember& m : g.members)
          if (m.pipe != g.value)
            fail(105, fmt::format("the {} barrier {} sits in the {} list.", aiv_pipe_name(g.value), names,
                                  aiv_pipe_name(m.pipe)));
      }
      u32 gi = static_cast<u32>(l.groups.size());
      for (u32 id : members) group_of_[id] = gi;
      l.groups.push_back(std::move(g));
    }
    // SyncAll rounds.
    std::map<u32, std::vector<u32>> rounds;
    for (const auto& [id, r] : ids_)
      if (task(id).type == 5) rounds[task(id).round].push_back(id);
    for (auto& [round, members] : rounds) {
      std::sort(members.begin(), members.end(), [&](u32 a, u32 b) {
        const Ref &x = ids_.at(a), &y = ids_.at(b);
        return std::tie(x.core, x.pipe, x.pos) < std::tie(y.core, y.pipe, y.pos);
      });
      AivGroup g;
      g.sync_all = true;
      g.value = round;
      std::map<std::pair<u32, u32>, u32> at;
      for (u32 id : members) {
        const Ref& r = ids_.at(id);
        auto [it, added] = at.emplace(std::pair(r.core, r.pipe), id);
        if (!added) {
          const Ref& o = ids_.at(it->second);
          fail(105, fmt::format("SyncAll round {} has two members on lane b{}.{}: {} and {}.", round,
                                s.cores[r.core].block, aiv_pipe_name(r.pipe),
                                task_where(l, s.cores[o.core], o.pipe, o.pos, task(it->second)),
                                task_where(l, s.cores[r.core], r.pipe, r.pos, task(id))));
        }
        g.members.push_back({s.cores[r.core].block, r.core, static_cast<u8>(r.pipe), r.pos, id});
      }
      for (u32 c = 0; c < s.cores.size(); ++c)
        for (u32 p = 0; p < kAivPipes; ++p)
          if (!at.count({c, p}))
            fail(104, fmt::format("SyncAll round {} has no member on block {} pipe {}; the round is a rendezvous of "
                                  "the members that exist.",
                                  round, s.cores[c].block, aiv_pipe_name(p)));
      u32 gi = static_cast<u32>(l.groups.size());
      for (u32 id : members) group_of_[id] = gi;
      l.groups.push_back(std::move(g));
    }
    return ok;
  }

  BufId buffer_of(const Launch& l, u32 core, u32 type) {
    switch (type) {
      case kAivInput: return kInput;
      case kAivOutput: return t_.op.in_place ? kInput : kOutput;
      case kAivCcl: return en_.ccl_buf;
      case kAivUb: return ub_[core];
      default: return en_.comm_buf;
    }
    (void)l;
  }

  u32 new_node(u32 li, AivNodeKind kind) {
    Node n;
    n.launch = li;
    n.info.kind = kind;
    en_.nodes.push_back(std::move(n));
    return static_cast<u32>(en_.nodes.size() - 1);
  }

  u32 cell(u32 owner, u64 offset) {
    auto [it, added] = en_.cell_of.emplace(std::pair(owner, offset), static_cast<u32>(en_.cells.size()));
    if (added) {
      Cell c;
      c.owner = owner;
      c.offset = offset;
      en_.cells.push_back(std::move(c));
    }
    return it->second;
  }

  u32 event_key(u32 li, u32 core, const AivTask& t) {
    auto key = std::make_tuple(li, core, t.src_pipe, t.dst_pipe, t.event);
    auto [it, added] = event_of_.emplace(key, static_cast<u32>(en_.events.size()));
    if (added) {
      EventKey e;
      e.launch = li;
      e.block_pos = core;
      e.src_pipe = t.src_pipe;
      e.dst_pipe = t.dst_pipe;
      e.event = t.event;
      en_.events.push_back(std::move(e));
    }
    return it->second;
  }

  // §4.1: START, the lanes in (block, pipe) order (a merged node where its
  // first member is met), END.
  void make_nodes(u32 li) {
    Launch& l = en_.launches[li];
    l.start = new_node(li, AivNodeKind::Start);
    if (l.usable) {
      const AivSnapshot& s = t_.aiv.snapshots[l.snapshot];
      std::vector<u32> group_node(l.groups.size(), kNone);
      for (u32 c = 0; c < s.cores.size(); ++c) {
        const AivCore& core = s.cores[c];
        for (u32 p = 0; p < kAivPipes; ++p) {
          if (core.lanes[p].empty()) continue;
          u32 lane_id = static_cast<u32>(en_.lanes.size());
          Lane lane;
          lane.launch = li;
          lane.block = core.block;
          lane.block_pos = c;
          lane.pipe = static_cast<u8>(p);
          lane.nodes.reserve(core.lanes[p].size());
          for (u32 k = 0; k < core.lanes[p].size(); ++k) {
            const AivTask& t = core.lanes[p][k];
            if (t.type == 4 || t.type == 5) {
              auto g = group_of_.find(t.id);
              if (g == group_of_.end()) continue;  // cannot happen: every barrier/SyncAll task is grouped
              u32& gn = group_node[g->second];
              if (gn == kNone) {
                gn = new_node(li, t.type == 4 ? AivNodeKind::Barrier : AivNodeKind::SyncAll);
                Node& n = en_.nodes[gn];
                n.info.group = g->second;
                n.info.block = core.block;
                n.info.block_pos = c;
                n.info.pipe = static_cast<u8>(p);
                n.info.pos = k;
                n.type = TaskType::AIV_GRAPH;
              }
              en_.nodes[gn].member_lanes.push_back(lane_id);
              lane.nodes.push_back(gn);
              continue;
            }
            u32 id = new_node(li, AivNodeKind::Copy);
            Node& n = en_.nodes[id];
            n.info.block = core.block;
            n.info.block_pos = c;
            n.info.pipe = static_cast<u8>(p);
            n.info.pos = k;
            n.info.task_id = t.id;
            switch (static_cast<AivTaskType>(t.type)) {
              case AivTaskType::MemCopy:
              case AivTaskType::Reduce:
                n.info.kind = t.type == 0 ? AivNodeKind::Copy : AivNodeKind::Reduce;
                n.type = t.type == 0 ? TaskType::TRANS_MEM : TaskType::REDUCE;
                // A UB slice is the executing block's memory whatever rank it
                // names (aiv.md §4.3; another rank is 201 in stage 2).
                n.src = Slice{t.src.offset, t.src.size, t.src.buffer == kAivUb ? l.rank : t.src_rank,
                              buffer_of(l, c, t.src.buffer)};
                n.dst = Slice{t.dst.offset, t.dst.size, t.dst.buffer == kAivUb ? l.rank : t.dst_rank,
                              buffer_of(l, c, t.dst.buffer)};
                n.data_type = t.type == 1 ? *hccl_data_type(t.data_type) : t_.op.data_type;
                n.reduce_op = t.type == 1 ? *hccl_reduce_op(t.reduce_op) : t_.op.reduce_op;
                break;
              case AivTaskType::SetFlag:
              case AivTaskType::WaitFlag: {
                bool set = t.type == 2;
                n.info.kind = set ? AivNodeKind::EventSet : AivNodeKind::EventWait;
                n.type = set ? TaskType::RECORD : TaskType::WAIT;
                n.flags = kTaskPrematched;
                n.info.src_pipe = t.src_pipe;
                n.info.dst_pipe = t.dst_pipe;
                n.info.event = t.event;
                n.info.event_key = event_key(li, c, t);
                if (set) en_.events[n.info.event_key].sets.push_back(id);
                break;
              }
              case AivTaskType::SendFlag:
              case AivTaskType::RecvFlag: {
                bool set = t.type == 6;
                n.info.kind = set ? AivNodeKind::FlagSet : AivNodeKind::FlagWait;
                n.type = set ? TaskType::RECORD : TaskType::WAIT;
                n.flags = kTaskPrematched;
                n.info.owner = t.flag_rank;
                n.info.offset = t.offset;
                n.info.value = t.value;
                n.info.cell = cell(t.flag_rank, t.offset);
                if (set) en_.cells[n.info.cell].setters.push_back(id);
                break;
              }
              default:
                break;
            }
            lane.nodes.push_back(id);
          }
          if (lane.nodes.empty()) continue;
          l.lanes.push_back(lane_id);
          en_.lanes.push_back(std::move(lane));
        }
      }
    }
    l.end = new_node(li, AivNodeKind::End);
  }

  Engine& en_;
  Trace& t_;
  IdIndex ids_;                      // taskId -> where (current snapshot)
  std::unordered_map<u32, u32> group_of_;  // taskId -> group (current launch)
  std::vector<BufId> ub_;                  // per core (current launch)
  // (launch, block, srcPipe, dstPipe, eventId) -> event key
  std::map<std::tuple<u32, u32, u32, u32, i32>, u32> event_of_;
};

}  // namespace

void build(Engine& en) {
  Trace& t = en.trace;
  en.ccl_buf = t.buffers.intern("CCL");
  en.comm_buf = t.buffers.intern("AIV_COMM");
  if (en.comm_buf != kNoBuf) en.own_buffers.push_back(en.comm_buf);
  Builder b(en);
  b.run(en.ccl_buf == kNoBuf || en.comm_buf == kNoBuf);
}

}  // namespace cc::aiv
