// Reader of MSCCL algorithm files (msccl.md §2, §11) with libxml2's SAX2
// push parser: streamed chunk by chunk (plain, gzip or zstd, through
// io/byte_source), no DOM, DTDs, entity expansion and network access off.
// Every attribute of §2 is read and validated; what makes the file
// unusable is an error "FILE:LINE: what" (exit 2), everything else is left
// to the checks (src/msccl/).
#pragma once

#include <string>
#include <string_view>

#include "model/result.h"
#include "model/msccl_program.h"

namespace cc {

Result<msccl::Program> read_msccl_program_file(const std::string& path);
Result<msccl::Program> read_msccl_program_string(std::string_view text, const std::string& display);

// Whether the first element of `head` (after an optional byte order mark,
// XML declaration, processing instructions, comments and whitespace) is
// <algo> (msccl.md §11).
bool looks_like_msccl(std::string_view head);

}  // namespace cc
