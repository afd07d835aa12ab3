#!/usr/bin/python3
"""cudaconv in a Python application (PyGObject).

Builds a pipeline around cudaconv, reads on the bus which backend the
element took (its INFO naming the GPU, or the WARNING that says why it fell
back to the CPU), animates the blur with a GstController and switches the
filter while the pipeline plays.

    pipelines/embed.py [--frames N] [--sink ELEMENTS]

N frames (default 150: 5 s at 30 frames/s) of videotestsrc, then EOS.
ELEMENTS defaults to "videoconvert ! autovideosink". The plugin of the build
directory (CUDACONV_BUILD_DIR, default build/ in this checkout) is used when
there is one. Needs python3-gi and gir1.2-gst-plugins-base-1.0.
"""
import argparse
import os
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstController", "1.0")
from gi.repository import GLib, Gst, GstController  # noqa: E402


def use_build_tree_plugin():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.environ.get("CUDACONV_BUILD_DIR", os.path.join(root, "build"))
    plugins = os.path.join(build, "plugin")
    if os.path.exists(os.path.join(plugins, "libgstcudaconv.so")):
        path = os.environ.get("GST_PLUGIN_PATH")
        os.environ["GST_PLUGIN_PATH"] = plugins + (":" + path if path else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--sink", default="videoconvert ! autovideosink")
    args = ap.parse_args()

    use_build_tree_plugin()
    Gst.init(None)
    pipeline = Gst.parse_launch(
        f"videotestsrc num-buffers={args.frames} pattern=ball ! "
        "video/x-raw,format=I420,width=640,height=360,framerate=30/1 ! "
        f"cudaconv name=conv kernel=gaussian ! {args.sink}")
    conv = pipeline.get_by_name("conv")

    # The blur grows from radius 1 to 8 and shrinks back over the stream. A
    # normal direct binding maps the control source's 0..1 onto the
    # property's range (radius: 1..127, so 7/126 is radius 8); values are
    # taken per frame, at the frame's timestamp.
    length = args.frames * Gst.SECOND // 30
    blur = GstController.InterpolationControlSource()
    blur.set_property("mode", GstController.InterpolationMode.LINEAR)
    blur.set(0, 0.0)
    blur.set(length // 2, 7 / 126)
    blur.set(length, 0.0)
    conv.add_control_binding(
        GstController.DirectControlBinding.new(conv, "radius", blur))

    # Properties may change from any thread and apply from the next frame:
    # here from the streaming thread, halfway through, the filter becomes
    # an unsharp mask.
    seen = {"frames": 0, "radii": set()}

    def on_frame(pad, info):
        seen["frames"] += 1
        seen["radii"].add(conv.get_property("radius"))
        if seen["frames"] == args.frames // 2:
            Gst.util_set_object_arg(conv, "kernel", "sharpen")
        return Gst.PadProbeReturn.OK

    conv.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, on_frame)

    loop = GLib.MainLoop()
    status = {"ok": False}

    def on_message(bus, msg):
        if msg.type == Gst.MessageType.INFO and msg.src == conv:
            _, debug = msg.parse_info()
            print("backend:", debug.split("using the ", 1)[-1])
        elif msg.type == Gst.MessageType.WARNING:
            err, _ = msg.parse_warning()
            print(f"warning from {msg.src.get_name()}: {err.message}")
        elif msg.type == Gst.MessageType.ERROR:
            err, debug = msg.parse_error()
            print(f"error from {msg.src.get_name()}: {err.message}",
                  file=sys.stderr)
            loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            status["ok"] = True
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    pipeline.set_state(Gst.State.PLAYING)
    try:
        loop.run()
    finally:
        pipeline.set_state(Gst.State.NULL)
        bus.remove_signal_watch()
    if seen["radii"]:
        print(f"{seen['frames']} frames; radius from {min(seen['radii'])} "
              f"to {max(seen['radii'])}; kernel now "
              f"{conv.get_property('kernel').value_nick}")
    return 0 if status["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
