// The HCCL VM database importer (hcclvm-db.md): every op group of every
// sync window becomes one case FILE#w<syncIter>-op<group> (cli.md).
#pragma once

#include <string>
#include <vector>

#include "io/input.h"
#include "model/result.h"

struct sqlite3;

namespace cc {

// Opens `path` read-only in place and reads the cases `options.case_glob`
// selects. A database that cannot be decoded is an error naming table, row
// and column; problems of single records are findings of their case.
Result<std::vector<LoadedCase>> read_hcclvm_db(const std::string& path, const InputOptions& options);

// The same on an open connection (tests and the fuzz target build
// databases in memory); `display` names it in messages and case names.
Result<std::vector<LoadedCase>> read_hcclvm_handle(sqlite3* db, const std::string& display,
                                                   const InputOptions& options);

}  // namespace cc
