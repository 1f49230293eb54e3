// The expansion as a whole (aiv.md §4): build the launches, co-simulate
// them with the host streams, report what is left (102, 103), and append
// the nodes to the trace — each launch's nodes in a stream of their own on
// its rank, lanes as chains (a node whose lane predecessor is the task
// before it keeps the stream edge; every other node is unchained with an
// explicit edge), merged and boundary nodes unchained.
#include "aiv/expand.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "aiv/engine.h"

namespace cc {

namespace aiv {
namespace {

bool is_group(const Node& n) { return n.info.kind == AivNodeKind::Barrier || n.info.kind == AivNodeKind::SyncAll; }

void materialise(Engine& en) {
  Trace& t = en.trace;
  u32 h = en.host_tasks;
  // Stream ids: above every stream of the rank (CCU streams included).
  std::map<u32, u32> next_id;
  for (const Stream& s : t.streams) {
    u32& n = next_id[s.rank];
    n = std::max(n, s.id + 1 == 0 ? s.id : s.id + 1);
  }
  std::map<u32, std::set<u32>> used;
  for (const Stream& s : t.streams) used[s.rank].insert(s.id);
  std::vector<u32> stream_of(en.launches.size());
  for (u32 li = 0; li < en.launches.size(); ++li) {
    const Launch& l = en.launches[li];
    std::set<u32>& u = used[l.rank];
    u32 id = next_id[l.rank];
    while (u.count(id)) ++id;  // wrapped past 2^32-1: the lowest free id
    u.insert(id);
    next_id[l.rank] = id + 1;
    stream_of[li] = id;
  }
  // Which nodes keep the implicit stream edge from the task before them.
  std::vector<u8> chained(en.nodes.size(), 0);
  std::vector<std::pair<u32, u32>> edges;
  for (const Lane& lane : en.lanes) {
    u32 prev = en.launches[lane.launch].start;
    for (u32 n : lane.nodes) {
      if (!is_group(en.nodes[n]) && n == prev + 1) chained[n] = 1;
      else edges.emplace_back(prev, n);
      prev = n;
    }
    edges.emplace_back(prev, en.launches[lane.launch].end);
  }
  for (const Launch& l : en.launches)
    if (l.lanes.empty()) edges.emplace_back(l.start, l.end);
  // Merged nodes are the predecessor or the last node of several lanes.
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  t.tasks.reserve(t.tasks.size() + en.nodes.size());
  t.extra_edges.reserve(t.extra_edges.size() + edges.size() + en.sync_edges.size() + 2 * en.launches.size());
  // Tasks, in node order.
  AivData& a = t.aiv;
  a.launches.clear();
  for (u32 li = 0; li < en.launches.size(); ++li) {
    const Launch& l = en.launches[li];
    AivLaunch al;
    al.rank = l.rank;
    al.launch = l.launch;
    al.placeholder = l.placeholder;
    al.record = l.record;
    al.snapshot = l.snapshot;
    al.stream = stream_of[li];
    al.expanded = l.usable;
    al.groups = l.groups;
    a.launch_of_stream[(u64{l.rank} << 32) | al.stream] = li;
    a.launches.push_back(std::move(al));
  }
  for (const Launch& l : en.launches) a.launches[&l - en.launches.data()].nodes.reserve(l.end - l.start + 1);
  for (u32 n = 0; n < en.nodes.size(); ++n) {
    Node& nd = en.nodes[n];
    const Launch& l = en.launches[nd.launch];
    Task k;
    k.type = nd.type;
    k.flags = static_cast<u8>(nd.flags | kTaskAiv | (chained[n] ? 0 : kTaskUnchained) | (nd.blocked ? kTaskBlocked : 0));
    k.rank = l.rank;
    k.stream = stream_of[nd.launch];
    k.data_type = nd.data_type;
    k.reduce_op = nd.reduce_op;
    switch (nd.info.kind) {
      case AivNodeKind::Copy:
      case AivNodeKind::Reduce: {
        k.link = Link::AIV;
        k.set_first_group(static_cast<u32>(t.groups.size()));
        k.set_group_count(1);
        Group g;
        g.first_src = static_cast<u32>(t.slices.size());
        g.src_count = 1;
        t.slices.push_back(nd.src);
        g.dst = static_cast<u32>(t.slices.size());
        t.slices.push_back(nd.dst);
        t.groups.push_back(g);
        break;
      }
      case AivNodeKind::EventSet:
      case AivNodeKind::EventWait:
        k.set_peer(l.rank);
        k.set_notify(static_cast<u32>(nd.info.event));
        break;
      case AivNodeKind::FlagSet:
      case AivNodeKind::FlagWait:
        k.set_peer(nd.info.owner);
        nd.info.cell_slice = static_cast<u32>(t.slices.size());
        t.slices.push_back(Slice{nd.info.offset, kAivFlagBytes, nd.info.owner, en.comm_buf});
        break;
      default:
        break;
    }
    t.tasks.push_back(k);
    a.launches[nd.launch].nodes.push_back(nd.info);
  }
  // Edges: lanes and merged nodes, the matched syncs, the host around each launch.
  std::size_t host_edges = t.extra_edges.size();
  for (auto [x, y] : edges) t.extra_edges.emplace_back(h + x, h + y);
  for (auto [x, y] : en.sync_edges) t.extra_edges.emplace_back(h + x, h + y);
  std::unordered_map<u32, u32> start_of;  // placeholder -> START
  for (const Launch& l : en.launches) start_of.emplace(l.placeholder, l.start);
  for (std::size_t i = 0; i < host_edges; ++i)
    if (auto it = start_of.find(t.extra_edges[i].second); it != start_of.end())
      t.extra_edges.emplace_back(t.extra_edges[i].first, h + it->second);
  for (const Launch& l : en.launches) {
    u32 p = l.placeholder;
    if (p > 0 && !(t.tasks[p].flags & kTaskUnchained) && t.tasks[p - 1].rank == t.tasks[p].rank &&
        t.tasks[p - 1].stream == t.tasks[p].stream)
      t.extra_edges.emplace_back(p - 1, h + l.start);
    t.extra_edges.emplace_back(h + l.end, p);
  }
  // What stage 3 needs of the co-simulation, as task ids.
  for (const EventKey& e : en.events) {
    AivEvent ae;
    ae.launch = e.launch;
    for (auto [s, w] : e.pairs) ae.pairs.emplace_back(h + s, h + w);
    a.events.push_back(std::move(ae));
  }
  for (const Cell& c : en.cells) {
    AivCell ac;
    ac.owner = c.owner;
    ac.offset = c.offset;
    for (u32 w : c.writes) ac.writes.push_back(h + w);
    ac.changed = c.changed;
    a.cells.push_back(std::move(ac));
  }
  for (AivObservation o : en.observations) {
    o.wait += h;
    a.observations.push_back(o);
  }
  // The buffers the expansion made: unbounded in the header's sense (the
  // snapshots bound them, check/aiv_rules.cc), never written to a trace.
  for (BufId b : en.own_buffers) {
    if (a.own_buffer.size() <= b) a.own_buffer.resize(b + 1, 0);
    a.own_buffer[b] = 1;
    if (t.sizes.declared.size() <= b) t.sizes.declared.resize(b + 1, BufferSizes::kUndeclared);
    t.sizes.declared[b] = BufferSizes::kUndeclared - 1;
  }
  t.sim_order = std::move(en.order);
}

}  // namespace
}  // namespace aiv

Result<AivExpansion> expand_aiv(Trace& t, const AivOptions& opt) {
  using namespace aiv;
  AivExpansion out;
  if (t.aiv.expanded || !t.aiv.has_input()) return out;
  Engine en(t, opt);
  build(en);
  if (u64{en.host_tasks} + en.nodes.size() >= 0xfffffffeu)
    return Error{fmt::format("{}: the AIV launches make {} nodes; with the {} tasks of the trace that is more than "
                             "2^32 tasks",
                             t.file, en.nodes.size(), en.host_tasks)};
  TaskGraph host = cosimulate(en);
  report_outcome(en, host);
  materialise(en);
  std::vector<u32> new_id;
  (void)finalize_trace(t, &new_id);  // the sizes were final before: no new overflow is possible
  for (Finding& f : en.findings)
    for (u32& task : f.tasks) task = new_id[task];
  t.aiv.expanded = true;
  for (const Launch& l : en.launches) t.aiv.failed |= !l.usable;
  AivExpansionStats& st = en.stats;
  st.launches = static_cast<u32>(en.launches.size());
  for (const Launch& l : en.launches) st.expanded += l.usable;
  st.nodes = en.nodes.size();
  st.sync_edges = en.sync_edges.size();
  std::map<std::string, u64> kinds;
  for (const Node& n : en.nodes) kinds[std::string(aiv_node_kind_name(n.info.kind))]++;
  st.by_kind.assign(kinds.begin(), kinds.end());
  out.findings = std::move(en.findings);
  out.stats = std::move(st);
  return out;
}

std::string aiv_stats_line(const Trace& t, const AivExpansionStats& s) {
  std::string kinds;
  for (const auto& [k, n] : s.by_kind) kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", k, n);
  std::string line = fmt::format("aiv: {} launches ({} expanded), {} nodes ({}), {} event/flag edges, {} blocked heads",
                                 s.launches, s.expanded, s.nodes, kinds, s.sync_edges, s.blocked);
  if (!t.aiv.unused_files.empty()) {
    line += fmt::format("; {} other snapshot file{} beside the database not read:", t.aiv.unused_files.size(),
                        t.aiv.unused_files.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < t.aiv.unused_files.size() && i < 8; ++i) line += " " + t.aiv.unused_files[i];
    if (t.aiv.unused_files.size() > 8) line += " …";
  }
  return line;
}

}  // namespace cc
