# Black-box: `cpack -G DEB` builds a Debian package of this build with the tool, its man page,
# completions and catalog documentation, dependencies from its shared libraries, and no CUDA
# probe (its cuBLAS comes from NVIDIA's toolkit, not from a Debian package).
. "$(dirname "$0")/lib.sh"
build="$(dirname "$GPUPLAN")"
[ -f "$build/CPackConfig.cmake" ] && command -v cpack >/dev/null && command -v dpkg-deb >/dev/null &&
  command -v dpkg-shlibdeps >/dev/null || exit 77
cpack -G DEB -B "$TMP/pkg" --config "$build/CPackConfig.cmake" >"$TMP/cpack.log" 2>&1 ||
  fail "cpack -G DEB failed: $(tail -3 "$TMP/cpack.log")"
deb=$(ls "$TMP"/pkg/gpuplan_*_amd64.deb "$TMP"/pkg/gpuplan_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no gpuplan_VERSION_ARCH.deb in $(ls "$TMP/pkg")"
[ "$(dpkg-deb -f "$deb" Package)" = gpuplan ] || fail "the package is not named gpuplan"
# Depends names each shared library the built tool links (toml++ is compiled in when
# GPUPLAN_TOML_HEADER_ONLY, as in the sanitizer build).
depends=$(dpkg-deb -f "$deb" Depends)
grep -q libfmt <<<"$depends" || fail "Depends lacks the fmt library: $depends"
if command -v ldd >/dev/null && ldd "$GPUPLAN" | grep -q libtomlplusplus; then
  grep -q libtomlplusplus <<<"$depends" || fail "Depends lacks the toml++ library: $depends"
fi
dpkg-deb -c "$deb" >"$TMP/list"
for f in ./usr/bin/gpuplan ./usr/share/man/man1/gpuplan.1 ./usr/share/man/man7/gpuplan-settings.7 ./usr/share/man/man5/gpuplan-plan.5 ./usr/share/bash-completion/completions/gpuplan \
         ./usr/share/doc/gpuplan/catalogs/accelerators.toml; do
  grep -q " $f\$" "$TMP/list" || fail "the package lacks $f"
done
grep -q "gpuplan-probe-cuda" "$TMP/list" && fail "the package carries the CUDA probe, whose cuBLAS no Debian package provides"
dpkg-deb -x "$deb" "$TMP/root"
GPUPLAN="$TMP/root/usr/bin/gpuplan"
run --version
expect_rc 0; expect_out "gpuplan $(dpkg-deb -f "$deb" Version)"
finish
