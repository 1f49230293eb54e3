// Whether the files a run is about to write fit on the disk: `mutate
// --count 0` on a large trace asks for one trace-sized file per site,
// which can be a terabyte; such a run is refused after its first file
// instead of filling the disk hours later.
#pragma once

#include <string>

#include "model/result.h"
#include "model/types.h"

namespace cc {

// An Error naming the sizes when `files` more files of about `each` bytes
// need more than `available` bytes in `dir`; `what` names the files
// ("mutants").
Status room_for_files(u64 each, u64 files, u64 available, const std::string& dir, const std::string& what);

// "14.7 MiB", "934.1 GiB", "1.2 TiB".
std::string size_text(u64 bytes);

}  // namespace cc
