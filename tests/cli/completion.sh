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
complete_words infer --ep | grep -q . && fail "infer completes --epochs, a train setting"
complete_words train --recompute s | grep -qx selective || fail "--recompute choices"
complete_words train --gpu h100 | grep -qx h100-sxm || fail "--gpu ids from the catalog"
complete_words catalog l | grep -qx list || fail "catalog subcommands"
run completions zsh
expect_rc 2; expect_err "expected bash"
finish
