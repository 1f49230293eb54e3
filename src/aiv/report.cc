// What the co-simulation leaves (aiv.md §4.9): one 102 naming every blocked
// head with what it waits for and the wait-for chain through AIV lanes;
// 103 warnings for pipe events set and never waited; AIV-W-FLAG-RESENT.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "aiv/engine.h"
#include "graph/graph.h"
#include "model/describe.h"

namespace cc::aiv {

namespace {

std::string cell_text(const Cell& c) { return fmt::format("{}:{:#x}", c.owner, c.offset); }

class Explainer {
 public:
  Explainer(Engine& en, const TaskGraph& host) : en_(en), host_(host) {
    lane_of_.assign(en.nodes.size(), kNone);
    for (u32 ln = 0; ln < en.lanes.size(); ++ln)
      for (u32 n : en.lanes[ln].nodes)
        if (en.nodes[n].member_lanes.empty()) lane_of_[n] = ln;
    for (u32 h : host.blocked_heads) host_head_[host.chain(h)] = h;
  }

  struct Why {
    std::string text;    // appended to the head's description
    u32 next = kNone;    // the blocked head it waits for
  };

  // The head of the lane holding `n` ("which is behind …"), or why there
  // is none.
  Why behind(u32 n) const {
    const Launch& l = en_.launches[en_.nodes[n].launch];
    if (!l.started) {
      std::string why = "its launch has not started";
      auto it = host_head_.find(host_.chain(l.placeholder));
      if (it != host_head_.end() && it->second != l.placeholder)
        why += fmt::format(": its placeholder {} waits behind {} {}", task_position(en_.trace, l.placeholder),
                           task_position(en_.trace, it->second), describe_task(en_.trace, it->second));
      else
        why += fmt::format(" (its placeholder is {})", task_position(en_.trace, l.placeholder));
      return {fmt::format("{}, but {}", en_.name(n), why), kNone};
    }
    u32 ln = lane_of_[n];
    const Lane& lane = en_.lanes[ln];
    u32 h = lane.nodes[lane.head];
    return {fmt::format("{}, which is behind {}", en_.name(n), en_.name(h)), h};
  }

  // "rank0 L0.b0.S[2] RECV_FLAG cell 0:0x100080 has 1 (from …) wants 2"
  std::string describe(u32 n) const {
    const Node& nd = en_.nodes[n];
    const AivNodeInfo& i = nd.info;
    switch (i.kind) {
      case AivNodeKind::EventWait:
        return fmt::format("{} WAIT_FLAG {}\u2192{} #{}", en_.name(n), aiv_pipe_name(i.src_pipe),
                           aiv_pipe_name(i.dst_pipe), i.event);
      case AivNodeKind::FlagWait: {
        const Cell& c = en_.cells[i.cell];
        std::string from = c.producer != kNone ? fmt::format(" (from {})", en_.name(c.producer)) : "";
        return fmt::format("{} RECV_FLAG cell {} has {}{} wants {}", en_.name(n), cell_text(c), c.value, from, i.value);
      }
      case AivNodeKind::Barrier:
      case AivNodeKind::SyncAll: {
        const AivGroup& g = en_.launches[nd.launch].groups[i.group];
        return fmt::format("{} ({}) has {} of its {} members", en_.name(n),
                           g.sync_all ? fmt::format("SyncAll round {}", g.value)
                                      : fmt::format("{} barrier", aiv_pipe_name(g.value)),
                           nd.arrived, nd.member_lanes.size());
      }
      default:
        return en_.name(n);
    }
  }

  Why why(u32 n) const {
    const Node& nd = en_.nodes[n];
    const AivNodeInfo& i = nd.info;
    switch (i.kind) {
      case AivNodeKind::EventWait: {
        const EventKey& k = en_.events[i.event_key];
        u32 executed = 0;
        u32 pending = kNone;
        for (u32 s : k.sets) {
          if (en_.nodes[s].executed) ++executed;
          else if (pending == kNone) pending = s;
        }
        std::string counts = fmt::format(" ({} SetFlag{} of this event in the block, {} executed)", k.sets.size(),
                                         k.sets.size() == 1 ? "" : "s", executed);
        if (pending == kNone)
          return {fmt::format(": no SetFlag of this event is left to run{}", counts), kNone};
        Why b = behind(pending);
        return {" needs " + b.text + counts, b.next};
      }
      case AivNodeKind::FlagWait: {
        const Cell& c = en_.cells[i.cell];
        std::vector<u32> pending;
        for (u32 f : c.setters)
          if (en_.nodes[f].info.value == i.value && !en_.nodes[f].executed) pending.push_back(f);
        if (!pending.empty()) {
          Why b = behind(pending.front());
          std::string more = pending.size() > 1 ? fmt::format(" (and {} more)", pending.size() - 1) : "";
          return {fmt::format(": written {}{}{}", pending.size() == 1 ? "only by " : "by ", b.text, more), b.next};
        }
        // Written already, then overwritten before this wait came to run?
        for (std::size_t w = c.writes.size(); w-- > 0;) {
          if (!c.changed[w] || en_.nodes[c.writes[w]].info.value != i.value) continue;
          for (std::size_t x = w + 1; x < c.writes.size(); ++x)
            if (c.changed[x])
              return {fmt::format(": {} wrote {} and {} overwrote it before this wait could run",
                                  en_.name(c.writes[w]), i.value, en_.name(c.writes[x])),
                      kNone};
        }
        if (i.value == 0 && !c.writes.empty())
          return {fmt::format(": the initial 0 was overwritten by {} before this wait could run",
                              en_.name(c.writes.front())),
                  kNone};
        return {fmt::format(": no SendFlag writes {} to this cell", i.value), kNone};
      }
      case AivNodeKind::Barrier:
      case AivNodeKind::SyncAll: {
        std::string text;
        u32 next = kNone;
        for (u32 m : nd.member_lanes) {
          const Lane& lane = en_.lanes[m];
          if (lane.arrived && !lane.done() && lane.nodes[lane.head] == n) continue;
          std::string where = fmt::format("b{}.{}", lane.block, aiv_pipe_name(lane.pipe));
          u32 h = lane.done() ? kNone : lane.nodes[lane.head];
          text += fmt::format("{}{} is blocked at {}", text.empty() ? "; missing: " : ", ", where,
                              h == kNone ? std::string("its end") : en_.name(h));
          if (next == kNone && h != kNone) next = h;
        }
        return {text, next};
      }
      default:
        return {": is blocked", kNone};
    }
  }

 private:
  Engine& en_;
  const TaskGraph& host_;
  std::vector<u32> lane_of_;
  std::unordered_map<u32, u32> host_head_;  // host chain -> its stuck head
};

void report_deadlock(Engine& en, const TaskGraph& host) {
  std::vector<u32> heads;
  for (u32 p = 0; p < en.lane_by_priority.size(); ++p) {
    const Lane& lane = en.lanes[en.lane_by_priority[p]];
    if (lane.done() || !en.launches[lane.launch].started) continue;
    u32 h = lane.nodes[lane.head];
    if (en.nodes[h].blocked && std::find(heads.begin(), heads.end(), h) == heads.end()) heads.push_back(h);
  }
  en.stats.blocked = static_cast<u32>(heads.size());
  if (heads.empty()) return;
  Explainer ex(en, host);
  Finding f = make_finding(102, StageTag::GenGraph,
                           fmt::format("Deadlock: {} AIV lane head{} can never run.", heads.size(),
                                       heads.size() == 1 ? "" : "s"));
  u32 shown = 0;
  for (u32 h : heads) {
    f.tasks.push_back(en.task_of(h));
    if (shown >= en.opt.max_blocked_lines) continue;
    ++shown;
    Explainer::Why w = ex.why(h);
    f.details.push_back(ex.describe(h) + w.text);
    // The wait-for chain, while it runs through blocked heads.
    std::vector<u32> seen{h};
    std::string chain = en.name(h);
    bool cycle = false;
    for (u32 next = w.next, steps = 0; next != kNone && steps < 64; ++steps) {
      chain += " \u2192 " + en.name(next);
      if (std::find(seen.begin(), seen.end(), next) != seen.end()) {
        cycle = true;
        break;
      }
      seen.push_back(next);
      next = ex.why(next).next;
    }
    if (seen.size() > 1 || cycle) f.details.push_back(fmt::format("  Wait-for {}: {}", cycle ? "cycle" : "chain", chain));
  }
  if (heads.size() > shown) f.details.push_back(fmt::format("… and {} more blocked heads", heads.size() - shown));
  u32 failed = static_cast<u32>(std::count_if(en.launches.begin(), en.launches.end(), [](const Launch& l) {
    return !l.usable;
  }));
  if (failed)
    f.details.push_back(fmt::format("Note : {} launch{} could not be expanded (reported above) and ran as an empty "
                                    "kernel; what {} would have sent is missing",
                                    failed, failed > 1 ? "es" : "", failed > 1 ? "they" : "it"));
  en.findings.push_back(std::move(f));
}

// §4.5: sets still pending after the simulation, per event.
void report_unconsumed(Engine& en) {
  for (const EventKey& k : en.events) {
    if (k.next >= k.queue.size()) continue;
    u32 first = k.queue[k.next];
    const Launch& l = en.launches[k.launch];
    std::size_t left = k.queue.size() - k.next;
    Finding f = make_finding(
        103, StageTag::GenGraph,
        fmt::format("{} block {}: SetFlag {}\u2192{} #{} is set {} time{} more than it is waited for; the first "
                    "set never waited for is {}.",
                    en.launch_name(l), en.nodes[first].info.block, aiv_pipe_name(k.src_pipe),
                    aiv_pipe_name(k.dst_pipe), k.event, left, left == 1 ? "" : "s", en.name(first)));
    f.severity = Severity::Warning;
    f.tasks.push_back(en.task_of(first));
    en.findings.push_back(std::move(f));
  }
}

// §4.8: a write that repeats the cell's value keeps the older producer.
void report_resent(Engine& en) {
  for (auto [n, producer] : en.resent) {
    const Node& nd = en.nodes[n];
    const Cell& c = en.cells[nd.info.cell];
    Finding f = make_finding(
        0, StageTag::GenGraph,
        fmt::format("{} SendFlag writes {} to cell {}, which already holds it ({}); the waits that see it keep {} "
                    "as their producer.",
                    en.name(n), nd.info.value, cell_text(c),
                    producer == kNone ? std::string("the initial value") : "written by " + en.name(producer),
                    producer == kNone ? std::string("no write") : en.name(producer)));
    f.tag = "AIV-W-FLAG-RESENT";
    f.severity = Severity::Warning;
    f.tasks.push_back(en.task_of(n));
    en.findings.push_back(std::move(f));
  }
}

}  // namespace

void report_outcome(Engine& en, const TaskGraph& host) {
  report_deadlock(en, host);
  report_unconsumed(en);
  report_resent(en);
}

}  // namespace cc::aiv
