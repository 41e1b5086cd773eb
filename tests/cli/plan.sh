# SPDX-License-Identifier: Apache-2.0
# Black-box: plan files. Every example against its expected output in every format, sweeps,
# constraints and exit 3, --get, inline catalog records, sensitivity, atomic output, determinism,
# and the table of bad plan files (tests/plans/bad: NAME.toml and NAME.expected = exit code, then
# the exact stderr), none of which may leave an output file behind.
. "$(dirname "$0")/lib.sh"

mkdir -p "$GOLDEN/plans"
for plan in "$SRC"/examples/*.toml; do
  name=$(basename "$plan" .toml)
  for fmt in table markdown csv json html; do
    (cd "$SRC/examples" && "$GPUPLAN" plan "$name.toml" --format "$fmt") >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "$name ($fmt): exit $rc: $(cat "$TMP/err")"
    # Only the time estimate may appear (it depends on how fast the machine is at that moment).
    grep -v '^gpuplan: note: .* layout searches: about ' "$TMP/err" | grep -q . \
      && fail "$name ($fmt) wrote to stderr: $(cat "$TMP/err")"
    golden "plans/$name.$fmt"
  done
done

# Exit 3 when a scenario fails its constraints, 0 when all pass; the output is written either way.
run plan "$SRC/examples/university-cluster.toml" --format json
expect_rc 3; expect_out '"verdict": "fail"'; expect_out '"cheapest_passing": "h100-64"'
run plan "$SRC/examples/run-405b.toml" --format csv
expect_rc 0
[ "$(head -1 "$TMP/out")" = "name,command,verdict,model,gpu,gpus,wall_clock_days,gpu_hours,mfu,power.facility_mw_peak,power.racks,energy_mwh,co2_t,cost_usd.cloud,cost_usd.owned_run,cost_usd.owned_tco,ttft_s,tpot_s,throughput_tokens_per_s,usd_per_million_tokens,kwh_per_million_tokens,reasons" ] \
  || fail "CSV columns changed: $(head -1 "$TMP/out")"
[ "$(wc -l <"$TMP/out")" -eq 4 ] || fail "CSV should have one row per scenario"

# --get: one value by scenario name; a miss is a usage error.
run plan "$SRC/examples/university-cluster.toml" --get scenarios.h100-64.cost_usd.owned_tco
expect_rc 3
grep -qE '^[0-9]+(\.[0-9]+)?$' "$TMP/out" || fail "--get printed '$out'"
run plan "$SRC/examples/university-cluster.toml" --get scenarios.h100-64.verdict
expect_out "pass"
run plan "$SRC/examples/university-cluster.toml" --get scenarios.nope.gpus
expect_rc 2; expect_err "matches nothing"; expect_no_out; expect_one_line_err

# Sweeps: cartesian names, zip on request.
cat >"$TMP/sweep.toml" <<'TOML'
[defaults]
params = "1B"
[[scenario]]
name = "s"
gpu = ["h100-sxm", "a100-80gb"]
gpus = [8, 16]
TOML
run plan "$TMP/sweep.toml" --format csv
expect_rc 0
for n in s-h100-sxm-8 s-h100-sxm-16 s-a100-80gb-8 s-a100-80gb-16; do expect_out "$n,train"; done
sed -i '1i [plan]\nsweep = "zip"' "$TMP/sweep.toml"
run plan "$TMP/sweep.toml" --format csv
expect_rc 0; expect_out "s-h100-sxm-8,train"; expect_out "s-a100-80gb-16,train"
[ "$(wc -l <"$TMP/out")" -eq 3 ] || fail "zip should give two scenarios"

# An inline catalog record (a vendor quote) is used, checked like a catalog file.
cat >"$TMP/quote.toml" <<'TOML'
[defaults]
params = "1B"
gpu = "h100-sxm"
gpus = 8
buy = true
[[scenario]]
name = "quoted"
[catalog.prices.buy-h100-sxm]
usd_per_device = "$20000"
as_of = "2026-11"
source = "vendor quote 117"
TOML
run plan "$TMP/quote.toml" --format json
expect_rc 0; expect_out '"value": 20000,'; expect_out 'vendor quote 117'

# Sensitivity: the tornado has a low and a high for each input.
run plan "$SRC/examples/cloud-vs-owned-7b.toml" --get scenarios.lambda.sensitivity
expect_out '"input": "mfu"'; expect_out '"cost_low":'; expect_out '"time_high":'
# A price 20% lower is a cloud bill 20% lower on the same layout (the variation reuses the
# searched layout instead of searching again), and the time does not move.
run plan "$SRC/examples/cloud-vs-owned-7b.toml" --get scenarios.lambda.cost_usd.cloud; base_cost="$out"
run plan "$SRC/examples/cloud-vs-owned-7b.toml" --get scenarios.lambda.sensitivity.1.cost_low; low_cost="$out"
awk -v b="$base_cost" -v l="$low_cost" 'BEGIN { d = l / (0.8 * b) - 1; exit !(d < 1e-12 && d > -1e-12) }' ||
  fail "price -20% gave cloud cost $low_cost, not 0.8 x $base_cost"
run plan "$SRC/examples/cloud-vs-owned-7b.toml" --get scenarios.lambda.wall_clock_days; base_days="$out"
run plan "$SRC/examples/cloud-vs-owned-7b.toml" --get scenarios.lambda.sensitivity.1.time_high
[ "$out" = "$base_days" ] || fail "price +20% moved the wall clock: $out days, not $base_days"

# Output files: atomic, never over an existing file without --force; same plan, same bytes.
run plan "$SRC/examples/laptops.toml" --format markdown -o "$TMP/r.md"
expect_rc 0; expect_no_out
run plan "$SRC/examples/laptops.toml" --format markdown -o "$TMP/r.md"
expect_rc 73; expect_err "exists; use --force"
run plan "$SRC/examples/laptops.toml" --format markdown -o "$TMP/r.md" --force
expect_rc 0
run plan "$SRC/examples/laptops.toml" --format markdown
cmp -s "$TMP/out" "$TMP/r.md" || fail "the file and stdout differ"
run plan "$SRC/examples/run-405b.toml" --format json
cp "$TMP/out" "$TMP/first"
run plan "$SRC/examples/run-405b.toml" --format json
cmp -s "$TMP/first" "$TMP/out" || fail "two runs of the same plan differ"
[ -z "$(ls -A "$TMP" | grep '^\.r\.md')" ] || fail "a temporary file was left behind"

# --init writes a template that evaluates.
run plan --init
expect_rc 0; expect_out "[[scenario]]"
cp "$TMP/out" "$TMP/init.toml"
run plan "$TMP/init.toml"
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || fail "the --init template does not evaluate: $err"

# The table of bad plan files: exact message, exit code, no output file.
head -c 10485760 /dev/zero | tr '\0' '#' >"$TMP/33-ten-megabytes.toml"
cp "$SRC/tests/plans/bad/33-ten-megabytes.generated-expected" "$TMP/33-ten-megabytes.expected"
count=0
for plan in "$SRC"/tests/plans/bad/*.toml "$TMP/33-ten-megabytes.toml"; do
  dir=$(dirname "$plan"); name=$(basename "$plan" .toml)
  (cd "$dir" && "$GPUPLAN" plan "$name.toml" -o "$TMP/bad-out.md") >"$TMP/out" 2>"$TMP/err"
  got="$?"$'\n'"$(cat "$TMP/err")"
  want=$(cat "$dir/$name.expected")
  [ "$got" = "$want" ] || fail "$name: expected '$want', got '$got'"
  [ -s "$TMP/out" ] && fail "$name wrote to stdout"
  [ -e "$TMP/bad-out.md" ] && { fail "$name left an output file"; rm -f "$TMP/bad-out.md"; }
  count=$((count + 1))
done
[ "$count" -ge 25 ] || fail "only $count bad plan files"
# A directory and a missing file.
run plan "$TMP"
expect_rc 66; expect_err "it is a directory"; expect_one_line_err
run plan "$TMP/missing.toml"
expect_rc 66; expect_err "cannot read plan"; expect_one_line_err
run plan "$SRC/examples/laptops.toml" --format pdf
expect_rc 2; expect_err "pdf"; expect_no_out

# A scenario's setting replaces the defaults' setting it cannot go with: days over weeks.
printf '[defaults]\nparams = "1B"\nweeks = 2\n[[scenario]]\nname = "a"\ndays = 3\n' >"$TMP/override.toml"
run plan "$TMP/override.toml" --get scenarios.a.deadline_s
expect_rc 0; [ "$out" = 259200 ] || fail "days in a scenario did not replace the defaults' weeks: $out"
# gpuplan-plan(5) documents every table, constraint and sensitivity input the parser takes.
for k in '\[plan\]' '\[defaults\]' '\[\[scenario\]\]' '\[constraints\]' '\[sensitivity\]' budget_usd max_facility_mw \
         deadline max_racks max_gpus mfu price pue tokens power sweep; do
  grep -q -- "$k" "$SRC/man/gpuplan-plan.5" || fail "man/gpuplan-plan.5 does not document $k"
done
# Equal interactivity: each scenario's frontier at 20 tokens/s per user, priced at its device-hour.
# H100's least interactive Pareto point (21.9 tokens/s per user, 1,399.8 tokens/s per GPU) covers
# 20: $3.99 / 3600 / 1,399.8 x 1e6 = $0.792 per million output tokens.
run plan "$SRC/tests/plans/frontier.toml" --format json
expect_rc 0
# The expected figure from the JSON's own frontier and device-hour price:
want=$(python3 -c "
import json, sys
s = json.load(sys.stdin)['scenarios'][0]
f = [p for p in s['frontier'] if p['pareto']]
per_gpu = min(f, key=lambda p: p['tokens_per_s_per_user'])['tokens_per_s_per_gpu']
print('\${:.3g}'.format(s['cost_usd_per_hour']['cloud'] / s['gpus'] / 3600 / per_gpu * 1e6))" <"$TMP/out")
[ "$want" = '$0.792' ] || fail "H100 at 20 tokens/s per user: expected \$0.792 from the frontier, computed $want"
run plan "$SRC/tests/plans/frontier.toml" --format html
expect_rc 0; expect_out "Cost per million output tokens at 20 tokens/s per user (the frontier)"
expect_out ">$want</text>"

finish
