#include "model/msccl_program.h"

namespace cc::msccl {

namespace {

constexpr std::string_view kColl[] = {"allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce",
                                      "gather",    "scatter",   "send",          "recv",     "alltoallv"};
constexpr std::string_view kProto[] = {"Simple", "LL", "LL128"};
constexpr std::string_view kStep[] = {"s", "r", "rcs", "rrs", "rrc", "rrcs", "cpy", "re", "nop", "?"};

}  // namespace

std::string_view name(Coll c) { return kColl[static_cast<int>(c)]; }
std::string_view name(Proto p) { return kProto[static_cast<int>(p)]; }
std::string_view name(StepType t) { return kStep[static_cast<int>(t)]; }
char letter(Buf b) { return b == Buf::I ? 'i' : b == Buf::O ? 'o' : 's'; }

bool parse_coll(std::string_view s, Coll& out) {
  for (int i = 0; i < static_cast<int>(std::size(kColl)); ++i)
    if (s == kColl[i]) {
      out = static_cast<Coll>(i);
      return true;
    }
  return false;
}

bool parse_proto(std::string_view s, Proto& out) {
  for (int i = 0; i < static_cast<int>(std::size(kProto)); ++i)
    if (s == kProto[i]) {
      out = static_cast<Proto>(i);
      return true;
    }
  return false;
}

StepType parse_step_type(std::string_view s) {
  for (int i = 0; i + 1 < kStepTypeCount; ++i)
    if (s == kStep[i]) return static_cast<StepType>(i);
  return StepType::Unknown;
}

bool parse_buf(std::string_view s, Buf& out) {
  if (s == "i") out = Buf::I;
  else if (s == "o") out = Buf::O;
  else if (s == "s") out = Buf::S;
  else return false;
  return true;
}

bool pops(StepType t) {
  return t == StepType::R || t == StepType::Rcs || t == StepType::Rrs || t == StepType::Rrc || t == StepType::Rrcs;
}
bool pushes(StepType t) {
  return t == StepType::S || t == StepType::Rcs || t == StepType::Rrs || t == StepType::Rrcs;
}
bool reads_src(StepType t) {
  return t == StepType::S || t == StepType::Rrs || t == StepType::Rrc || t == StepType::Rrcs || t == StepType::Cpy ||
         t == StepType::Re;
}
bool writes_dst(StepType t) {
  return t == StepType::R || t == StepType::Rcs || t == StepType::Rrc || t == StepType::Rrcs || t == StepType::Cpy ||
         t == StepType::Re;
}
bool is_fused(StepType t) {
  return t == StepType::Rcs || t == StepType::Rrs || t == StepType::Rrc || t == StepType::Rrcs;
}

bool splits_per_rank(Coll c) {
  return c == Coll::AllGather || c == Coll::ReduceScatter || c == Coll::AllToAll || c == Coll::Gather ||
         c == Coll::Scatter;
}

}  // namespace cc::msccl
