# Sourced by the bench drivers: `scratch_dir NAME` sets OUT to the folder a
# driver writes its scratch files in: $OUT when the caller gave one (kept,
# emptied first), else a fresh /tmp/NAME.XXXXXX removed when the driver
# exits, so that two runs at once never share one.
scratch_dir() {
  if [ -n "${OUT:-}" ]; then
    rm -rf "$OUT" && mkdir -p "$OUT"
  else
    OUT=$(mktemp -d "/tmp/$1.XXXXXX")
    trap 'rm -rf "$OUT"' EXIT
  fi
}
