#!/bin/sh
# A COLLCHECK_STATIC build (cmake/static.cmake): the installed binary needs
# no shared library but glibc's and those installed with it in lib/collcheck/,
# finds those there wherever the tree is copied (here: the TGZ package
# unpacked elsewhere), asks for no glibc or libstdc++ newer than the ones
# docs/SCALING.md names, and says in --version how it was linked:
#   sh static_test.sh CMAKE CPACK BUILD_DIR SOURCE_DIR
set -eu
cmake=$1 cpack=$2 build=$3 src=$4
. "$(dirname "$0")/lib.sh"
# The newest glibc and libstdc++ (GCC 11) versions the binary and its bundled
# libraries may ask for (Debian 12 has glibc 2.36); docs/SCALING.md names them.
max_glibc=2.36
max_glibcxx=3.4.29

grep -q '^COLLCHECK_STATIC:BOOL=ON' "$build/CMakeCache.txt" || fail "$build is not configured with -DCOLLCHECK_STATIC=ON"
need readelf binutils
need objdump binutils
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
p=$t/prefix
"$cmake" --install "$build" --prefix "$p" >"$t/install.log" 2>&1 || { cat "$t/install.log"; fail "cmake --install"; }

out=$("$p/bin/collcheck" --version) || fail "collcheck --version"
echo "$out" | grep -q '^linked: static libstdc++, libgcc, zlib, zstd, SQLite, libxml2, jemalloc; shared ' ||
  fail "--version does not say it is linked statically: $out"
ok "$(echo "$out" | tr '\n' ' ')"

# Shared libraries: glibc's, and the bundled ones.
needed=$(readelf -d "$p/bin/collcheck" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
bundled=""
for lib in $needed; do
  case $lib in
    libc.so.* | libm.so.* | ld-linux*.so.* | libpthread.so.* | libdl.so.* | librt.so.*) ;;
    libstdc++* | libgcc_s* | libz.so* | libzstd* | libsqlite3* | libxml2* | libicu* | liblzma* | libjemalloc*) fail "$lib is linked dynamically" ;;
    *)
      [ -f "$p/lib/collcheck/$lib" ] || fail "$lib is needed but not installed in lib/collcheck/"
      bundled="$bundled $lib"
      ;;
  esac
done
runpath=$(readelf -d "$p/bin/collcheck" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
# shellcheck disable=SC2016
[ "$runpath" = '$ORIGIN/../lib/collcheck' ] || fail "RUNPATH is '$runpath'"
ok "needs$(echo " $needed" | tr '\n' ' '); bundled:$bundled; RUNPATH $runpath"

# The oldest systems it runs on: the newest symbol versions it asks for.
version_le() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$1" ]; }
libs=$(for lib in $bundled; do echo "$p/lib/collcheck/$lib"; done)
# shellcheck disable=SC2086
glibc=$(objdump -T "$p/bin/collcheck" $libs | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -uV | tail -n 1)
# shellcheck disable=SC2086
glibcxx=$(objdump -T "$p/bin/collcheck" $libs | grep -o 'GLIBCXX_[0-9][0-9.]*' | sed 's/^GLIBCXX_//' | sort -uV | tail -n 1)
version_le "$glibc" "$max_glibc" || fail "asks for GLIBC_$glibc, newer than $max_glibc (docs/SCALING.md)"
[ -z "$glibcxx" ] || version_le "$glibcxx" "$max_glibcxx" || fail "asks for GLIBCXX_$glibcxx, newer than $max_glibcxx"
ok "newest symbol versions asked for: GLIBC_$glibc, GLIBCXX_${glibcxx:-none}"

# The TGZ package, unpacked in another place, runs with the libraries it holds.
(cd "$t" && "$cpack" -G TGZ --config "$build/CPackConfig.cmake" -B "$t/pkg") >"$t/cpack.log" 2>&1 ||
  { cat "$t/cpack.log"; fail "cpack -G TGZ"; }
tgz=$(ls "$t"/pkg/collcheck-*.tar.gz)
mkdir "$t/node"
tar -xzf "$tgz" -C "$t/node"
top=$(ls "$t/node")
bin="$t/node/$top/bin/collcheck"
for lib in $bundled; do
  where=$(env -i ldd "$bin" | awk -v l="$lib" '$1 == l { print $3 }')
  if [ -z "$where" ] || [ "$(readlink -f "$where")" != "$(readlink -f "$t/node/$top/lib/collcheck/$lib")" ]; then
    fail "the unpacked binary takes $lib from '$where'"
  fi
done
out=$(env -i "$bin" check "$src/examples/allgather2.jsonl") || fail "unpacked: check examples/allgather2.jsonl: $out"
echo "$out" | grep -q ': PASS (0 errors; 0 warnings)' || fail "unpacked: $out"
[ -s "$t/node/$top/share/man/man1/collcheck.1" ] || fail "the TGZ package has no man page"
ok "${tgz##*/}, unpacked elsewhere, checks examples/allgather2.jsonl with its own$bundled"
