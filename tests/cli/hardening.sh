# SPDX-License-Identifier: Apache-2.0
# Black-box: hostile inputs from the hardening audit: failed stdout writes, unbounded reads,
# huge indices. Each must exit with its documented code and one stderr line.
. "$(dirname "$0")/lib.sh"

# A full disk on stdout is exit 73, not a silent 0.
for args in "catalog list accelerators" "--version" "-V" "train --help" "settings --format json"; do
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

# Defect 1: a load beyond any buildable deployment is refused (it printed a negative count, exit 0).
run infer --model llama-3.1-70b --gpu cpu-desktop --quant q2_k --rate 1e7 --ttft 1h --tpot 1h
expect_rc 1; expect_err "needs more than 10000000 devices"; expect_one_line_err; expect_no_out

# Defect 5: absurd magnitudes are refused by the settings table's ranges (they printed inf).
for args in "--reserve 1e308" "--tokens 1e308" "--staff 1e308" "--years 1e-308"; do
  # shellcheck disable=SC2086
  run train --model llama-3.1-70b --gpus 64 $args
  expect_rc 2; expect_err "must be"; expect_one_line_err; expect_no_out
done

# Defect 7: a small plan that asks for hours of searching is refused before anything runs.
{
  printf '[defaults]\nmodel = "llama-3.1-405b"\n[[scenario]]\nname = "w"\nweeks = ['
  for i in $(seq 1 499); do printf '%s,' "$i"; done
  printf '520]\n[sensitivity]\nmfu = 0.2\nprice = 0.2\npue = 0.1\ntokens = 0.2\npower = 0.1\n'
} >"$TMP/big.toml"
run plan "$TMP/big.toml"
expect_rc 65; expect_err "the plan needs up to 220000 layout searches (500 scenarios, 11 evaluations each"
expect_err "(--max-searches)"; expect_one_line_err; expect_no_out
run plan "$TMP/one.toml" --max-searches 0
expect_rc 2; expect_err "--max-searches"; expect_one_line_err

# Defect 3: TOML that toml++ 3.3.0 mishandles (undefined behaviour, an assertion) is refused
# with a located error, and a catalog number that cannot be cast is out of range.
for text in '\xc3\xa9 = 1' '[=]' '[[ ,]]'; do
  printf "$text\n" >"$TMP/bad.toml"
  run catalog check "$TMP/bad.toml"
  expect_rc 65; expect_err "bad.toml:1:"
  run plan "$TMP/bad.toml"
  expect_rc 65; expect_err "bad.toml:1:"; expect_one_line_err
done
printf '[models.llama-2-7b]\nlayers = 1e308\n' >"$TMP/huge.toml"
run catalog check "$TMP/huge.toml"
expect_rc 65; expect_err "'layers' = 1e+308 is outside the sane range"
# A variant's default power limit must lie between a tenth of its TDP and the TDP: bad data (65).
printf '[accelerators.capped]\nname = "t"\nvendor = "x"\nfamily = "hopper"\nmemory_bytes = "80GB"\nmemory_bw_bytes_per_s = "3TB/s"\nbf16_flops_per_s = "900T"\ntdp_w = "700W"\npower_limit_w = "%s"\nlaunch_year = 2024\nsource = "t"\n' 50W >"$TMP/cap.toml"
run train --params 7B --gpu capped --gpus 8 --catalog "$TMP/cap.toml"
expect_rc 65; expect_err "accelerator 'capped': power_limit_w: power cap 50 W is too low for capped: expected more than 70 W"; expect_no_out; expect_one_line_err

# Defect 9: the plan author's text cannot break the output: a title with a newline, an escape
# sequence and Markdown; and a file name with a byte that is not UTF-8 (toml++ refuses such
# bytes inside the file, but the name reaches the report).
printf '[plan]\ntitle = "Evil\\n# heading \\u001b[2J <b>x</b> | z"\n[[scenario]]\nname = "a"\nparams = "1B"\ngpus = 8\n' \
  >"$TMP/evil.toml"
run plan "$TMP/evil.toml" --format markdown
expect_rc 0; expect_out "# Evil # heading  [2J \<b>x\</b> \| "
grep -q $'\x1b' "$TMP/out" && fail "an escape sequence reached stdout"
[ "$(grep -c '^# ' "$TMP/out")" -eq 1 ] || fail "the title made more than one heading"
cp "$TMP/evil.toml" "$TMP/evil"$'\xff'".toml"
run plan "$TMP/evil"$'\xff'".toml" --format json
expect_rc 0
python3 -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))' "$TMP/out" \
  || fail "plan JSON is not valid UTF-8 JSON"
run plan "$TMP/evil.toml" --format table
grep -q $'\x1b' "$TMP/out" && fail "an escape sequence reached the table"
# Defect 8: -o keeps the mode of the file it replaces, never replaces a symbolic link (dangling
# or not) without --force, and leaves no temporary file behind.
mkdir "$TMP/o"
: >"$TMP/o/r.md"; chmod 600 "$TMP/o/r.md"
run plan "$TMP/one.toml" --format markdown -o "$TMP/o/r.md" --force
expect_rc 0
[ "$(stat -c %a "$TMP/o/r.md")" = 600 ] || fail "--force changed the mode of the replaced file to $(stat -c %a "$TMP/o/r.md")"
ln -s "$TMP/o/nowhere" "$TMP/o/link.md"
run plan "$TMP/one.toml" -o "$TMP/o/link.md"
expect_rc 73; expect_err "is a symbolic link; use --force"; expect_one_line_err
[ -e "$TMP/o/nowhere" ] && fail "the dangling link was followed"
run plan "$TMP/one.toml" -o "$TMP/o/link.md" --force
expect_rc 0
[ -L "$TMP/o/link.md" ] && fail "--force should replace the link itself"
[ -e "$TMP/o/nowhere" ] && fail "--force followed the link"
[ -z "$(find "$TMP/o" -name '.*.??????')" ] || fail "a temporary file was left: $(ls -a "$TMP/o")"
# Host offload: an unknown set, a set the layout cannot run, a device with nowhere to offload.
run train --model llama-3.1-8b --gpus 8 --offload weights
expect_rc 2; expect_err "optimizer+weights"; expect_one_line_err
run memory --model llama-3.1-8b --zero 0 --offload optimizer
expect_rc 2; expect_err "optimizer offload needs ZeRO 1, 2 or 3"; expect_one_line_err
run train --model llama-3.1-8b --gpus 8 --offload all --recompute selective
expect_rc 2; expect_err "activation offload needs full recomputation"; expect_one_line_err
run train --model llama-3.1-8b --gpu apple-m3-max --gpus 1 --offload optimizer
expect_rc 2; expect_err "no separate host memory"; expect_one_line_err
# Offload as the last resort: 12 H100 (1.03 TB) hold Llama 3.1 70B's 1.27 TB of model states
# only with the optimizer on the host, and the answer says so.
run train --model llama-3.1-70b --gpus 12 --tokens 10B --get layout.offload
expect_rc 0; [ "$(cat "$TMP/out")" = optimizer ] || fail "70B on 12 H100: offload $(cat "$TMP/out"), expected optimizer"
run train --model llama-3.1-70b --gpus 12 --tokens 10B --offload none
expect_rc 1; expect_err "does not fit"; expect_one_line_err
# One device: ZeRO-Offload's single-GPU run (stage 2 on one rank) where the host has the room,
# and an error naming the host's share where it has not (70B: 16 B x 70.6B = 1.13 TB on the host).
run train --model llama-3.2-3b --gpu rtx-4090 --gpus 1 --tokens 1B --offload optimizer --get layout.zero
expect_rc 0; [ "$(cat "$TMP/out")" = 2 ] || fail "3B on one RTX 4090 with --offload optimizer: ZeRO $(cat "$TMP/out"), expected 2"
run train --model llama-3.1-70b --gpus 1 --tokens 1B
expect_rc 1; expect_err "nor with its training state offloaded to the 256 GiB of host memory a device has"; expect_one_line_err

# Fine-tuning: it needs its data, and one way of giving it.
run train --model llama-3.1-8b --gpus 8 --finetune lora
expect_rc 2; expect_err "fine-tuning needs its data"; expect_one_line_err
run train --model llama-3.1-8b --gpus 8 --finetune lora --tokens 1B --dataset-tokens 1B
expect_rc 2; expect_err "give --tokens or --dataset-tokens, not both"; expect_one_line_err
run train --model llama-3.1-8b --gpus 8 --finetune qlora --lora-rank 0 --dataset-tokens 1B
expect_rc 2; expect_err "--lora-rank"; expect_one_line_err
# QLoRA of a 70B model on one 80 GB device: 70.6B x 4.127 bits = 36 GB of frozen weights.
run train --model llama-3.1-70b --gpu a100-80gb --gpus 1 --finetune qlora --dataset-tokens 20M --get finetune
expect_rc 0; [ "$(cat "$TMP/out")" = qlora ] || fail "QLoRA 70B on one A100: $(cat "$TMP/out")"

finish
