#!/usr/bin/env bash
# Old build against new on the GPU machine, in one run: the kernel table
# (cudaconv-bench --kernels) of each build in turn, ROUNDS times, and with
# CUDACONV_AB_ELEMENT=1 the end-to-end rows too (--element: the input in
# the element's pool and registered, against the transfer floor, for I420
# at 1920x1080 and 3840x2160 and P010_10LE, YUY2 and v210 at 1920x1080;
# --cuda-memory; --regions and --crowds, both pipelines of each row), each
# build's plugin run by the new build's bench, interleaved the same way;
# compared row by row by benchmarks/bench-compare.py (median per row, rows
# slower than LIMIT fail); then whether the plugins' machine code
# differs (cuobjdump -sass, addresses and comments dropped), and the wall
# time of a one-frame pipeline with each plugin (loading the plugin, CUDA's
# start and the first use of its kernels), median of 5.
#   tools/gpu-ab.sh OLD_BUILD NEW_BUILD [ROUNDS] [LIMIT]
# CUDACONV_AB_KERNELS=0 leaves the kernel table out, CUDACONV_AB_FIRST_FRAME=0
# the one-frame pipelines (about a minute); CUDACONV_AB_FRAMES
# sets the element runs' frames (default 300); CUDACONV_AB_TAGS keeps only
# the tables whose tag (kernels, I420-1080, I420-2160, P010_10LE, YUY2,
# v210, cuda-memory, regions, crowds) matches it, a regex: more rounds of
# the rows whose runs spread most (I420-2160) fit one call that way.
# Both builds need benchmarks/cudaconv-bench and plugin/libgstcudaconv.so;
# GStreamer comes from .gst (tools/gpu-bundle.sh). Files go to $OUT:
# compare.txt, and runs.tar.xz with each run's table and CSV and both
# plugins' machine code.
set -uo pipefail
old=${1:?usage: $0 OLD_BUILD NEW_BUILD [ROUNDS] [LIMIT]}
new=${2:?usage: $0 OLD_BUILD NEW_BUILD [ROUNDS] [LIMIT]}
rounds=${3:-3}
limit=${4:-1.02}
out=${OUT:-out/gpu}
mkdir -p "$out"
# shellcheck disable=SC1091
source "${CUDACONV_GST_BUNDLE:-.gst}/env.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
status=0
frames=${CUDACONV_AB_FRAMES:-300}
csvs=()
# SIDE ROUND TAG HARNESS ARGS...: one table of one side's plugin (and
# kernels), timed by the bench of HARNESS (the side's own build, or new)
bench() {
  local side=$1 r=$2 tag=$3 harness=$4 build=$old
  shift 4
  # CUDACONV_AB_TAGS: only the tables whose tag it matches (a regex)
  [[ $tag =~ ^(${CUDACONV_AB_TAGS:-.*})$ ]] || return 0
  [ "$side" = new ] && build=$new
  [ "$harness" = own ] && harness=$build
  GST_PLUGIN_PATH_1_0=$PWD/$build/plugin GST_REGISTRY_1_0=$out/registry-$side.bin \
    "$harness/benchmarks/cudaconv-bench" "$@" --csv "$out/$tag-$side-$r.csv" \
    >"$out/$tag-$side-$r.txt" 2>&1 || { echo "$tag, $side, round $r failed"; status=1; }
  csvs+=("$out/$tag-$side-$r.csv")
}
rows=pool,registered
for r in $(seq "$rounds"); do
  for side in old new; do
    if [ "${CUDACONV_AB_KERNELS:-1}" = 1 ]; then bench $side "$r" kernels own --kernels; fi
    if [ "${CUDACONV_AB_ELEMENT:-0}" = 1 ]; then
      bench $side "$r" I420-1080 "$new" --element --format I420 --size 1920x1080 --frames "$frames" --rows "$rows"
      bench $side "$r" I420-2160 "$new" --element --format I420 --size 3840x2160 --frames "$frames" --rows "$rows"
      for format in P010_10LE YUY2 v210; do
        bench $side "$r" "$format" "$new" --element --format $format --size 1920x1080 --frames "$frames" --rows "$rows"
      done
      bench $side "$r" cuda-memory "$new" --cuda-memory --frames $((frames * 10))
      bench $side "$r" regions "$new" --regions --frames "$frames"
      bench $side "$r" crowds "$new" --crowds --frames "$frames"
    fi
  done
done
python3 benchmarks/bench-compare.py --limit "$limit" "${csvs[@]}" | tee "$out/compare.txt"
[ "${PIPESTATUS[0]}" = 0 ] || status=1

for side in old new; do
  build=$old; [ $side = new ] && build=$new
  printf '%s: %s bytes\n' "$side" "$(stat -c %s "$build/plugin/libgstcudaconv.so")"
  cuobjdump -sass "$build/plugin/libgstcudaconv.so" |
    sed -e 's@/\*[0-9a-f]*\*/@@g' -e 's@//.*@@' -e 's/[[:space:]]*$//' | grep -v '^$' \
    >"$out/sass-$side.txt"
done
if cmp -s "$out/sass-old.txt" "$out/sass-new.txt"; then
  echo "machine code: the same ($(wc -l <"$out/sass-new.txt") lines)"
else
  echo "machine code differs: $(diff "$out/sass-old.txt" "$out/sass-new.txt" | grep -c '^[<>]') lines"
fi

first_frame() {  # BUILD: median wall time of 5 one-frame pipelines, in ms
  for i in 1 2 3 4 5; do
    start=$(date +%s%N)
    GST_PLUGIN_PATH_1_0=$1/plugin GST_REGISTRY_1_0=$out/registry-$i.bin \
      gst-launch-1.0 -q videotestsrc num-buffers=1 ! video/x-raw,format=I420,width=1920,height=1080 \
      ! cudaconv backend=cuda ! fakesink >/dev/null 2>&1 || echo "pipeline failed" >&2
    echo $((($(date +%s%N) - start) / 1000000))
    rm -f "$out/registry-$i.bin"
  done | sort -n | sed -n 3p
}
# the registry is remade each time, so each run also loads the plugin
# into gst-plugin-scanner once
if [ "${CUDACONV_AB_FIRST_FRAME:-1}" = 1 ]; then
  for side in old new new old; do
    build=$old; [ $side = new ] && build=$new
    echo "one-frame pipeline, $side: $(first_frame "$build") ms"
  done
fi
# every table, CSV and machine-code listing in one archive beside
# compare.txt, and the registries gone: a few files then hold the whole
# run, where only a few can be fetched from the GPU machine
(
  cd "$out" || exit 1
  shopt -s nullglob
  runs=(*-old-*.txt *-new-*.txt *-old-*.csv *-new-*.csv sass-old.txt sass-new.txt)
  rm -f registry-*.bin
  if [ ${#runs[@]} -gt 0 ] && tar cJf runs.tar.xz -- "${runs[@]}"; then
    rm -f -- "${runs[@]}"
    echo "tables, CSVs and machine code: $out/runs.tar.xz (${#runs[@]} files)"
  fi
)
# the comparison's verdict again, last, where a cut tail of the output
# still shows it
echo "rows slower than $limit x (from $out/compare.txt):"
grep -E 'SLOWER' "$out/compare.txt" || echo "none"
tail -1 "$out/compare.txt"
exit $status
