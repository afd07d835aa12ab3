#!/usr/bin/env bash
# Old build against new on the GPU machine, in one run: the kernel table
# (cudaconv-bench --kernels) of each build in turn, ROUNDS times, compared
# row by row by benchmarks/bench-compare.py (median per row, new / old,
# rows slower than LIMIT fail); then whether the plugins' machine code
# differs (cuobjdump -sass, addresses and comments dropped), and the wall
# time of a one-frame pipeline with each plugin (loading the plugin, CUDA's
# start and the first use of its kernels), median of 5.
#   tools/gpu-ab.sh OLD_BUILD NEW_BUILD [ROUNDS] [LIMIT]
# Both builds need benchmarks/cudaconv-bench and plugin/libgstcudaconv.so;
# GStreamer comes from .gst (tools/gpu-bundle.sh). Files go to $OUT.
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
csvs=()
for r in $(seq "$rounds"); do
  for side in old new; do
    build=$old; [ $side = new ] && build=$new
    "$build/benchmarks/cudaconv-bench" --kernels --csv "$out/kernels-$side-$r.csv" \
      >"$out/kernels-$side-$r.txt" 2>&1 || { echo "$side round $r failed"; status=1; }
    csvs+=("$out/kernels-$side-$r.csv")
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
for side in old new new old; do
  build=$old; [ $side = new ] && build=$new
  echo "one-frame pipeline, $side: $(first_frame "$build") ms"
done
exit $status
