# Sourced by the tests of this folder: messages, skips and tools.
# A missing tool skips the test (exit 77), unless CI is set (and not 0 or
# false), when it fails it, as tests/test_util.cc's tools_required() does.
name=${0##*/}
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
skip() { echo "$name: SKIP: $*"; exit 77; }
ok() { echo "$name: ok: $*"; }
tools_required() {
  case "${CI:-}" in "" | 0 | false) return 1 ;; *) return 0 ;; esac
}
# need TOOL PACKAGE: TOOL must be on PATH (scripts/test installs PACKAGE).
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  if tools_required; then fail "$1 is not installed (package $2; scripts/test installs it)"; fi
  skip "$1 is not installed (package $2; scripts/test installs it)"
}
