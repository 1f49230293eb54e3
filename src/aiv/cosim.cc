// The co-simulation of aiv.md §4.4: a hook of the one pairing simulation
// (graph.h). A launch starts when its placeholder's host predecessors have
// run; its lanes then run in unit order (rank, host stream, launch ordinal,
// block, pipe) — the lowest lane that can advance runs until it blocks —
// before the host simulation goes on; host tasks never change AIV state,
// so lanes need to run only when a launch starts. Pipe events pair FIFO per
// key (§4.5), barrier and SyncAll members meet (§4.6, §4.7), flag waits
// observe the cell's value, released eagerly by the write that makes it
// right (§4.8). An ended launch releases its placeholder.
#include <algorithm>
#include <random>
#include <set>
#include <unordered_map>

#include "aiv/engine.h"
#include "graph/graph.h"

namespace cc::aiv {

namespace {

class CoSim final : public SimulationHooks {
 public:
  explicit CoSim(Engine& en) : en_(en) {
    const Trace& t = en.trace;
    std::unordered_map<u32, u32> launch_of;  // placeholder -> launch
    for (u32 li = 0; li < en.launches.size(); ++li) {
      Launch& l = en.launches[li];
      u32 p = l.placeholder;
      launch_of.emplace(p, li);
      if (p > 0 && !(t.tasks[p].flags & kTaskUnchained) && t.tasks[p - 1].rank == t.tasks[p].rank &&
          t.tasks[p - 1].stream == t.tasks[p].stream) {
        after_[p - 1].push_back(li);
        ++l.preds_left;
      }
    }
    for (auto [a, b] : t.extra_edges)
      if (auto it = launch_of.find(b); it != launch_of.end()) {
        after_[a].push_back(it->second);
        ++en.launches[it->second].preds_left;
      }
    // Unit order of the lanes (§4.4, step 2).
    std::vector<u32> order(en.lanes.size());
    for (u32 i = 0; i < order.size(); ++i) order[i] = i;
    auto key = [&](u32 i) {
      const Lane& ln = en.lanes[i];
      const Launch& l = en.launches[ln.launch];
      return std::make_tuple(l.rank, l.host_stream, l.ordinal, ln.block_pos, ln.pipe);
    };
    std::sort(order.begin(), order.end(), [&](u32 a, u32 b) { return key(a) < key(b); });
    if (en.opt.order_seed) {
      std::mt19937_64 rng(en.opt.order_seed);
      std::shuffle(order.begin(), order.end(), rng);
    }
    en.lane_by_priority = order;
    for (u32 p = 0; p < order.size(); ++p) en.lanes[order[p]].priority = p;
  }

  void add_holds(std::vector<u32>& holds) override {
    for (const Launch& l : en_.launches) holds[l.placeholder]++;
  }

  void started(SimulationControl& control) override {
    ctl_ = &control;
    for (Launch& l : en_.launches)
      if (l.preds_left == 0) start(l);
    drain();
  }

  void executed(u32 task, SimulationControl& control) override {
    ctl_ = &control;
    en_.order.push_back(task);
    auto it = after_.find(task);
    if (it == after_.end()) return;
    for (u32 li : it->second)
      if (--en_.launches[li].preds_left == 0) start(en_.launches[li]);
    drain();
  }

 private:
  void execute(u32 n) {
    en_.nodes[n].executed = true;
    en_.order.push_back(en_.task_of(n));
  }

  // §4.4 step 1: START runs and every lane head is ready.
  void start(Launch& l) {
    l.started = true;
    execute(l.start);
    l.lanes_left = static_cast<u32>(l.lanes.size());
    for (u32 ln : l.lanes) {
      en_.lanes[ln].head = 0;
      on_new_head(ln);
      make_runnable(ln);
    }
    if (l.lanes_left == 0) finish(l);
  }

  // §4.4 step 5.
  void finish(Launch& l) {
    execute(l.end);
    l.ended = true;
    ctl_->release(l.placeholder);
  }

  void make_runnable(u32 ln) {
    Lane& lane = en_.lanes[ln];
    if (lane.queued || lane.done()) return;
    lane.queued = true;
    runnable_.insert(lane.priority);
  }

  void on_new_head(u32 ln) {
    const Lane& lane = en_.lanes[ln];
    const Node& h = en_.nodes[lane.nodes[lane.head]];
    if (h.info.kind == AivNodeKind::FlagWait) en_.cells[h.info.cell].heads.insert(lane.priority);
  }

  void advance(u32 ln) {
    Lane& lane = en_.lanes[ln];
    lane.arrived = false;
    ++lane.head;
    if (!lane.done()) {
      on_new_head(ln);
      return;
    }
    Launch& l = en_.launches[lane.launch];
    if (--l.lanes_left == 0) finish(l);
  }

  void drain() {
    while (!runnable_.empty()) {
      u32 p = *runnable_.begin();
      runnable_.erase(runnable_.begin());
      u32 ln = en_.lane_by_priority[p];
      en_.lanes[ln].queued = false;
      run_lane(ln);
    }
  }

  // A FLAGWAIT whose cell holds its target executes (§4.8).
  void flag_wait(u32 ln, u32 w) {
    Cell& c = en_.cells[en_.nodes[w].info.cell];
    c.heads.erase(en_.lanes[ln].priority);
    u32 write = kNone;
    if (c.producer != kNone) {
      en_.sync_edges.emplace_back(c.producer, w);
      write = producer_write_[en_.nodes[w].info.cell];
    }
    en_.observations.push_back({w, en_.nodes[w].info.cell, write});
    execute(w);
    advance(ln);
  }

  // §4.4 step 4: right after a value-changing write, every wait at the head
  // of its lane that wants the new value runs, in unit order.
  void release_flag_waits(u32 cell) {
    Cell& c = en_.cells[cell];
    std::vector<u32> ready;
    for (u32 p : c.heads) {
      u32 ln = en_.lane_by_priority[p];
      const Lane& lane = en_.lanes[ln];
      if (en_.nodes[lane.nodes[lane.head]].info.value == c.value) ready.push_back(ln);
    }
    for (u32 ln : ready) {
      flag_wait(ln, en_.lanes[ln].nodes[en_.lanes[ln].head]);
      make_runnable(ln);
    }
  }

  // Runs lane `ln` until it blocks or ends (§4.4 step 2, 3).
  void run_lane(u32 ln) {
    while (!en_.lanes[ln].done()) {
      Lane& lane = en_.lanes[ln];
      u32 n = lane.nodes[lane.head];
      Node& nd = en_.nodes[n];
      switch (nd.info.kind) {
        case AivNodeKind::Barrier:
        case AivNodeKind::SyncAll: {
          if (!lane.arrived) {
            lane.arrived = true;
            ++nd.arrived;
          }
          if (nd.arrived < nd.member_lanes.size()) return;
          execute(n);
          for (u32 m : nd.member_lanes) {
            advance(m);
            if (m != ln) make_runnable(m);
          }
          continue;
        }
        case AivNodeKind::EventWait: {
          EventKey& k = en_.events[nd.info.event_key];
          if (k.next >= k.queue.size()) {
            k.waiters.push_back(ln);
            return;
          }
          u32 s = k.queue[k.next++];
          k.pairs.emplace_back(s, n);
          en_.sync_edges.emplace_back(s, n);
          execute(n);
          advance(ln);
          continue;
        }
        case AivNodeKind::EventSet: {
          EventKey& k = en_.events[nd.info.event_key];
          execute(n);
          k.queue.push_back(n);
          for (u32 w : k.waiters) make_runnable(w);
          k.waiters.clear();
          advance(ln);
          continue;
        }
        case AivNodeKind::FlagWait:
          if (en_.cells[nd.info.cell].value != nd.info.value) return;  // released by a write (eagerly)
          flag_wait(ln, n);
          continue;
        case AivNodeKind::FlagSet: {
          u32 cell = nd.info.cell;
          Cell& c = en_.cells[cell];
          bool changed = nd.info.value != c.value;
          c.writes.push_back(n);
          c.changed.push_back(changed);
          if (changed) {
            c.value = nd.info.value;
            c.producer = n;
            producer_write_[cell] = static_cast<u32>(c.writes.size() - 1);
          } else {
            en_.resent.emplace_back(n, c.producer);
          }
          execute(n);
          advance(ln);
          if (changed) release_flag_waits(cell);
          continue;
        }
        default:  // data nodes: no condition
          execute(n);
          advance(ln);
          continue;
      }
    }
  }

  Engine& en_;
  SimulationControl* ctl_ = nullptr;
  std::unordered_map<u32, std::vector<u32>> after_;  // host task -> launches waiting for it
  std::set<u32> runnable_;                           // lane priorities
  std::unordered_map<u32, u32> producer_write_;      // cell -> index of its producer in writes
};

}  // namespace

TaskGraph cosimulate(Engine& en) {
  CoSim cosim(en);
  TaskGraph g = build_graph(en.trace, &cosim);
  for (Launch& l : en.launches) {
    if (!l.started || l.ended) continue;
    for (u32 ln : l.lanes) {
      const Lane& lane = en.lanes[ln];
      if (!lane.done()) en.nodes[lane.nodes[lane.head]].blocked = true;
    }
  }
  return g;
}

}  // namespace cc::aiv
