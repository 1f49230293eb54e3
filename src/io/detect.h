// Recognises an input's format from its content (cli.md), never only its name.
#pragma once

#include <string>

namespace cc {

enum class InputFormat { Unknown, Jsonl, HcclVmDb, StLog, Msccl };

// Reads the start of `path`. Unknown when the content matches no format or
// the file cannot be read. `strict` (for files found in a directory) asks a
// JSON Lines file to name our format in its first line; otherwise any file
// whose first line is a JSON object goes to the trace reader, which then
// says exactly what is wrong with it.
InputFormat detect_format(const std::string& path, bool strict);
// Same, from the first bytes of an input.
InputFormat detect_format_text(std::string_view head, bool strict);

// "jsonl", "hcclvm-db", "stlog", "msccl"; parse returns Unknown on other names.
std::string_view format_name(InputFormat f);
InputFormat parse_format(std::string_view s);

}  // namespace cc
