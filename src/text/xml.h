// XML text: what every writer of XML (MSCCL algorithm files, the JUnit
// report) escapes names and messages with.
#pragma once

#include <string>
#include <string_view>

namespace cc {

// `s` as an XML attribute value (without the quotes) or character data:
// & < > " ' escaped; tab, newline and carriage return as character
// references, so an attribute keeps them; other control characters, which
// XML 1.0 does not allow, become '?'; bytes that are not valid UTF-8 become
// U+FFFD, so the output stays well-formed.
std::string xml_escape(std::string_view s);

}  // namespace cc
