# Sourced by the pipeline scripts: finds the plugin and the source and sink.
#   CUDACONV_BUILD_DIR  the build directory (default: build/ in this checkout)
#   CUDACONV_SOURCE     source elements (default: the webcam, v4l2src)
#   CUDACONV_SINK       sink elements (default: autovideosink)
# A plugin in the build directory is preferred to an installed one.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CUDACONV_BUILD_DIR:-$root/build}
if [ -f "$build/plugin/libgstcudaconv.so" ]; then
  export GST_PLUGIN_PATH=$build/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
fi
source=${CUDACONV_SOURCE:-v4l2src}
sink=${CUDACONV_SINK:-autovideosink}

# The element that reads a video file: y4mdec for .y4m, decodebin for the
# rest.
file_decoder () {
  case $1 in
    *.y4m) echo y4mdec ;;
    *) echo decodebin ;;
  esac
}

# The privacy scripts' options: privacy_option "$@" reads the first
# argument (and its value) into filter, region or min_face, which start at
# their defaults here, and sets taken to the arguments it used: 0 for one
# that is not an option. --help prints the calling script's header.
filter="kernel=gaussian radius=24"
region=inside
min_face=30
privacy_option () {
  taken=1
  case $1 in
    --pixelate) filter="kernel=pixelate radius=8" ;;
    --background) region=outside ;;
    --min-face) min_face=$2; taken=2 ;;
    --help) sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    --*) echo "$0: unknown option $1 (--help lists them)" >&2; exit 2 ;;
    *) taken=0 ;;
  esac
}
