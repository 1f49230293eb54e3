// A finding about an MSCCL program before it is a trace: it names steps
// (gpu, tb, step indices), which the mapping turns into task ids when it
// becomes a model Finding.
#pragma once

#include <string>
#include <vector>

#include "model/finding.h"

namespace cc::msccl {

struct StepRef {
  u32 gpu = 0;
  u32 tb = kNone;    // index in Gpu::tbs; kNone: the gpu as a whole
  u32 step = kNone;  // index in Tb::steps; kNone: the thread block as a whole
};

struct Diag {
  u16 code = 0;
  Severity severity = Severity::Error;
  StageTag stage = StageTag::GenGraph;
  std::string tag;  // named warnings (code 0)
  std::string message;
  std::vector<std::string> details;
  std::vector<StepRef> at;
};

Diag make_diag(u16 code, StageTag stage, std::string message, std::vector<StepRef> at = {});
Diag make_warning(std::string tag, StageTag stage, std::string message, std::vector<StepRef> at = {});

}  // namespace cc::msccl
