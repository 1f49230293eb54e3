#include "msccl/diag.h"

namespace cc::msccl {

Diag make_diag(u16 code, StageTag stage, std::string message, std::vector<StepRef> at) {
  Diag d;
  d.code = code;
  d.severity = code_severity(code);
  d.stage = stage;
  d.message = std::move(message);
  d.at = std::move(at);
  return d;
}

Diag make_warning(std::string tag, StageTag stage, std::string message, std::vector<StepRef> at) {
  Diag d;
  d.code = 0;
  d.severity = Severity::Warning;
  d.stage = stage;
  d.tag = std::move(tag);
  d.message = std::move(message);
  d.at = std::move(at);
  return d;
}

}  // namespace cc::msccl
