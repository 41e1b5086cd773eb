# SPDX-License-Identifier: Apache-2.0
# Black-box: the bash completion script, generated from the settings table, completes
# subcommands, each command's own flags, choices and catalog ids.
. "$(dirname "$0")/lib.sh"
command -v bash >/dev/null || exit 77
"$GPUPLAN" completions bash >"$TMP/gpuplan.bash" || fail "completions bash failed"
complete_words() {  # complete_words WORD...: the completions of the last word
  PATH="$(dirname "$GPUPLAN"):$PATH" bash -c '
    . "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _gpuplan; printf "%s\n" "${COMPREPLY[@]}"' _ "$TMP/gpuplan.bash" gpuplan "$@"
}
[ "$(complete_words tr)" = train ] || fail "subcommand 'tr' did not complete to train"
complete_words infer --tt | grep -qx -- --ttft || fail "infer --tt did not complete to --ttft"
complete_words infer --epo | grep -q . && fail "infer completes --epochs, a train setting"
complete_words train --recompute s | grep -qx selective || fail "--recompute choices"
complete_words train --gpu h100 | grep -qx h100-sxm || fail "--gpu ids from the catalog"
complete_words catalog l | grep -qx list || fail "catalog subcommands"
complete_words train --scale-out ib- | grep -qx ib-ndr || fail "--scale-out ids from the catalog"

# zsh: the same script through bashcompinit; fish: a complete line per flag of each command.
run completions zsh
expect_rc 0; expect_out "autoload -U +X bashcompinit && bashcompinit"; expect_out "complete -o default -F _gpuplan gpuplan"
if command -v zsh >/dev/null; then zsh -n "$TMP/out" || fail "the zsh script does not parse"; fi
run completions fish
expect_rc 0
expect_out "complete -c gpuplan -n '__fish_seen_subcommand_from train' -l scale-out -r -a '(__gpuplan_ids interconnects)'"
expect_out "complete -c gpuplan -n '__fish_seen_subcommand_from train' -l recompute -r -a 'none selective full'"
expect_out "complete -c gpuplan -n '__fish_seen_subcommand_from catalog; and __fish_seen_subcommand_from show' -l kind -r"
grep -q "subcommand_from infer' -l epochs" "$TMP/out" && fail "fish completes --epochs for infer, a train setting"
grep -q "l help -r" "$TMP/out" && fail "fish takes --help as a flag with a value"
if command -v fish >/dev/null; then fish -n "$TMP/out" || fail "the fish script does not parse"; fi
run completions tcsh
expect_rc 2; expect_err "expected bash, zsh or fish"
finish
