# Sourced by the pipeline scripts: finds the plugin and the source and sink.
#   CUDACONV_SOURCE  source elements (default: the webcam, v4l2src)
#   CUDACONV_SINK    sink elements (default: autovideosink)
# A plugin built in this checkout (build/plugin) is preferred to an installed one.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -f "$root/build/plugin/libgstcudaconv.so" ]; then
  export GST_PLUGIN_PATH=$root/build/plugin${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
fi
source=${CUDACONV_SOURCE:-v4l2src}
sink=${CUDACONV_SINK:-autovideosink}
