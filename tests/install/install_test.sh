#!/bin/sh
# `cmake --install` into a temporary prefix installs the binary, the man
# page, the bash and zsh completions and the documentation, and the
# installed binary runs:
#   sh install_test.sh CMAKE BUILD_DIR SOURCE_DIR VERSION
set -eu
cmake=$1 build=$2 src=$3 version=$4
. "$(dirname "$0")/lib.sh"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
p=$t/prefix

"$cmake" --install "$build" --prefix "$p" >"$t/install.log" 2>&1 || { cat "$t/install.log"; fail "cmake --install"; }
for f in bin/collcheck share/man/man1/collcheck.1 share/bash-completion/completions/collcheck \
  share/zsh/site-functions/_collcheck share/doc/collcheck/README.md; do
  [ -s "$p/$f" ] || fail "$f not installed"
done
[ -x "$p/bin/collcheck" ] || fail "bin/collcheck is not executable"
# Every file of docs/ (texts, pictures, the report's schema), and ERRORS.md once there is one.
n=0
for f in "$src"/docs/*.md "$src"/docs/*.png "$src"/docs/*.svg "$src"/docs/*.jpg "$src"/docs/*.json "$src"/ERRORS.md; do
  [ -e "$f" ] || continue
  case $f in
    "$src"/docs/*) d=share/doc/collcheck/docs ;;
    *) d=share/doc/collcheck ;;
  esac
  cmp -s "$f" "$p/$d/${f##*/}" || fail "$d/${f##*/} not installed"
  n=$((n + 1))
done
ok "installed bin/collcheck, the man page, both completions, README.md and $n files of docs/"

# The installed binary runs.
out=$("$p/bin/collcheck" --version) || fail "collcheck --version"
[ "$(echo "$out" | head -n 1)" = "collcheck $version" ] || fail "--version printed: $out"
echo "$out" | grep -q '^linked: ' || fail "--version does not say how it was linked: $out"
out=$("$p/bin/collcheck" check "$src/examples/allgather2.jsonl") || fail "check examples/allgather2.jsonl: $out"
echo "$out" | grep -q ': PASS (0 errors; 0 warnings) ranks=2 tasks=12' || fail "check examples/allgather2.jsonl: $out"
ok "installed collcheck --version; check examples/allgather2.jsonl passes"

# The man page has a section for every subcommand of --help, naming every
# option that subcommand's --help names.
man="$p/share/man/man1/collcheck.1"
page=$(sed 's/\\-/-/g' "$man")
subs=$("$p/bin/collcheck" --help | awk '/^Subcommands:/ { s = 1; next } /^[^ ]/ { s = 0 } s && /^  [^ ]/ { print $1 }')
[ -n "$subs" ] || fail "collcheck --help lists no subcommands"
for s in $subs; do
  echo "$page" | grep -qx ".SS \"collcheck $s\"" || fail "the man page has no section for $s"
  for o in $("$p/bin/collcheck" "$s" --help | grep -o -- '--[a-z0-9-]*' | sort -u); do
    echo "$page" | grep -q -- "$o" || fail "the man page does not name $s $o"
  done
done
ok "the man page covers $(echo "$subs" | wc -l) subcommands and their options"
need man man-db
warnings=$(MANWIDTH=80 man --warnings -l "$man" 2>&1 >/dev/null) || fail "man -l collcheck.1"
[ -z "$warnings" ] || fail "groff warns about the man page: $warnings"
MANWIDTH=80 man -l "$man" 2>/dev/null | grep -q 'collcheck merge-reports' || fail "man -l does not render the page"
ok "man renders the page without warnings"

# bash: subcommands, then the options of the subcommand on the line.
complete_bash() {
  bash --norc --noprofile -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _collcheck; echo "${COMPREPLY[*]}"' \
    sh "$p/share/bash-completion/completions/collcheck" "$@"
}
[ "$(complete_bash collcheck ch)" = "check" ] || fail "bash: collcheck ch<TAB> gives '$(complete_bash collcheck ch)'"
[ "$(complete_bash collcheck me)" = "merge-reports" ] || fail "bash: collcheck me<TAB>"
[ "$(complete_bash collcheck check --max-e)" = "--max-errors" ] || fail "bash: collcheck check --max-e<TAB>"
[ "$(complete_bash collcheck dot x.jsonl --rad)" = "--radius" ] || fail "bash: collcheck dot x.jsonl --rad<TAB>"
[ -z "$(complete_bash collcheck check --json '')" ] || fail "bash: the value of --json should complete as a file name"
bash --norc --noprofile -c '. "$1"; complete -p collcheck' sh "$p/share/bash-completion/completions/collcheck" \
  | grep -q -- '-F _collcheck' || fail "bash: the completion is not registered for collcheck"
ok "bash completes subcommands and their options"

# zsh: the file parses, and compinit finds it in fpath for collcheck.
need zsh zsh
zsh -n "$p/share/zsh/site-functions/_collcheck" || fail "zsh -n _collcheck"
got=$(zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -d "$2"; print -r -- $_comps[collcheck]' \
  zsh "$p/share/zsh/site-functions" "$t/zcompdump")
[ "$got" = "_collcheck" ] || fail "zsh: compinit does not register _collcheck for collcheck (got '$got')"
ok "zsh loads the completion"
