# Black-box: hostile inputs from the hardening audit: failed stdout writes, unbounded reads,
# huge indices. Each must exit with its documented code and one stderr line.
. "$(dirname "$0")/lib.sh"

# A full disk on stdout is exit 73, not a silent 0.
for args in "catalog list accelerators" "--version" "train --help" "settings --format json"; do
  # shellcheck disable=SC2086
  "$GPUPLAN" $args >/dev/full 2>"$TMP/err"
  rc=$?; err=$(cat "$TMP/err")
  expect_rc 73; expect_err "cannot write to standard output"; expect_one_line_err
done

# Reads are capped whatever the file is: /dev/zero never grows a buffer without bound.
run plan /dev/zero
expect_rc 65; expect_err "the plan is more than 1 MiB"; expect_one_line_err
run catalog check /dev/zero
expect_rc 65; expect_err "the catalog is more than 4 MiB"; expect_one_line_err
run catalog list sites --catalog /dev/zero
expect_rc 65; expect_err "the catalog is more than 4 MiB"; expect_one_line_err
run train --params 1B --gpus 8 --calibration /dev/zero
expect_rc 65; expect_err "the calibration file is more than 1 MiB"; expect_one_line_err
printf '[[scenario]]\nname = "a"\nparams = "1B"\ngpus = 8\ncalibration = "/dev/zero"\n' >"$TMP/cal.toml"
run plan "$TMP/cal.toml"
expect_rc 65; expect_err "the calibration file is more than 1 MiB"

# A huge index in --get matches nothing (it was 'internal error: stoul', exit 70).
printf '[[scenario]]\nname = "a"\nparams = "1B"\ngpus = 8\n' >"$TMP/one.toml"
run plan "$TMP/one.toml" --get scenarios.99999999999999999999999
expect_rc 2; expect_err "matches nothing"; expect_one_line_err
finish
