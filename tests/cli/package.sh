# SPDX-License-Identifier: Apache-2.0
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
# Debian policy (what lintian checks): man pages gzip-compressed, a machine-readable copyright
# file, a stripped binary, an extended description.
for f in ./usr/bin/gpuplan ./usr/share/man/man1/gpuplan.1.gz ./usr/share/man/man7/gpuplan-settings.7.gz \
         ./usr/share/man/man5/gpuplan-plan.5.gz ./usr/share/bash-completion/completions/gpuplan \
         ./usr/share/doc/gpuplan/copyright ./usr/share/doc/gpuplan/catalogs/accelerators.toml; do
  grep -q " $f\$" "$TMP/list" || fail "the package lacks $f"
done
grep -q "gpuplan-probe-cuda" "$TMP/list" && fail "the package carries the CUDA probe, whose cuBLAS no Debian package provides"
[ "$(dpkg-deb -f "$deb" Description | wc -l)" -gt 2 ] || fail "the package has no extended description"
dpkg-deb -x "$deb" "$TMP/root"
head -1 "$TMP/root/usr/share/doc/gpuplan/copyright" | grep -q "copyright-format/1.0" || fail "the copyright file is not DEP-5"
if command -v file >/dev/null; then
  file "$TMP/root/usr/bin/gpuplan" | grep -q ", stripped" || fail "the packaged binary is not stripped"
fi
# lintian, where installed: no error or warning. Without a maintainer's address (which the project
# does not invent: CMakeLists.txt, GPUPLAN_DEB_MAINTAINER) the package overrides, with that reason,
# the two tags it brings (the Maintainer field and the changelog that needs it), and only those.
if command -v lintian >/dev/null; then
  lintian --show-overrides "$deb" >"$TMP/lintian" 2>&1
  if grep -E '^[EW]: ' "$TMP/lintian" >"$TMP/tags"; then fail "lintian: $(head -5 "$TMP/tags" | tr '\n' ';')"; fi
  grep -E '^O: ' "$TMP/lintian" | sed 's/^O: gpuplan: \([a-z-]*\).*/\1/' | sort -u >"$TMP/overridden"
  if grep -q '<.*@.*>' <<<"$(dpkg-deb -f "$deb" Maintainer)"; then
    [ ! -s "$TMP/overridden" ] || fail "a package with a maintainer's address overrides lintian: $(cat "$TMP/overridden")"
  else
    [ "$(tr '\n' ' ' <"$TMP/overridden")" = "malformed-contact no-changelog " ] ||
      fail "lintian overrides other than the maintainer's address: $(tr '\n' ' ' <"$TMP/overridden")"
  fi
fi
GPUPLAN="$TMP/root/usr/bin/gpuplan"
run --version
expect_rc 0; expect_out "gpuplan $(dpkg-deb -f "$deb" Version)"
# What an installed user gets from the package's own files: the man pages render, and its bash
# completion completes subcommands, flags and catalog ids (asking the packaged tool).
if command -v mandoc >/dev/null; then
  for page in man1/gpuplan.1 man5/gpuplan-plan.5 man5/gpuplan-catalog.5 man7/gpuplan-settings.7; do
    f="$TMP/root/usr/share/man/$page"
    [ -f "$f" ] || f="$f.gz"
    { if [ "${f%.gz}" != "$f" ]; then gzip -dc "$f"; else cat "$f"; fi; } | mandoc -T utf8 >"$TMP/page" 2>/dev/null &&
      [ -s "$TMP/page" ] || fail "the packaged $page does not render"
  done
  grep -q "ZeRO-Offload" "$TMP/page" || fail "the packaged gpuplan-settings(7) lacks the offload setting"
fi
if command -v bash >/dev/null; then
  complete_packaged() {
    PATH="$TMP/root/usr/bin:$PATH" bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
      _gpuplan; printf "%s\n" "${COMPREPLY[@]}"' _ "$TMP/root/usr/share/bash-completion/completions/gpuplan" gpuplan "$@"
  }
  [ "$(complete_packaged tr)" = train ] || fail "the packaged completion does not complete 'tr' to train"
  complete_packaged train --off | grep -qx -- --offload || fail "the packaged completion lacks train --offload"
  complete_packaged train --gpu h100 | grep -qx h100-sxm || fail "the packaged completion does not complete catalog ids"
fi
finish
