# SPDX-License-Identifier: Apache-2.0
# The licence: LICENSE is the Apache License 2.0, every source file (C++, CMake, shell) names it
# with an SPDX identifier in its first lines, and `cmake --install` installs the licence with the
# documentation.
. "$(dirname "$0")/lib.sh"
grep -q "Apache License" "$SRC/LICENSE" && grep -q "Version 2.0, January 2004" "$SRC/LICENSE" ||
  fail "LICENSE is not the Apache License 2.0"
missing=""
while IFS= read -r f; do
  head -3 "$SRC/$f" | grep -q "SPDX-License-Identifier: Apache-2.0" || missing="$missing $f"
done < <(cd "$SRC" && find src include tests scripts cmake .ci -type f \
           \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cmake' -o -name '*.sh' -o -name CMakeLists.txt \
              -o -path 'scripts/*' -o -path '.ci/*' \) ! -path 'tests/fuzz/seeds/*' ! -path 'tests/data/*' ! -path 'tests/golden/*' | sort)
[ -z "$missing" ] || fail "files without an SPDX identifier:$missing"
head -1 "$SRC/CMakeLists.txt" | grep -q "SPDX-License-Identifier: Apache-2.0" || fail "CMakeLists.txt lacks its SPDX identifier"
build="$(dirname "$GPUPLAN")"
if [ -f "$build/cmake_install.cmake" ] && command -v cmake >/dev/null; then
  cmake --install "$build" --prefix "$TMP/prefix" >"$TMP/install.log" 2>&1 || fail "cmake --install failed"
  cmp -s "$SRC/LICENSE" "$TMP/prefix/share/doc/gpuplan/LICENSE" || fail "cmake --install did not install LICENSE with the documentation"
fi
finish
