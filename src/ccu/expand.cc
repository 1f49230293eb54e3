// The expansion as a whole (ccu.md §10): group SQEs into missions,
// co-simulate them with the host graph, report what is left (102 blocked
// missions, 103 unconsumed posts), and append the nodes to the trace.
#include "ccu/expand.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "ccu/cosim.h"
#include "ccu/exec.h"
#include "model/ccu_names.h"
#include "model/describe.h"

namespace cc {

namespace ccu {
namespace {

// §2: walk the CCU_GRAPH records in input order (the order of their SQEs);
// a record continuing an open mission of its key joins it.
void group_missions(Engine& en) {
  Trace& t = en.trace;
  std::vector<u32> task_of_sqe(t.ccu.sqes.size(), kNone);
  for (u32 i = 0; i < t.tasks.size(); ++i) {
    const Task& k = t.tasks[i];
    if (k.type == TaskType::CCU_GRAPH && !(k.flags & kTaskCcu) && k.notify() < task_of_sqe.size())
      task_of_sqe[k.notify()] = i;
  }
  std::map<std::tuple<u32, u32, u32>, u32> open;
  for (u32 s = 0; s < t.ccu.sqes.size(); ++s) {
    u32 task = task_of_sqe[s];
    if (task == kNone) continue;
    const CcuSqe& q = t.ccu.sqes[s];
    const Task& k = t.tasks[task];
    auto key = std::make_tuple(k.rank, u32{q.die}, u32{q.mission});
    if (auto it = open.find(key); it != open.end()) {
      Mission& m = en.missions[it->second];
      const CcuSqe& prev = t.ccu.sqes[m.sqes.back()];
      if (prev.inst_count == kCcuSqeArgs && u32{q.inst_start} == u32{prev.inst_start} + prev.inst_count) {
        if (t.tasks[m.placeholder].stream != k.stream) {
          Finding f = en.mission_finding(
              0, m,
              fmt::format("CCU rank {} die {} mission {}: the SQE at {} continues the mission launched on stream {} "
                          "from stream {}; it is joined to the mission as the reference does.",
                          m.rank, m.die, m.key, task_position(t, task), t.tasks[m.placeholder].stream, k.stream));
          f.tag = "CCU-W-SQE-STREAM";
          f.severity = Severity::Warning;
          f.tasks.push_back(task);
          en.findings.push_back(std::move(f));
        }
        m.sqes.push_back(s);
        m.records.push_back(task);
        m.end_pc = u32{q.inst_start} + q.inst_count;
        continue;
      }
    }
    Mission m;
    m.index = static_cast<u32>(en.missions.size());
    m.rank = k.rank;
    m.die = q.die;
    m.key = q.mission;
    m.placeholder = task;
    m.sqes.push_back(s);
    m.records.push_back(task);
    m.first_pc = q.inst_start;
    m.end_pc = u32{q.inst_start} + q.inst_count;
    open[key] = m.index;
    en.missions.push_back(std::move(m));
  }
}

void load_carry(Engine& en) {
  if (!en.opt.carry_cke || !en.carry) return;
  for (auto [key, bits] : en.carry->cke) {
    auto [rank, die, id] = key;
    DieState& ds = en.machine.die(rank, die);
    ds.cke[id] = bits;
    ds.carried[id] = bits;
  }
}

void save_carry(Engine& en) {
  if (!en.carry) return;
  en.carry->cke.clear();
  if (!en.opt.carry_cke) return;
  for (const auto& [rd, ds] : en.machine.dies())
    for (auto [id, bits] : ds.cke)
      if (bits) en.carry->cke[{rd.first, rd.second, id}] = bits;
}

// §5.1: every mission still blocked is a deadlock; a never-satisfied WAIT
// stands for the rest of it, so its placeholder never runs.
void report_blocked(Engine& en, std::vector<std::pair<u32, u32>>& node_to_host) {
  u32 failed = static_cast<u32>(
      std::count_if(en.missions.begin(), en.missions.end(), [](const Mission& m) { return m.failed; }));
  for (Mission& m : en.missions) {
    if (m.state != MissionState::Blocked) continue;
    const WordCtx& at = m.blocked_at;
    u16 value = en.machine.die(m.rank, m.die).cke_value(m.blocked_cke);
    std::string waits = m.blocked_on.empty()
                            ? fmt::format("cke {} bits {:#x}, which hold {:#x}", m.blocked_cke, m.blocked_mask, value)
                            : "the condition " + m.blocked_on;
    Finding f = en.mission_finding(102, m,
                                   fmt::format("Deadlock: CCU rank {} die {} mission {} is blocked at pc {}: it waits "
                                               "for {}.",
                                               m.rank, m.die, m.key, at.pc, waits));
    f.details.push_back("Word    : " + en.word_line(m, at.pc));
    if (at.in_body)
      f.details.push_back(fmt::format("Loop    : lane {}, loop word at pc {}, copy {}, iteration {}", at.lane,
                                      at.loop_pc, at.copy, at.iteration));
    if (m.blocked_on.empty())
      f.details.push_back(fmt::format("Missing : bits {:#x}; no instruction of any mission still to run sets them",
                                      m.blocked_mask & ~value));
    if (failed)
      f.details.push_back(fmt::format("Note    : {} mission{} stopped on an error (reported above); what {} would "
                                      "have posted is missing",
                                      failed, failed > 1 ? "s" : "", failed > 1 ? "they" : "it"));
    f.details.push_back("Mission : " + task_line(en.trace, m.placeholder));
    Node b;
    b.type = TaskType::WAIT;
    b.flags = kTaskPrematched | kTaskBlocked;
    b.peer = m.rank;
    b.notify = m.blocked_cke;
    b.info.kind = CcuNodeKind::Blocked;
    b.info.die = static_cast<u8>(m.die);
    b.info.cke = m.blocked_cke;
    b.info.mask = m.blocked_mask;
    u32 n = en.node(m, at, b);
    en.store.edges_from(*at.frontier, n);
    node_to_host.emplace_back(n, m.placeholder);
    f.tasks.push_back(en.host_tasks + n);
    en.findings.push_back(std::move(f));
  }
}

// §12 103: posts whose bits no wait consumed.
void report_unconsumed(Engine& en) {
  for (const Post& p : en.machine.posts) {
    if (p.remaining == 0) continue;
    if (p.control_set && p.read_by_sync && !p.consumed) continue;  // a constant source (§7.2)
    const Mission& m = en.missions[p.mission];
    std::string what =
        p.data ? fmt::format("the completion of pc {} {}", p.pc, ccu_mnemonic(en.trace.ccu.isa, p.header))
               : fmt::format("pc {} {}", p.pc, ccu_mnemonic(en.trace.ccu.isa, p.header));
    Finding f = en.mission_finding(
        103, m,
        fmt::format("CCU rank {} die {} mission {}: {} sets cke {} bits {:#x} on rank {} die {}, but no wait "
                    "consumes {:#x}.",
                    m.rank, m.die, m.key, what, p.cke, p.mask, p.rank, p.die, p.remaining));
    if (!p.data) f.severity = Severity::Warning;
    f.details.push_back("Word    : " + en.word_line(m, p.pc));
    f.details.push_back("Mission : " + task_line(en.trace, m.placeholder));
    f.tasks.insert(f.tasks.begin(), en.host_tasks + p.node);
    en.findings.push_back(std::move(f));
  }
}

// --ccu-drain-at-end (§5.3): unobserved transfers precede their mission's END.
void drain_edges(Engine& en) {
  if (!en.opt.drain_at_end) return;
  std::vector<char> observed(en.store.size(), 0);
  for (const Post& p : en.machine.posts)
    if (p.data_node != kNone && p.consumed) observed[p.data_node] = 1;
  for (const Mission& m : en.missions)
    if (m.end_node != kNone)
      for (u32 d : m.data_nodes)
        if (!observed[d]) en.store.edge(d, m.end_node);
}

// Appends the nodes to the trace: each mission's nodes, in creation order,
// in a stream of their own on the mission's rank (ccu_data.h).
void materialise(Engine& en, const std::vector<std::pair<u32, u32>>& node_to_host) {
  Trace& t = en.trace;
  const NodeStore& st = en.store;
  std::map<u32, u32> next_stream;  // rank -> next free stream id
  std::map<u32, std::set<u32>> used;
  for (const Stream& s : t.streams) used[s.rank].insert(s.id);
  std::vector<u32> ccu_index(en.missions.size(), kNone);
  for (Mission& m : en.missions) {
    if (m.start_node == kNone) continue;
    std::set<u32>& u = used[m.rank];
    u32 id = u.empty() ? 1 : *u.rbegin() + 1;
    if (id == 0 || u.count(id)) id = 0;  // wrapped: take the lowest free id
    while (u.count(id)) ++id;
    u.insert(id);
    CcuMission cm;
    cm.rank = m.rank;
    cm.die = m.die;
    cm.mission = m.key;
    cm.placeholder = m.placeholder;
    cm.stream = id;
    cm.first_pc = m.first_pc;
    cm.end_pc = m.end_pc;
    ccu_index[m.index] = static_cast<u32>(t.ccu.missions.size());
    t.ccu.mission_of_stream[(u64{m.rank} << 32) | id] = ccu_index[m.index];
    t.ccu.missions.push_back(std::move(cm));
  }
  u32 base_group = static_cast<u32>(t.groups.size()), base_slice = static_cast<u32>(t.slices.size());
  for (Group g : st.groups) {
    g.dst += base_slice;
    g.first_src += base_slice;
    t.groups.push_back(g);
  }
  t.slices.insert(t.slices.end(), st.slices.begin(), st.slices.end());
  for (const Node& n : st.nodes) {
    CcuMission& cm = t.ccu.missions[ccu_index[n.mission]];
    Task k;
    k.type = n.type;
    k.flags = static_cast<u8>(n.flags | kTaskCcu | kTaskUnchained);
    k.rank = n.rank;
    k.stream = cm.stream;
    k.data_type = n.data_type;
    k.reduce_op = n.reduce_op;
    k.link = Link::CCU;
    // The pair of the node's kind (Task: the two share their bytes).
    if (is_data_task(k.type)) {
      k.set_first_group(base_group + n.first_group);
      k.set_group_count(n.group_count);
    } else {
      k.set_peer(n.peer);
      k.set_notify(n.notify);
    }
    t.tasks.push_back(k);
    cm.nodes.push_back(n.info);
  }
  // The placeholder's predecessors precede START; END precedes the
  // placeholder, which its stream successors follow (§5.4).
  u32 h = en.host_tasks;
  std::unordered_map<u32, u32> start_of;  // placeholder -> START node
  for (const Mission& m : en.missions)
    if (m.start_node != kNone) start_of.emplace(m.placeholder, m.start_node);
  std::size_t host_edges = t.extra_edges.size();
  for (std::size_t i = 0; i < host_edges; ++i)
    if (auto it = start_of.find(t.extra_edges[i].second); it != start_of.end())
      t.extra_edges.emplace_back(t.extra_edges[i].first, h + it->second);
  for (auto [a, b] : st.edges) t.extra_edges.emplace_back(h + a, h + b);
  for (const Mission& m : en.missions) {
    if (m.start_node == kNone) continue;
    u32 p = m.placeholder;
    if (p > 0 && t.tasks[p - 1].rank == t.tasks[p].rank && t.tasks[p - 1].stream == t.tasks[p].stream)
      t.extra_edges.emplace_back(p - 1, h + m.start_node);
    if (m.end_node != kNone) t.extra_edges.emplace_back(h + m.end_node, p);
  }
  for (auto [n, host] : node_to_host) t.extra_edges.emplace_back(h + n, host);
}

}  // namespace
}  // namespace ccu

std::vector<Finding> expand_ccu(Trace& t, const CcuOptions& opt, ccu::CcuCarry* carry, CcuExpansionStats* stats) {
  using namespace ccu;
  if (t.ccu.expanded || t.ccu.sqes.empty()) return {};
  Engine en(t, opt, carry);
  en.ms_buf = t.buffers.intern("MS");
  if (t.sizes.declared.size() <= en.ms_buf) t.sizes.declared.resize(en.ms_buf + 1, BufferSizes::kUndeclared);
  if (t.sizes.declared[en.ms_buf] == BufferSizes::kUndeclared)
    t.sizes.declared[en.ms_buf] = u64{0x10000} * kCcuMsSlotBytes;  // every raw 16-bit MS id (§6.2)
  group_missions(en);
  load_carry(en);
  {
    CoSim cosim(en);
    build_graph(t, &cosim);
  }
  std::vector<std::pair<u32, u32>> node_to_host;
  report_blocked(en, node_to_host);
  report_unconsumed(en);
  drain_edges(en);
  save_carry(en);
  bool failed = std::any_of(en.missions.begin(), en.missions.end(), [](const Mission& m) { return m.failed; });
  materialise(en, node_to_host);
  std::vector<u32> new_id;
  (void)finalize_trace(t, &new_id);  // the sizes were final before: no new overflow is possible
  for (Finding& f : en.findings)
    for (u32& task : f.tasks) task = new_id[task];
  t.ccu.expanded = true;
  t.ccu.failed = failed;
  if (stats) *stats = en.stats;
  return std::move(en.findings);
}

}  // namespace cc
