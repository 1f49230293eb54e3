#include "ccu/cosim.h"

#include "ccu/exec.h"

namespace cc::ccu {

CoSim::CoSim(Engine& en) : en_(en) {
  const Trace& t = en.trace;
  std::unordered_map<u32, u32> mission_of;  // placeholder -> mission
  for (Mission& m : en.missions) {
    u32 p = m.placeholder;
    mission_of.emplace(p, m.index);
    // Its stream predecessor (a CCU_GRAPH record is never unchained).
    if (p > 0 && !(t.tasks[p].flags & kTaskUnchained) && t.tasks[p - 1].rank == t.tasks[p].rank &&
        t.tasks[p - 1].stream == t.tasks[p].stream) {
      after_[p - 1].push_back(m.index);
      ++m.preds_left;
    }
  }
  // And any explicit edge into it (imported graphs).
  for (auto [a, b] : t.extra_edges)
    if (auto it = mission_of.find(b); it != mission_of.end()) {
      after_[a].push_back(it->second);
      ++en.missions[it->second].preds_left;
    }
}

void CoSim::add_holds(std::vector<u32>& holds) {
  for (const Mission& m : en_.missions) holds[m.placeholder]++;
}

void CoSim::start(Mission& m) {
  if (start_mission(en_, m)) active_.emplace(m.rank, m.die, m.placeholder, m.index);
  else ended_.push_back(m.index);
}

void CoSim::started(SimulationControl& control) {
  bool any = false;
  for (Mission& m : en_.missions)
    if (m.preds_left == 0) {
      start(m);
      any = true;
    }
  if (any) schedule(control);
}

void CoSim::executed(u32 task, SimulationControl& control) {
  auto it = after_.find(task);
  if (it == after_.end()) return;
  bool any = false;
  for (u32 mi : it->second) {
    Mission& m = en_.missions[mi];
    if (--m.preds_left == 0) {
      start(m);
      any = true;
    }
  }
  // Host tasks change no CKE: only a new mission can unblock another.
  if (any) schedule(control);
}

void CoSim::schedule(SimulationControl& control) {
  for (bool progress = true; progress;) {
    progress = false;
    for (auto it = active_.begin(); it != active_.end();) {
      Mission& m = en_.missions[std::get<3>(*it)];
      progress |= run_mission(en_, m);
      if (m.state == MissionState::Done) {
        ended_.push_back(m.index);
        it = active_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (u32 mi : ended_) control.release(en_.missions[mi].placeholder);
  ended_.clear();
}

}  // namespace cc::ccu
