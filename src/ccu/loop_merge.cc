// Loop merge (ccu.md §9.6): not yet implemented; loops are always unrolled.
#include "ccu/exec.h"

namespace cc::ccu {

bool try_merge(Engine&, Mission&, GroupRun&) { return false; }

}  // namespace cc::ccu
