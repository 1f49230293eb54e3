#!/bin/sh
# cpack -G DEB makes collcheck_VERSION_ARCH.deb with the installed files and
# Depends from dpkg-shlibdeps; dpkg -i installs it on this machine, the
# binary and its man page are found, and dpkg -r removes every file again:
#   sh deb_test.sh CPACK BUILD_DIR SOURCE_DIR VERSION
# Needs root or password-less sudo, else skipped; skipped too when a
# collcheck is installed already (it is not this test's to replace).
set -eu
cpack=$1 build=$2 src=$3 version=$4
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -eq 0 ]; then
  as_root=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root="sudo -n"
else
  skip "installing a package needs root or password-less sudo"
fi
need dpkg-shlibdeps dpkg-dev
need man man-db
need flock util-linux
# One such test at a time on this machine (several work trees may run their
# suites at once); dpkg's own lock may be held by apt for a while: retry.
lock=/tmp/collcheck-package-test.lock
if [ ! -e "$lock" ] || [ -w "$lock" ]; then
  exec 9>>"$lock"
  flock -w 300 9 || fail "another package test held $lock for 5 minutes"
fi
as_dpkg() {
  i=0
  while ! $as_root dpkg "$@" >"$t/dpkg.log" 2>&1; do
    i=$((i + 1))
    if [ "$i" -ge 24 ] || ! grep -q 'lock' "$t/dpkg.log"; then
      cat "$t/dpkg.log"
      return 1
    fi
    sleep 5
  done
}
if dpkg-query -W -f='${Status}' collcheck 2>/dev/null | grep -q 'ok installed'; then
  skip "a collcheck package is installed already"
fi
[ ! -e /usr/bin/collcheck ] || skip "/usr/bin/collcheck exists already"

t=$(mktemp -d)
installed=0
cleanup() {
  if [ "$installed" = 1 ]; then $as_root dpkg -r collcheck >/dev/null 2>&1 || true; fi
  rm -rf "$t"
}
trap cleanup EXIT

(cd "$t" && "$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$t") >"$t/cpack.log" 2>&1 ||
  { cat "$t/cpack.log"; fail "cpack -G DEB"; }
deb="$t/collcheck_${version}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || { ls "$t"; fail "cpack made no ${deb##*/}"; }
ok "cpack -G DEB made ${deb##*/}"

# Depends: every shared library the binary needs, found by dpkg-shlibdeps.
depends=$(dpkg-deb -f "$deb" Depends)
for p in libc6 libstdc++6 libsimdjson libfmt zlib1g libzstd libsqlite3 libxml2; do
  echo "$depends" | grep -q "$p" || fail "Depends lacks $p: $depends"
done
ok "Depends: $depends"
files=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for f in ./usr/bin/collcheck ./usr/share/man/man1/collcheck.1 ./usr/share/bash-completion/completions/collcheck \
  ./usr/share/zsh/vendor-completions/_collcheck ./usr/share/doc/collcheck/README.md \
  ./usr/share/doc/collcheck/docs/DESIGN.md; do
  echo "$files" | grep -qx "$f" || fail "the package lacks $f"
done
ok "the package holds the binary, the man page, both completions and the documentation"

as_dpkg -i "$deb" || fail "dpkg -i ${deb##*/}"
installed=1
out=$(/usr/bin/collcheck --version) || fail "/usr/bin/collcheck --version"
[ "$(echo "$out" | head -n 1)" = "collcheck $version" ] || fail "/usr/bin/collcheck --version printed: $out"
out=$(/usr/bin/collcheck check "$src/examples/allgather2.jsonl") || fail "check examples/allgather2.jsonl: $out"
page=$(man -aw collcheck) || fail "man -w collcheck finds no page"
echo "$page" | grep -qx /usr/share/man/man1/collcheck.1 || fail "man -w collcheck: $page"
page=/usr/share/man/man1/collcheck.1
ok "dpkg -i: /usr/bin/collcheck --version and check run, man -w collcheck is $page"

as_dpkg -r collcheck || fail "dpkg -r collcheck"
installed=0
[ ! -e /usr/bin/collcheck ] || fail "/usr/bin/collcheck is still there after dpkg -r"
if dpkg-query -W -f='${Status}' collcheck 2>/dev/null | grep -q 'ok installed'; then fail "still installed after dpkg -r"; fi
for f in $files; do
  f=${f#.}
  [ -d "$f" ] || [ ! -e "$f" ] || fail "$f is still there after dpkg -r"
done
ok "dpkg -r removed every file of the package"
