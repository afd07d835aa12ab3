#!/usr/bin/env python3
"""cudaconv benchmark: the libraries a user would pick instead, per plane.

Times one random 8-bit plane filtered with a (2r+1)^2 filter, border clamp
(replicate), by
  cupy        cupyx.scipy.ndimage.correlate(u8 plane, float32 weights,
              mode='nearest'), u8 in and out, on the GPU
  torch       torch.nn.functional.conv2d on the plane as float32 (padding by
              replicate done beforehand, not timed), on the GPU
  npp         NVIDIA NPP's nppiFilterBorder32f_8u_C1R_Ctx (float weights,
              NPP_BORDER_REPLICATE), on the GPU, through ctypes
  npp-gauss   nppiFilterGaussBorder_8u_C1R_Ctx, NPP's fixed gaussian of
              that size (masks 3x3 to 15x15: r <= 7)
  npp-box     nppiFilterBoxBorder_8u_C1R_Ctx, a (2r+1)^2 box
  opencv      cv2.filter2D(u8, -1, weights, BORDER_REPLICATE) on the host
  opencv-gauss  cv2.GaussianBlur with the same sigma, on the host (separable)
NPP runs on CuPy's arrays and stream; each of its filters is first checked
(npp_checked) and skipped if it fails.
GPU times: CUDA events around BATCH calls queued behind a busy kernel (GPU
time only, as cudaconv-bench times its own kernels), median of RUNS after
WARMUP calls. Host times:
perf_counter, median of HOST_RUNS after one call.

Writes rows "peer,WxH,8,radius,name,milliseconds" to --csv and prints a
table. A library that is missing or fails is reported and skipped.
"""
import argparse
import statistics
import sys
import time

RUNS = 31
WARMUP = 5
HOST_RUNS = 5


def gaussian_sigma(radius):
    # the element's sigma=0 rule, as in plugin/cudaconv-presets.c
    return 0.3 * (radius - 1) + 0.8


BATCH = 10
BUSY_US = 2000.0
BUSY_MAX_US = 200000.0


def time_gpu(fn, event, busy):
    """GPU ms per call, as cudaconv-bench times its kernels: BATCH calls
    between two events, queued behind busy(us), a kernel that keeps the GPU
    busy while Python issues them, so that the events bracket GPU time only.
    Events around one call on an idle GPU would also time the library's
    Python path up to its launch (tens of microseconds here, and not the
    same from run to run). A sample whose busy kernel had ended before the
    batch was queued is taken again with twice the wait."""
    for _ in range(WARMUP):
        fn()
    times = []
    busy_us = BUSY_US
    while len(times) < RUNS:
        start, stop, busy_done = event(), event(), event()
        busy(busy_us)
        busy_done.record()
        start.record()
        for _ in range(BATCH):
            fn()
        stop.record()
        ran_dry = (busy_done.query() if hasattr(busy_done, "query")
                   else busy_done.done)
        stop.synchronize()
        if ran_dry and busy_us < BUSY_MAX_US:
            busy_us *= 2
            continue
        times.append(start_elapsed(start, stop) / BATCH)
    return statistics.median(times)


def cupy_busy(cupy):
    """busy(us): one CuPy thread spinning on the GPU's nanosecond timer"""
    import numpy as np
    spin = cupy.RawKernel(r"""
extern "C" __global__ void busy_wait(long long ns) {
  long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  while (t - t0 < ns);
}""", "busy_wait")
    return lambda us: spin((1,), (1,), (np.int64(us * 1e3),))


def torch_busy(torch):
    """busy(us): torch's own spin kernel, which counts clock cycles; 2000
    per microsecond spins at least that long at clocks up to 2 GHz"""
    return lambda us: torch.cuda._sleep(int(us * 2000))


def start_elapsed(start, stop):
    # cupy: cupy.cuda.get_elapsed_time; torch: start.elapsed_time(stop)
    if hasattr(start, "elapsed_time"):
        return start.elapsed_time(stop)
    import cupy
    return cupy.cuda.get_elapsed_time(start, stop)


class Npp:
    """The three NPP filters, called through ctypes on CuPy device arrays,
    ordered on CuPy's current stream."""
    REPLICATE = 2                      # NppiBorderType NPP_BORDER_REPLICATE

    @staticmethod
    def mask_size(r):
        """NppiMaskSize of a (2r+1)^2 mask: 3x3 200, 5x5 201, 7x7 400, 9x9
        500, ... 15x15 800"""
        return 200 + r - 1 if r <= 2 else 400 + 100 * (r - 3)

    def __init__(self, cupy):
        import ctypes
        import ctypes.util
        self.ct = ctypes
        self.cupy = cupy
        lib = None
        for name in ("libnppif.so", "libnppif.so.13", "libnppif.so.12",
                     ctypes.util.find_library("nppif"),
                     "/usr/local/cuda/lib64/libnppif.so"):
            if not name:
                continue
            try:
                lib = ctypes.CDLL(name)
                break
            except OSError:
                continue
        if lib is None:
            raise OSError("libnppif not found")

        class Size(ctypes.Structure):
            _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int)]

        class Point(ctypes.Structure):
            _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int)]

        class StreamContext(ctypes.Structure):
            _fields_ = [("hStream", ctypes.c_void_p),
                        ("nCudaDeviceId", ctypes.c_int),
                        ("nMultiProcessorCount", ctypes.c_int),
                        ("nMaxThreadsPerMultiProcessor", ctypes.c_int),
                        ("nMaxThreadsPerBlock", ctypes.c_int),
                        ("nSharedMemPerBlock", ctypes.c_size_t),
                        ("nCudaDevAttrComputeCapabilityMajor", ctypes.c_int),
                        ("nCudaDevAttrComputeCapabilityMinor", ctypes.c_int),
                        ("nStreamFlags", ctypes.c_uint),
                        ("nReserved0", ctypes.c_int)]
        self.Size, self.Point = Size, Point
        dev = cupy.cuda.Device().id
        prop = cupy.cuda.runtime.getDeviceProperties(dev)
        self.ctx = StreamContext(
            ctypes.c_void_p(cupy.cuda.get_current_stream().ptr), dev,
            prop["multiProcessorCount"], prop["maxThreadsPerMultiProcessor"],
            prop["maxThreadsPerBlock"], prop["sharedMemPerBlock"],
            prop["major"], prop["minor"], 0, 0)
        p, i = ctypes.c_void_p, ctypes.c_int
        self.f32 = lib.nppiFilterBorder32f_8u_C1R_Ctx
        self.f32.argtypes = [p, i, Size, Point, p, i, Size, p, Size, Point,
                             i, StreamContext]
        self.gauss = lib.nppiFilterGaussBorder_8u_C1R_Ctx
        self.gauss.argtypes = [p, i, Size, Point, p, i, Size, i, i,
                               StreamContext]
        self.box = lib.nppiFilterBoxBorder_8u_C1R_Ctx
        self.box.argtypes = [p, i, Size, Point, p, i, Size, Size, Point, i,
                             StreamContext]
        for f in (self.f32, self.gauss, self.box):
            f.restype = ctypes.c_int

    def call(self, which, src, dst, r, weights=None):
        """Runs one filter of radius r from src to dst (2D uint8 CuPy arrays,
        C-contiguous); NPP's status, 0 when it ran."""
        h, w = src.shape
        size, origin = self.Size(w, h), self.Point(0, 0)
        side = 2 * r + 1
        if which == "npp":
            return self.f32(src.data.ptr, w, size, origin, dst.data.ptr, w,
                            size, weights.data.ptr, self.Size(side, side),
                            self.Point(r, r), self.REPLICATE, self.ctx)
        if which == "npp-gauss":
            return self.gauss(src.data.ptr, w, size, origin, dst.data.ptr, w,
                              size, self.mask_size(r),
                              self.REPLICATE, self.ctx)
        return self.box(src.data.ptr, w, size, origin, dst.data.ptr, w, size,
                        self.Size(side, side), self.Point(r, r),
                        self.REPLICATE, self.ctx)


def npp_checked(npp, cupy, ndi, d_plane, r):
    """The NPP filters that run on d_plane at radius r and give what they
    should: the float filter and the box, with box weights, within 1 of
    cupyx.scipy.ndimage; NPP's gaussian, whose sigma is its own, a constant
    plane unchanged (within 1)"""
    side = 2 * r + 1
    box = cupy.full((side, side), 1.0 / (side * side), dtype=cupy.float32)
    want = cupy.floor(ndi.correlate(d_plane.astype(cupy.float32), box,
                                    mode="nearest") + 0.5)
    flat = cupy.full_like(d_plane, 77)
    out = cupy.empty_like(d_plane)
    ok = []
    for which in ("npp", "npp-gauss", "npp-box"):
        if which == "npp-gauss" and r > 7:
            continue
        src, ref = (flat, 77.0) if which == "npp-gauss" else (d_plane, want)
        out.fill(0)
        status = npp.call(which, src, out, r, box)
        cupy.cuda.get_current_stream().synchronize()
        if status != 0:
            print(f"{which}: NPP status {status} at radius {r}, skipped")
            continue
        diff = float(cupy.abs(out.astype(cupy.float32) - ref).max())
        if diff > 1.0:
            print(f"{which}: off by {diff:.0f} at radius {r}, skipped")
            continue
        ok.append(which)
    return ok


def time_host(fn):
    fn()
    times = []
    for _ in range(HOST_RUNS):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", help="append result rows to this file")
    ap.add_argument("--sizes", default="3840x2160,1920x1080")
    ap.add_argument("--radii", default="1,2,3,5,7,10,15")
    ap.add_argument("--host-radii", default="1,2,7",
                    help="radii for the (slow) host peers")
    args = ap.parse_args()
    import numpy as np

    rows = []
    rng = np.random.default_rng(12345)
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    radii = [int(r) for r in args.radii.split(",")]
    host_radii = [int(r) for r in args.host_radii.split(",")]

    peers = {}
    try:
        import cupy
        import cupyx.scipy.ndimage as ndi
        peers["cupy"] = (cupy, ndi)
    except Exception as e:  # noqa: BLE001 - report any import failure
        print(f"cupy: not available ({e})")
    try:
        import torch
        if torch.cuda.is_available():
            peers["torch"] = torch
        else:
            print("torch: no CUDA device")
    except Exception as e:  # noqa: BLE001
        print(f"torch: not available ({e})")
    if "cupy" in peers:
        try:
            peers["npp"] = Npp(peers["cupy"][0])
        except Exception as e:  # noqa: BLE001
            print(f"npp: not available ({e})")
    try:
        import cv2
        cv2.setNumThreads(0)  # OpenCV's default: all cores
        peers["opencv"] = cv2
    except Exception as e:  # noqa: BLE001
        print(f"opencv: not available ({e})")

    names = ("cupy", "torch", "npp", "npp-gauss", "npp-box", "opencv",
             "opencv-gauss")
    print(f"\nPeers: one 8-bit plane, border replicate, milliseconds")
    print(f"{'size':9} {'r':>3} " + " ".join(f"{n:>12}" for n in names))
    for (w, h) in sizes:
        plane = rng.integers(0, 256, size=(h, w), dtype=np.uint8)
        for r in radii:
            side = 2 * r + 1
            weights = rng.random((side, side), dtype=np.float32) + 0.1
            weights /= weights.sum()
            got = {}
            if "cupy" in peers:
                cupy, ndi = peers["cupy"]
                d_plane = cupy.asarray(plane)
                d_w = cupy.asarray(weights)
                out = cupy.empty_like(d_plane)
                got["cupy"] = time_gpu(
                    lambda: ndi.correlate(d_plane, d_w, output=out,
                                          mode="nearest"),
                    cupy.cuda.Event, cupy_busy(cupy))
            if "npp" in peers:
                cupy, ndi = peers["cupy"]
                npp = peers["npp"]
                d_w = cupy.asarray(weights)
                out = cupy.empty_like(d_plane)
                for which in npp_checked(npp, cupy, ndi, d_plane, r):
                    got[which] = time_gpu(
                        lambda: npp.call(which, d_plane, out, r, d_w),
                        cupy.cuda.Event, cupy_busy(cupy))
            if "torch" in peers:
                torch = peers["torch"]
                x = torch.from_numpy(plane).cuda().float()[None, None]
                x = torch.nn.functional.pad(x, (r, r, r, r), mode="replicate")
                k = torch.from_numpy(weights).cuda()[None, None]
                with torch.no_grad():
                    got["torch"] = time_gpu(
                        lambda: torch.nn.functional.conv2d(x, k),
                        lambda: torch.cuda.Event(enable_timing=True),
                        torch_busy(torch))
            if "opencv" in peers and r in host_radii:
                cv2 = peers["opencv"]
                got["opencv"] = time_host(lambda: cv2.filter2D(
                    plane, -1, weights, borderType=cv2.BORDER_REPLICATE))
                s = gaussian_sigma(r)
                got["opencv-gauss"] = time_host(lambda: cv2.GaussianBlur(
                    plane, (side, side), s, borderType=cv2.BORDER_REPLICATE))
            for name, ms in got.items():
                rows.append(f"peer,{w}x{h},8,{r},{name},{ms:.6f}")
            cells = [f"{got[n]:12.4f}" if n in got else f"{'-':>12}"
                     for n in names]
            print(f"{w}x{h:<4} {r:3d} " + " ".join(cells), flush=True)
    if args.csv:
        with open(args.csv, "a") as f:
            f.write("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
