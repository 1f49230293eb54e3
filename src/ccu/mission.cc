// Running one mission (ccu.md §5.1): START, words in program order until a
// wait blocks or the range ends, END; failures become findings with the
// context HCCL's reference would wrap in a 101.
#include <fmt/format.h>

#include <algorithm>

#include "ccu/exec.h"
#include "model/ccu_names.h"
#include "model/describe.h"

namespace cc::ccu {

namespace {

u32 boundary(Engine& en, Mission& m, CcuNodeKind kind) {
  WordCtx at;
  at.header = 0;
  Node n;
  n.type = TaskType::CCU_GRAPH;
  n.info.kind = kind;
  u32 id = en.node(m, at, n);
  en.store.nodes[id].info.pc = kNone;
  return id;
}

void report_fault(Engine& en, const Mission& m) {
  const WordCtx& at = m.fault_at;
  std::string where = at.pc == kNone ? std::string() : fmt::format(", pc {}", at.pc);
  Finding f = en.mission_finding(m.fault.code, m, fmt::format("CCU rank {} die {} mission {}{}: {}.", m.rank, m.die,
                                                               m.key, where, m.fault.what));
  if (at.pc != kNone) f.details.push_back("Word    : " + en.word_line(m, at.pc));
  if (at.in_body)
    f.details.push_back(fmt::format("Loop    : lane {}, loop word at pc {}, copy {}, iteration {}", at.lane,
                                    at.loop_pc, at.copy, at.iteration));
  if (m.fault.code != 101)
    f.details.push_back("HCCL    : the reference reports this as 101 GRAPH_TRANSLATE_FAILED for the word and "
                        "for its CCU graph");
  if (m.placeholder != kNone) f.details.push_back("Mission : " + task_line(en.trace, m.placeholder));
  en.findings.push_back(std::move(f));
}

void end_mission(Engine& en, Mission& m) {
  if (m.start_node != kNone) {
    m.end_node = boundary(en, m, CcuNodeKind::SubEnd);
    en.store.edges_from(m.frontier, m.end_node);
  }
  m.state = MissionState::Done;
  if (m.failed) report_fault(en, m);
}

Step step_top(Engine& en, Mission& m) {
  if (m.pc == m.end_pc) return Step::Ended;
  WordCtx at;
  at.pc = m.pc;
  at.frontier = &m.frontier;
  if (m.pc >= m.image->size)
    return en.fail(m, at, 105,
                   fmt::format("the program counter left the image of rank {} die {} ({} words) without reaching "
                               "the mission's end {}",
                               m.rank, m.die, m.image->size, m.end_pc)),
           Step::Failed;
  if (en.over_budget(m, at)) return Step::Failed;
  u32 jump = 0;
  Step s = exec_word(en, m, at, false, jump);
  if (s == Step::Next || s == Step::Jump) {
    ++m.steps;
    ++en.stats.steps;
    m.pc = s == Step::Jump ? jump : m.pc + 1;
  }
  return s;
}

}  // namespace

bool start_mission(Engine& en, Mission& m) {
  m.state = MissionState::Running;
  WordCtx at;
  at.pc = kNone;
  for (u32 s : m.sqes)
    if (en.trace.ccu.sqes[s].arg_size > kCcuSqeArgs) {
      en.fail(m, at, 101,
              fmt::format("an SQE has argSize {}; an SQE holds at most {} arguments", en.trace.ccu.sqes[s].arg_size,
                          kCcuSqeArgs));
      end_mission(en, m);
      return false;
    }
  auto img = std::find_if(en.trace.ccu.images.begin(), en.trace.ccu.images.end(),
                          [&](const CcuImage& i) { return i.rank == m.rank && i.die == m.die; });
  if (img == en.trace.ccu.images.end()) {
    en.fail(m, at, 107, fmt::format("there is no instruction image for rank {} die {}", m.rank, m.die));
    end_mission(en, m);
    return false;
  }
  m.image = &*img;
  m.start_node = boundary(en, m, CcuNodeKind::SubStart);
  m.frontier.assign(1, m.start_node);
  m.pc = m.first_pc;
  ++en.stats.missions;
  return true;
}

bool run_mission(Engine& en, Mission& m) {
  bool progress = false;
  while (m.state != MissionState::Done) {
    Step s = m.group ? step_group(en, m) : step_top(en, m);
    if (s == Step::Blocked) {
      m.state = MissionState::Blocked;
      return progress;
    }
    progress = true;
    m.state = MissionState::Running;
    if (s == Step::Failed || s == Step::Ended) end_mission(en, m);
  }
  return progress;
}

}  // namespace cc::ccu
