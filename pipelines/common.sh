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
