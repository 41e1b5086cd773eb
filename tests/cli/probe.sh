# SPDX-License-Identifier: Apache-2.0
# Black-box: the CPU probe runs here and gives physically sane figures; calibration files are
# written atomically, compared, used by the models, and refused for another device.
. "$(dirname "$0")/lib.sh"

run probe --device cpu --quick -o "$TMP/cpu.toml"
expect_rc 0; expect_no_out
! grep -q "gpuplan: probe:" "$TMP/err" || fail "a probe whose stderr is a file should print no progress, got: $err"
[ -s "$TMP/cpu.toml" ] || fail "probe wrote no calibration file"
# On a terminal, progress past the first second is one line rewritten in place and erased at
# the end (script(1) gives the probe a pseudo-terminal); GPUPLAN_NO_PROGRESS silences it.
if command -v script >/dev/null; then
  script -qec "'$GPUPLAN' probe --device cpu --quick -o '$TMP/pty.toml'" /dev/null >"$TMP/pty" 2>&1
  # The last progress line ends with its erase (\033[K), then \r\033[K erases it; any warning follows.
  if grep -q "gpuplan: probe: [0-9] of 5, " "$TMP/pty"; then
    last=$(cat -v "$TMP/pty" | tr -d '\n' | sed 's/.*gpuplan: probe: [0-9] of 5, //')
    case "$last" in
      *'^[[K^M^[[K'*) ;;
      *) fail "progress left on the terminal: $(cat -v "$TMP/pty")" ;;
    esac
  fi
  GPUPLAN_NO_PROGRESS=1 script -qec "'$GPUPLAN' probe --device cpu --quick -o '$TMP/pty.toml' --force" /dev/null >"$TMP/pty" 2>&1
  ! grep -q "gpuplan: probe:" "$TMP/pty" || fail "GPUPLAN_NO_PROGRESS=1 still shows progress: $(cat -v "$TMP/pty")"
fi
num() { sed -n "/metric = \"$1\"/,/^status/s/^value = \([0-9.e+]*\)$/\1/p" "$TMP/cpu.toml"; }
gflops=$(num gemm_fp32); gbs=$(num stream_triad)
# Broad physical bounds for any machine that runs CI: 1 GFLOP/s to 100 TFLOP/s; 0.5 GB/s to 2 TB/s.
awk -v f="$gflops" -v b="$gbs" 'BEGIN { exit !(f > 1e9 && f < 1e14 && b > 5e8 && b < 2e12) }' \
  || fail "CPU probe figures out of bounds: gemm_fp32 $gflops FLOP/s, stream_triad $gbs B/s"
grep -q '^isa = ' "$TMP/cpu.toml" || fail "the instruction set is not recorded"
grep -q '^kind = "cpu"' "$TMP/cpu.toml" || fail "kind is not cpu"

# An existing file needs --force; nothing is touched without it.
cp "$TMP/cpu.toml" "$TMP/before"
run probe --device cpu --quick -o "$TMP/cpu.toml"
expect_rc 73; expect_err "exists; use --force"; expect_no_out; expect_one_line_err
cmp -s "$TMP/before" "$TMP/cpu.toml" || fail "a refused probe changed the file"

run probe --compare "$TMP/cpu.toml"
expect_rc 0; expect_out "gemm_fp32"; expect_out "stream_triad"; expect_out "ratio"
run probe --compare "$TMP/cpu.toml" --format json
expect_rc 0; expect_out '"accelerator": "cpu-desktop"'; expect_out '"ratio":'

# The models use it, say so, and refuse it for another device.
run infer --model llama-3.1-8b --gpu cpu-desktop --quant q4_k_m --calibration "$TMP/cpu.toml" --format json
expect_rc 0; expect_out "\"calibration\": \"$TMP/cpu.toml\""; expect_out '"origin": "calibration: default scaled'
run train --params 1B --gpu h100-sxm --gpus 8 --calibration "$TMP/cpu.toml"
expect_rc 2; expect_err "was measured on cpu-desktop"; expect_no_out; expect_one_line_err
# The default location is used when present.
mkdir -p "$XDG_CONFIG_HOME/gpuplan/calibration"
cp "$TMP/cpu.toml" "$XDG_CONFIG_HOME/gpuplan/calibration/cpu-desktop.toml"
run infer --model llama-3.1-8b --gpu cpu-desktop --quant q4_k_m --format json
expect_rc 0; expect_out "gpuplan/calibration/cpu-desktop.toml\""
rm "$XDG_CONFIG_HOME/gpuplan/calibration/cpu-desktop.toml"

# A calibration for an H100 that halves its GEMM rate slows training down.
cat >"$TMP/h100.toml" <<TOML
schema = 1
kind = "cuda"
device_name = "NVIDIA H100 80GB HBM3"
accelerator = "h100-sxm"
[[measurement]]
metric = "gemm_bf16"
value = 4.0e14
unit = "FLOP/s"
TOML
run train --params 1B --gpu h100-sxm --gpus 8 --format json
base=$(sed -n 's/^  "step_time_s": \(.*\),$/\1/p' "$TMP/out")
run train --params 1B --gpu h100-sxm --gpus 8 --calibration "$TMP/h100.toml" --format json
expect_rc 0
slow=$(sed -n 's/^  "step_time_s": \(.*\),$/\1/p' "$TMP/out")
awk -v a="$base" -v b="$slow" 'BEGIN { exit !(b > 1.3 * a) }' || fail "calibrated step $slow is not slower than $base"

# The CUDA probe: exit 69 with the driver's message where there is no GPU; a file where there is.
run probe --device cuda --quick
if [ "$rc" -eq 69 ]; then
  expect_no_out; expect_one_line_err
  grep -qE "no CUDA device found|no CUDA probe" "$TMP/err" || fail "unexpected message: $err"
else
  expect_rc 0; expect_out 'kind = "cuda"'
fi

bad 2 "--device 'tpu' is not known" probe --device tpu
bad 66 "cannot read calibration file" probe --compare "$TMP/missing.toml"
printf 'schema = 1\nkind = "cpu"\n' >"$TMP/partial.toml"
bad 65 "missing 'device_name'" probe --compare "$TMP/partial.toml"
bad 66 "cannot read calibration file" train --params 1B --gpus 8 --calibration "$TMP/missing.toml"
bad 73 "it is a directory" probe --device cpu --quick -o "$TMP" --force

finish
