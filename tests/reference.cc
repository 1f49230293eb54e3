#include "reference.h"

#include <algorithm>

#include "check/single_task.h"

namespace cc::test {

namespace {

// Written from the model's definition, not through TaskGraph's chains: a
// stream edge i -> i+1 exists unless i+1 is unchained.
std::vector<std::vector<u32>> successors(const Trace& t, const TaskGraph& g) {
  std::vector<std::vector<u32>> succ(t.tasks.size());
  for (const Stream& s : t.streams)
    for (u32 i = s.first_task; i + 1 < s.first_task + s.task_count; ++i)
      if (!(t.tasks[i + 1].flags & kTaskUnchained)) succ[i].push_back(i + 1);
  for (u32 i = 0; i < t.tasks.size(); ++i)
    if (t.tasks[i].type == TaskType::RECORD && g.partner[i] != kNone) succ[i].push_back(g.partner[i]);
  for (auto [a, b] : t.extra_edges) succ[a].push_back(b);
  return succ;
}

}  // namespace

ReferenceReach::ReferenceReach(const Trace& t, const TaskGraph& g) {
  u32 n = static_cast<u32>(t.tasks.size());
  auto succ = successors(t, g);
  std::vector<u32> indeg(n, 0), order;
  for (u32 i = 0; i < n; ++i)
    for (u32 j : succ[i]) indeg[j]++;
  for (u32 i = 0; i < n; ++i)
    if (!indeg[i]) order.push_back(i);
  for (std::size_t k = 0; k < order.size(); ++k)
    for (u32 j : succ[order[k]])
      if (--indeg[j] == 0) order.push_back(j);
  acyclic_ = order.size() == n;
  bits_.assign(n, std::vector<u64>((n + 63) / 64, 0));
  // Reverse topological order: a node reaches its successors and theirs.
  for (std::size_t k = order.size(); k-- > 0;) {
    u32 v = order[k];
    for (u32 w : succ[v]) {
      bits_[v][w / 64] |= u64{1} << (w % 64);
      for (std::size_t x = 0; x < bits_[v].size(); ++x) bits_[v][x] |= bits_[w][x];
    }
  }
}

std::set<std::pair<u32, u32>> reference_conflicts(const Trace& t, const TaskGraph& g,
                                                  const ReferenceReach& r, bool strict_reduce,
                                                  std::set<std::pair<u32, u32>>* atomic,
                                                  std::set<std::pair<u32, u32>>* atomic_fp) {
  struct Acc {
    u32 task;
    Slice s;
    bool write;
  };
  // Written out again rather than calling the stage's helper, so that the
  // reference does not share a mistake with it.
  auto sdma_reduce = [&](u32 task) {
    const Task& k = t.tasks[task];
    return !strict_reduce && (k.type == TaskType::REDUCE || k.type == TaskType::BATCH_REDUCE) &&
           (k.link == Link::SDMA || k.link == Link::RDMA || k.link == Link::AIV);
  };
  std::vector<Acc> acc;
  // AIV flag operations (aiv.md §6.3): 4 bytes of their cell in the owner's
  // AIV_COMM, a write (SendFlag) or a read (RecvFlag); never against each other.
  std::set<u32> flag_tasks;
  for (const AivLaunch& l : t.aiv.launches) {
    u32 first = kNone;
    for (const Stream& s : t.streams)
      if (s.rank == l.rank && s.id == l.stream) first = s.first_task;
    auto comm = t.buffers.ids.find("AIV_COMM");
    if (first == kNone || comm == t.buffers.ids.end()) continue;
    for (u32 i = 0; i < l.nodes.size(); ++i) {
      const AivNodeInfo& n = l.nodes[i];
      if (n.kind != AivNodeKind::FlagSet && n.kind != AivNodeKind::FlagWait) continue;
      acc.push_back({first + i, Slice{n.offset, 4, n.owner, comm->second}, n.kind == AivNodeKind::FlagSet});
      flag_tasks.insert(first + i);
    }
  }
  for (u32 id = 0; id < t.tasks.size(); ++id) {
    const Task& k = t.tasks[id];
    if (!is_data_task(k.type)) continue;
    for (u32 gi = 0; gi < k.group_count(); ++gi) {
      const Group& gr = t.group(k, gi);
      for (u32 i = 0; i < gr.src_count; ++i) acc.push_back({id, t.slices[gr.first_src + i], false});
      acc.push_back({id, t.slices[gr.dst], true});
    }
  }
  std::set<std::pair<u32, u32>> out;
  for (const Acc& a : acc)
    for (const Acc& b : acc) {
      if (a.task == b.task || !(a.write || b.write)) continue;
      if (flag_tasks.count(a.task) && flag_tasks.count(b.task)) continue;
      if (a.s.len == 0 || b.s.len == 0 || !slice_addressable(t, a.s) || !slice_addressable(t, b.s)) continue;
      if (a.s.rank != b.s.rank || a.s.buf != b.s.buf) continue;
      if (a.s.offset >= b.s.offset + b.s.len || b.s.offset >= a.s.offset + a.s.len) continue;
      if (r.reaches(a.task, b.task) || r.reaches(b.task, a.task)) continue;
      u32 e = a.task, l = b.task;
      if (g.tau[e] > g.tau[l]) std::swap(e, l);
      const Task &ka = t.tasks[a.task], &kb = t.tasks[b.task];
      if (a.write && b.write && sdma_reduce(a.task) && sdma_reduce(b.task) && ka.reduce_op == kb.reduce_op &&
          ka.data_type == kb.data_type) {
        if (atomic) atomic->insert({e, l});
        if (atomic_fp && is_floating(ka.data_type)) atomic_fp->insert({e, l});
        continue;
      }
      out.insert({e, l});
    }
  return out;
}

}  // namespace cc::test
