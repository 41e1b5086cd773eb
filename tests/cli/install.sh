# SPDX-License-Identifier: Apache-2.0
# Black-box: `cmake --install` of this build puts both executables, the man page and the three
# completions in place; the installed catalogs are documentation, so the installed tool reads
# one layer of them (the built-in copy), not two.
. "$(dirname "$0")/lib.sh"
build="$(dirname "$GPUPLAN")"
[ -f "$build/cmake_install.cmake" ] && command -v cmake >/dev/null || exit 77
prefix="$TMP/prefix"
cmake --install "$build" --prefix "$prefix" >"$TMP/install.log" 2>&1 || fail "cmake --install failed: $(tail -3 "$TMP/install.log")"
for f in bin/gpuplan share/man/man1/gpuplan.1.gz share/man/man7/gpuplan-settings.7.gz share/man/man5/gpuplan-plan.5.gz share/man/man5/gpuplan-catalog.5.gz share/bash-completion/completions/gpuplan \
         share/zsh/vendor-completions/_gpuplan share/fish/vendor_completions.d/gpuplan.fish \
         share/doc/gpuplan/catalogs/accelerators.toml; do
  [ -f "$prefix/$f" ] || fail "cmake --install did not install $f"
done
if [ -x "$build/gpuplan-probe-cuda" ]; then
  [ -x "$prefix/bin/gpuplan-probe-cuda" ] || fail "the CUDA probe was built but not installed"
fi
[ -e "$prefix/share/gpuplan/catalogs" ] && fail "catalogs installed into the loading path as well as compiled in"
GPUPLAN="$prefix/bin/gpuplan"
XDG_DATA_DIRS="$prefix/share" run catalog paths --format json
expect_rc 0; expect_out '"origin": "built-in"'
[ "$(grep -c '"exists": true' "$TMP/out")" -eq 1 ] || fail "the installed tool reads more than one catalog layer: $(cat "$TMP/out")"
finish
