#include "model/msccl_describe.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/describe.h"

namespace cc {

namespace {

std::string step_position(const MscclStepInfo& s) { return fmt::format("{}/{}/{}", s.gpu, s.tb, s.s); }

std::string step_text(const Trace& t, u32 step) {
  if (step >= t.msccl.steps.size()) return "?";
  const MscclStepInfo& s = t.msccl.steps[step];
  return step_position(s) + " " + s.text;
}

bool moves_nothing(const Trace& t, const Task& k) {
  if (!is_data_task(k.type)) return false;
  for (u32 g = 0; g < k.group_count(); ++g)
    if (t.slices[t.group(k, g).dst].len) return false;
  return true;
}

}  // namespace

std::optional<std::string> msccl_position(const Trace& t, u32 task) {
  if (!t.msccl.has(task)) return std::nullopt;
  u32 step = t.msccl.task_step[task];
  if (step != kNone && step < t.msccl.steps.size()) return step_position(t.msccl.steps[step]);
  const Task& k = t.tasks[task];
  MscclRole r = t.msccl.task_role[task];
  bool end = r == MscclRole::Exit || r == MscclRole::InPlaceOut;
  return fmt::format("{}/{}/{}", k.rank, k.stream, end ? "end" : "start");
}

std::optional<std::string> msccl_description(const Trace& t, u32 task) {
  if (!t.msccl.has(task)) return std::nullopt;
  const Task& k = t.tasks[task];
  u32 step = t.msccl.task_step[task];
  u32 peer = t.msccl.task_peer_step[task];
  std::string sync = is_sync_task(k.type) ? describe_sync(t, task) + ": " : std::string();
  switch (t.msccl.task_role[task]) {
    case MscclRole::Data: {
      if (step >= t.msccl.steps.size()) return std::nullopt;
      std::string s = t.msccl.steps[step].text;
      if (moves_nothing(t, k)) s += " (moves nothing)";
      return s;
    }
    case MscclRole::DepWait: return sync + "waits for " + step_text(t, peer) + " (dependency)";
    case MscclRole::DepPost: return sync + "releases " + step_text(t, peer) + " (dependency)";
    case MscclRole::PopWait: return sync + "receives the message of " + step_text(t, peer);
    case MscclRole::PushPost: return sync + "message to " + step_text(t, peer);
    case MscclRole::Launch:
      return sync + (k.type == TaskType::RECORD ? "kernel start: lets another thread block run"
                                                : "kernel start: waits for thread block 0");
    case MscclRole::Exit:
      return sync + (k.type == TaskType::RECORD ? "kernel end: this thread block has finished"
                                                : "kernel end: waits for another thread block");
    case MscclRole::InPlaceIn:
      return "in place: the input is already where the output aliases it; " + generic_task_description(t, task);
    case MscclRole::InPlaceOut:
      return "in place: the result is where the input aliases the output; " + generic_task_description(t, task);
    case MscclRole::None:
      break;
  }
  return std::nullopt;
}

std::optional<std::string> msccl_lane(const Trace& t, u32 rank, u32 stream) {
  const std::vector<MscclTbInfo>& tbs = t.msccl.tbs;
  auto it = std::lower_bound(tbs.begin(), tbs.end(), std::pair{rank, stream}, [](const MscclTbInfo& x, auto key) {
    return std::pair{x.gpu, x.tb} < key;
  });
  if (it == tbs.end() || it->gpu != rank || it->tb != stream) return std::nullopt;
  std::string s = fmt::format("tb {}", it->tb);
  if (it->send >= 0) s += fmt::format(" \u2192{}", it->send);
  if (it->recv >= 0) s += fmt::format(" \u2190{}", it->recv);
  if (it->chan != 0 && (it->send >= 0 || it->recv >= 0)) s += fmt::format(" ch{}", it->chan);
  return s;
}

bool msccl_message_post(const Trace& t, u32 task) {
  return t.msccl.has(task) && t.msccl.task_role[task] == MscclRole::PushPost;
}

}  // namespace cc
