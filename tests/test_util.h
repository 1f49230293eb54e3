// Helpers shared by the unit tests.
#pragma once

#include <string>
#include <vector>

#include "model/result.h"
#include "pipeline/stages.h"
#include "io/jsonl/reader.h"

namespace cc {
// The message of a failed Status, "" on success: EXPECT_EQ(message_of(f()), "")
// prints what went wrong.
inline std::string message_of(const Status& s) { return s.ok() ? std::string() : s.message(); }
}  // namespace cc

namespace cc::test {

// Reads a trace from text; fails the test on a reader error.
Trace parse(const std::string& text);
// Reads, checks, and returns the codes found (sorted, with repeats).
std::vector<u16> codes_of(const std::string& text, const CheckOptions& opt = {});
// Codes of a trace built in code.
std::vector<u16> codes_of(const Trace& t, const CheckOptions& opt = {});
// The error message of a text the reader must reject ("" if it was accepted).
std::string reader_error(const std::string& text);

// Header line for an operator given as the JSON of its "op" object.
std::string header(const std::string& op_json, const std::string& extra = "");

// Runs the collcheck binary with `args`; returns its exit status and output.
struct RunResult {
  int status = -1;
  std::string out;
  std::string err;
};
RunResult run_collcheck(const std::string& args);

// Full path of an external program on PATH ("" if absent).
std::string find_program(const std::string& name);
// Whether a missing external tool must fail the test instead of skipping it:
// in CI (environment variable CI set), where scripts/test installs it.
bool tools_required();

// Runs a shell command; returns its exit status (-1 if it did not exit).
int run_shell(const std::string& command);

std::string source_dir();
// A file's whole content ("" if it cannot be read).
std::string slurp(const std::string& path);
std::string temp_path(const std::string& name);

// A report (text, JSON, SARIF or JUnit XML) with its measured times masked:
// the only bytes that may change between two runs on the same input.
std::string without_times(const std::string& report);

}  // namespace cc::test
