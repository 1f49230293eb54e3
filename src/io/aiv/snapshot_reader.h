// AIV snapshots (aiv.md §2.3–§2.5) from JSON into the model. Everything
// inside a snapshot that is wrong is a problem recorded in the snapshot (a
// 107 naming the JSON path, reported by the expansion), never an error of
// the input as a whole; only what decides which launch a snapshot belongs to
// is checked by the callers (a trace line: exit 2; a file: a 107 at its
// AIV_GRAPH record).
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

#include "model/result.h"
#include "model/trace.h"

namespace cc::aiv_io {

// Fills `out` from the snapshot object `root` (cores, tasks, root fields);
// every problem goes to out.problems. out.json is the caller's to set.
void parse_snapshot(simdjson::dom::element root, AivSnapshot& out);
// `text` without insignificant white space (simdjson::minify); "" if it is
// not JSON.
std::string minified(std::string_view text);

// Parses the text of one snapshot file. An Error when the text is not JSON
// or its root not an object, or when `rank` or `launchIndex` is missing or
// mistyped (the file then names no launch); `file` is used in messages.
Result<AivSnapshot> parse_snapshot_text(std::string_view text, const std::string& file);

// Reads and parses a snapshot file (parse_snapshot_text; a file that does
// not exist or cannot be read is an Error too).
Result<AivSnapshot> read_snapshot_file(const std::string& path);

}  // namespace cc::aiv_io
