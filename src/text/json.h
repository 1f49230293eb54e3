// JSON string literals: what every writer of JSON text (the reports, the
// trace writers, the carried findings of a converted trace) quotes with.
#pragma once

#include <string>
#include <string_view>

namespace cc {

// JSON string literal for `s`, quotes included. Bytes that are not valid
// UTF-8 (a name taken from a log) become U+FFFD, so the output stays JSON.
std::string json_quote(std::string_view s);
// The length of the valid UTF-8 sequence at the start of `s` (0: invalid).
std::size_t utf8_sequence(std::string_view s);

}  // namespace cc
