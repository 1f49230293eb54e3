// Co-simulation of CCU missions with the host graph (ccu.md §5.1): a hook
// of the one pairing simulation (graph.h). A mission starts when its
// placeholder's predecessors have run; the placeholder is held until the
// mission ends, so the host streams after it wait exactly as long.
#pragma once

#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "ccu/engine.h"
#include "graph/graph.h"

namespace cc::ccu {

class CoSim final : public SimulationHooks {
 public:
  explicit CoSim(Engine& en);

  void add_holds(std::vector<u32>& holds) override;
  void started(SimulationControl& control) override;
  void executed(u32 task, SimulationControl& control) override;

 private:
  void start(Mission& m);
  // Runs the started missions round-robin in (rank, die, placeholder)
  // order until none makes progress; releases the placeholders of those
  // that ended.
  void schedule(SimulationControl& control);

  Engine& en_;
  std::unordered_map<u32, std::vector<u32>> after_;  // host task -> missions waiting for it
  std::set<std::tuple<u32, u32, u32, u32>> active_;  // (rank, die, placeholder, mission)
  std::vector<u32> ended_;                           // missions whose placeholder is still held
};

}  // namespace cc::ccu
