// Send/Recv (algorithms.md §14) and BatchSendRecv (§15).
#pragma once

#include "gen/params.h"

namespace cc::gen {

Result<Trace> gen_send_recv(const GenParams& p);
Result<Trace> gen_batch_send_recv(const GenParams& p);

}  // namespace cc::gen
