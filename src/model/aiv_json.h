// The JSON text of a snapshot model (aiv.md §2.3–§2.5), for snapshots made
// in code (collcheck gen) or changed in code (collcheck mutate): what a
// written trace carries and the reader turns back into the same model.
// Display-only keys are not written; "curOp" is written as kept.
#pragma once

#include <string>

#include "model/aiv_data.h"

namespace cc::aiv {

std::string snapshot_json(const AivSnapshot& s);

}  // namespace cc::aiv
