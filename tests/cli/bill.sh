# SPDX-License-Identifier: Apache-2.0
# Black-box: the bill of a training run (train) and a facility (power), its JSON keys and bad input.
. "$(dirname "$0")/lib.sh"

# README's first command: the whole plan, byte for byte.
run train --model llama-3.1-70b --gpu h100-sxm --gpus 1024 --tokens 15T
expect_rc 0; expect_out "facility power"; expect_out "cloud cost"; expect_out "owned: per year / over"; expect_out "buy vs cloud break-even"
golden train-llama-3.1-70b-1024.txt
# The same at an 80-column terminal (script(1) gives the tool one): every line fits, the labels
# whole and the values wrapped.
if command -v script >/dev/null && command -v stty >/dev/null; then
  script -qec "stty cols 80; '$GPUPLAN' train --model llama-3.1-70b --gpu h100-sxm --gpus 1024 --tokens 15T 2>/dev/null" \
    /dev/null 2>/dev/null | tr -d '\r' >"$TMP/out"
  [ "$(awk 'length > 80' "$TMP/out" | wc -l)" -eq 0 ] || fail "lines over 80 columns: $(awk 'length > 80' "$TMP/out" | head -2)"
  grep -q "^cloud: per year / over 4.00 years at 100% use " "$TMP/out" || fail "a bill label wrapped at 80 columns"
  golden train-llama-3.1-70b-1024-80col.txt
fi
run train --model llama-3.1-405b --gpu h100-sxm --gpus 16384 --tokens 15.6T --site us-average --format json
expect_rc 0
for k in power it_kw facility_mw_peak facility_mw_avg racks energy_mwh co2_t cost_usd cloud owned_run owned_tco \
         electricity idle_gpu_hour storage dataset_bytes read_bytes_per_s units checkpoint_bytes checkpoint_write_s \
         fabric nics switches tiers comm_fraction assumptions name value unit origin energy_gpu_tdp_mwh co2_gpu_tdp_t; do
  expect_out "\"$k\":"
done
golden train-llama-3.1-405b-16384.json
run train --model llama-3.1-70b --gpu b200 --weeks 6 --buy --years 4 --site hyperscale --format json
expect_rc 0; expect_out '"headline": "owned"'; expect_out '"site": "hyperscale"'
run train --params 7B --gpu a100-80gb --gpus 64 --cloud aws --committed --format json
expect_rc 0; expect_out '"value": 3,'; expect_out 'prices.aws-a100-80gb-1y'
run train --params 7B --gpu a100-80gb --gpus 64 --price '$2/h' --format json
expect_rc 0; expect_out '"origin": "set: price"'
run train --params 7B --gpu a100-80gb --gpus 64 --storage weka --storage-units 1 --checkpoint-every 1h --format json
expect_rc 0; expect_out '"system": "weka"'; expect_out '"checkpoint_write_s": 1.0'
run train --params 7B --gpu a100-80gb --gpus 64 --explain
expect_rc 0; expect_out "Newkirk"; expect_out "PUE = 1.56"

# A facility: DGX H100 at 10.2 kW; 100k H100 near the ~150 MW published for clusters of that size.
run power --gpu h100-sxm --gpus 8 --format json
expect_rc 0; expect_out '"it_kw": 10.2,'; expect_out '"tiers": 0'
run power --gpu h100-sxm --gpus 100000 --site enterprise --format json
expect_rc 0
it_kw=$(sed -n 's/.*"it_kw": \([0-9.]*\),/\1/p' "$TMP/out")
awk -v v="$it_kw" 'BEGIN { exit !(v > 120000 && v < 180000) }' || fail "100k H100 IT power $it_kw kW is outside 120-180 MW"
golden power-h100-100k-enterprise.json
# Four desktop cards with no fabric in their record: said so, not "switch radix unknown for ''".
run power --gpu rtx-4090 --gpus 4
expect_rc 0; expect_out "4 nodes, no scale-out fabric in the device's record (--scale-out names one)"
run power --gpu rtx-4090 --gpus 4 --scale-out roce-100g
expect_rc 0; expect_out "4 NICs of roce-100g, 1 switch in 1 tier"
# A Mac's power is Apple's figure for the whole machine at the wall (M3 Ultra Mac Studio, max
# 270 W: Apple Support 102027), not a server's 1.82 x TDP around it (491 W before).
run power --gpu apple-m3-ultra --gpus 1
expect_rc 0; expect_out "1 node of 1 at 270 W)"
# MI300X rents on demand (a 2026-05 survey: $1.50 a GPU-hour on TensorWave, $6 on Azure); the
# cheapest quote is the default, --cloud names another. 8 x $6 x 8,760 h = $420k a year.
run power --gpu mi300x --gpus 8
expect_rc 0; expect_out "tensorwave on-demand at \$1.50/device-hour"; grep -q "no on-demand cloud price" "$TMP/err" && fail "MI300X has cloud prices"
run power --gpu mi300x --gpus 8 --cloud azure
expect_rc 0; expect_out "\$420k (azure on-demand at \$6.00/device-hour)"
run power --gpu b300 --gpus 8
expect_rc 0; expect_out "neocloud on-demand at \$5.00/device-hour"
run power --gpu tpu-v5p --gpus 256
expect_rc 0; expect_out "x tpu-v5p"; expect_err "gpuplan: warning: no power figure for tpu-v5p"; grep -q "warning" "$TMP/out" && fail "a warning reached stdout"

# Physical answers: a GB200 NVL72 rack (120 kW, rack-scale, liquid) in a 40 kW site is warned
# about, never silently packed; a NIC per GPU (576 for a scalable unit of 8 racks); a fabric
# past three tiers of its switches is flagged, and a higher-radix one (--scale-out) fixes it.
run power --gpu gb200 --gpus 576 --site enterprise --format json
expect_rc 0; expect_out '"racks": 8,'; expect_out '"nics": 576,'; expect_out '"liquid_cooled": true'
expect_out '"rack_limit": "a rack-scale system"'; expect_err "draws 120 kW, more than the 40.0 kW rack budget"
run power --gpu h100-sxm --gpus 100000 --site hyperscale
expect_rc 0; expect_err "need a 4-tier fat tree of 64-port ib-ndr switches"; grep -q "carbon per year .*kt CO2e" "$TMP/out" || fail "carbon not in kt CO2e"
grep -q " mt CO2e" "$TMP/out" && fail "carbon printed in milli-tonnes"
run power --gpu h100-sxm --gpus 100000 --site hyperscale --scale-out ib-xdr --format json
expect_rc 0; expect_out '"link": "ib-xdr"'; expect_out '"tiers": 3,'; expect_out '"fits": true'
run power --gpu h100-sxm --gpus 1024 --years 5 --buy
expect_rc 0; expect_out "owned: per year / over 5.00 years"; expect_out "cloud: per year / over 5.00 years"
grep -q "buy vs cloud break-even .*months" "$TMP/out" || fail "no break-even in months"; expect_out "limited by power budget"

# A campus of tens of MW at the default (national-average) site is told to give one.
run power --gpus 20000
expect_rc 0; expect_err "at the default site us-average (PUE 1.56, a national average)"
run power --gpus 20000 --site us-average
expect_rc 0; grep -q "national average" "$TMP/err" && fail "warned though --site was given"

# Idle time of an owned facility: B200 boards draw 137 W idle, so half use costs more than half the energy.
run power --gpu b200 --gpus 64 --utilisation 0.5 --format json
expect_rc 0; expect_out '"facility_mw_idle": 0.0142'; expect_out '"energy_mwh_per_year": 658.'
run power --gpu h100-sxm --gpus 64 --utilisation 0.5
expect_rc 0; expect_err "no idle draw for h100-sxm in the catalog"

# A board power limit: the node's nameplate falls by 8 x (700 - 500) W, the compute clock to
# (500/700) / 0.948^2 = 0.795 (below the voltage floor; no idle figure for h100-sxm), and
# training slows by at most that.
run power --gpus 64 --power-cap 500W --format json
expect_rc 0; expect_out '"power_cap_w": 500'; expect_out '"clock_scale": 0.7947'; expect_out '"it_kw": 69.'
run power --gpus 64 --power-cap 500W
expect_rc 0; expect_out "board power limit"; expect_out "8 nodes of 8 at 8.60 kW"
run power --gpu h100-96gb --gpus 8 --format json
expect_rc 0; expect_out '"power_cap_w": 500'
run power --gpu h100-96gb --gpus 8 --power-cap 700W --format json
expect_rc 0; expect_out '"power_cap_w": null'; expect_out '"clock_scale": 1'
full=$("$GPUPLAN" train --model llama-3.1-8b --gpus 8 --get tokens_per_s)
capped=$("$GPUPLAN" train --model llama-3.1-8b --gpus 8 --power-cap 500 --get tokens_per_s)
awk -v f="$full" -v c="$capped" 'BEGIN { exit !(c < f && c >= 0.7947 * f) }' ||
  fail "a 500 W cap should slow training by at most the clock: $capped of $full tokens/s"
# The attention kernel a run assumes is named: flash by default, flash2 under PyTorch's presets.
[ "$("$GPUPLAN" train --model llama-3.1-8b --gpus 8 --get attention)" = flash ] || fail "train's attention should be flash"
[ "$("$GPUPLAN" train --model llama-3.1-8b --gpus 8 --framework torchtitan --get attention)" = flash2 ] ||
  fail "--framework torchtitan should run flash2 attention"
[ "$("$GPUPLAN" train --model llama-3.1-8b --gpus 8 --attention eager --get attention)" = eager ] ||
  fail "--attention eager should be named eager"
# A deduplicating dispatcher sends less across nodes: Qwen3 30B-A3B (8 of 128 experts) at ep 16 over two nodes.
a2a=$("$GPUPLAN" train --model qwen3-30b-a3b --gpus 16 --ep 16 --tp 1 --pp 1 --get step_breakdown_s.ep_comm_s 2>/dev/null)
dedup=$("$GPUPLAN" train --model qwen3-30b-a3b --gpus 16 --ep 16 --tp 1 --pp 1 --ep-dispatch deepep --get step_breakdown_s.ep_comm_s 2>/dev/null)
awk -v a="$a2a" -v d="$dedup" 'BEGIN { exit !(d > 0 && d < a) }' || fail "--ep-dispatch deepep should cut the all-to-all ($dedup s against $a2a s)"
# MFU stays over the datasheet peak: it falls in proportion to the tokens per second.
mfu_full=$("$GPUPLAN" train --model llama-3.1-8b --gpus 8 --get mfu)
mfu_capped=$("$GPUPLAN" train --model llama-3.1-8b --gpus 8 --power-cap 500 --get mfu)
awk -v f="$full" -v c="$capped" -v mf="$mfu_full" -v mc="$mfu_capped" \
  'BEGIN { r = (mc / mf) / (c / f); exit !(r > 0.999999 && r < 1.000001) }' ||
  fail "MFU under a cap should be over the datasheet peak: $mfu_capped of $mfu_full against $capped of $full tokens/s"

# Low precisions on Blackwell: the JSON names the recipe; NVFP4 beats MXFP8 beats BF16, and
# keeping every layer in bf16 under nvfp4 gives bf16's throughput (the output layer is 16-bit
# either way).
for p in bf16 mxfp8 nvfp4; do
  run train --model llama-3.1-8b --gpu b200 --gpus 8 --precision $p --format json
  expect_rc 0
  expect_out "\"precision\": \"$p\""
done
t16=$("$GPUPLAN" train --model llama-3.1-8b --gpu b200 --gpus 8 --tp 1 --pp 1 --micro-batch 1 --recompute none --get tokens_per_s)
tmx=$("$GPUPLAN" train --model llama-3.1-8b --gpu b200 --gpus 8 --tp 1 --pp 1 --micro-batch 1 --recompute none --precision mxfp8 --get tokens_per_s)
t4=$("$GPUPLAN" train --model llama-3.1-8b --gpu b200 --gpus 8 --tp 1 --pp 1 --micro-batch 1 --recompute none --precision nvfp4 --get tokens_per_s)
t4all=$("$GPUPLAN" train --model llama-3.1-8b --gpu b200 --gpus 8 --tp 1 --pp 1 --micro-batch 1 --recompute none --precision nvfp4 --high-precision-layers 32 --get tokens_per_s)
awk -v a="$t16" -v b="$tmx" -v c="$t4" 'BEGIN { exit !(a < b && b < c) }' || fail "expected bf16 < mxfp8 < nvfp4: $t16 $tmx $t4"
awk -v a="$t16" -v b="$t4all" 'BEGIN { r = b / a; exit !(r > 0.999 && r < 1.001) }' ||
  fail "nvfp4 with every layer in bf16 should train as bf16: $t4all against $t16"
run train --model llama-3.1-8b --gpu b200 --gpus 8 --precision nvfp4 --low-precision-layers mlp --high-precision-layers 4 --format json
expect_out '"low_precision_layers": "mlp"'
expect_out '"high_precision_layers": 4'
run train --model llama-3.1-8b --gpu b200 --gpus 8 --high-precision-layers 4
expect_rc 0
expect_err "apply to fp8, mxfp8 and nvfp4"

bad 2 "--pue '0.9' must be from 1" train --params 7B --gpus 8 --pue 0.9
bad 2 "--precision fp8: a100-80gb has no fp8 tensor rate" train --params 7B --gpu a100-80gb --gpus 8 --precision fp8
bad 2 "--precision nvfp4: h100-sxm has no NVFP4 tensor rate" train --params 7B --gpus 8 --precision nvfp4
bad 2 "--precision fp4: mi300x has no NVFP4 tensor rate" train --params 7B --gpu mi300x --gpus 8 --precision fp4
bad 2 "--precision mxfp8: h100-sxm has no block-scaled (MX) fp8 tensor rate" train --params 7B --gpus 8 --precision mxfp8
bad 2 "--high-precision-layers 40: llama-3.1-8b has 32 layers" train --model llama-3.1-8b --gpu b200 --gpus 8 --precision nvfp4 --high-precision-layers 40
bad 2 "--low-precision-layers" train --params 7B --gpus 8 --precision fp8 --low-precision-layers attention
bad 2 "--ep-dispatch" train --model mixtral-8x7b --gpus 16 --ep-dispatch nvlink
bad 2 "--price: '\$-2/h'" train --params 7B --gpus 8 --price '$-2/h'
bad 2 "--years '0' must be from 0.1 to 30 years" train --params 7B --gpus 8 --years 0
bad 2 "unknown site 'atlantis'" train --params 7B --gpus 8 --site atlantis
bad 2 "unknown storage system 'floppy'" train --params 7B --gpus 8 --storage floppy
bad 2 "no on-demand cloud price for h100-sxm from 'nocloud'" train --params 7B --gpus 8 --cloud nocloud
bad 2 "power needs --gpus N" power --gpu h100-sxm
bad 2 "--checkpoint-every '5s' must be from 1min to 1y" train --params 7B --gpus 8 --checkpoint-every 5s
bad 2 "--rack-power 5.00 kW is less than one node (dgx-h100 draws 10.2 kW)" power --gpus 64 --rack-power 5kW
bad 2 "--rack-power: '-40kW' is negative" power --gpus 64 --rack-power -40kW
bad 2 "--rack-units 4 is less than one node (dgx-h100 is 8U)" power --gpus 64 --rack-units 4
bad 2 "--scale-out nvlink4 is a scale-up link; expected a scale-out fabric" power --gpus 64 --scale-out nvlink4
bad 2 "unknown interconnect 'token-ring'" power --gpus 64 --scale-out token-ring
bad 2 "--pue '0.5' must be from 1" power --gpus 64 --pue 0.5
bad 2 "--capex: '\$-30000'" power --gpus 64 --capex '$-30000'
bad 2 "power cap 900 W is above h100-sxm's TDP of 700 W" power --gpus 64 --power-cap 900W
bad 2 "power cap 50 W is too low for h100-sxm: expected more than 70 W" train --params 7B --gpus 8 --power-cap 50
bad 2 "power cap 120 W is too low for b200: expected more than 137 W (its idle draw)" power --gpu b200 --gpus 8 --power-cap 120W
bad 2 "tpu-v5p has no TDP in the catalog" power --gpu tpu-v5p --gpus 8 --power-cap 200W
bad 2 "--power-cap: 'hot' is not a number" power --gpus 8 --power-cap hot
bad 2 "--power-cap does not apply to memory" memory --model llama-3.1-8b --gpus 8 --power-cap 500

# Purchase prices on one basis (issue 31): DGX H100 list / 8 has the server in it; the H200 quote
# is the HGX baseboard's share ($312,667 / 8 = $39,083), so the server is added at Epoch AI's 1.4x
# the baseboard (SemiAnalysis's DGX H100 breakdown): $54,716, marked as an estimate, no warning.
run train --model llama-3.1-8b --gpu h100-sxm --gpus 8 --tokens 100B --buy --format json
expect_rc 0; expect_out "per device, server share included"
grep -q "the GPU alone" "$TMP/err" && fail "the H100 price was called the GPU alone"
run train --model llama-3.1-8b --gpu h200 --gpus 8 --tokens 100B --buy --format json
expect_rc 0; expect_out "per device, server share estimated: \$39.1k for the GPU x 1.40"
grep -q "the purchase price of h200" "$TMP/err" && fail "an H200 price with its estimated server share still warned"
out=$(jq -r '.assumptions[] | select(.name == "purchase price") | .value' "$TMP/out")
[ "$out" = "54716.2" ] || fail "h200 purchase price with its server share: $out, expected 39083 x 1.4 = 54716.2"
# A card priced alone with no overhead in its record (a consumer RTX 4090 at MSRP) still warns.
run train --model gpt2-124m --gpu rtx-4090 --gpus 1 --tokens 1B --buy
expect_rc 0; expect_err "the purchase price of rtx-4090 (\$1.60k, 2022-10) is the GPU alone"

finish
