/* cudaconv: what the kernel families' host launchers share: the launch's
 * arguments, radius and sample-type dispatch, the filter's taps as the
 * kernels take them, and the launch helpers. Host code, included by every
 * family's .cu and by catalogue.cu. */
#ifndef CUDACONV_LAUNCH_CUH
#define CUDACONV_LAUNCH_CUH

#include <atomic>
#include <cstring>
#include <tuple>
#include <type_traits>

#include "cudaconv-cuda.h"
#include "device.cuh"

/* what a block may use without opting in to more */
#define DEFAULT_SHARED_LIMIT (48 * 1024)
/* a grid's largest y dimension */
#define MAX_GRID_Y 65535
/* devices whose facts are remembered (others ask on every launch) */
#define CC_CUDA_MAX_DEVICES 64

/* One convolution as the selector and the launchers see it. */
struct Launch {
  int width, height;
  ComponentArgs src, dst;
  CcSampleType sample;
  const CcFilter *filter; /* valid (cc_filter_valid) */
  float offset;           /* in raw units (cc_component_raw_offset) */
  /* the wide shapes' exact sums work on values: the padding bits below
   * them, and the largest value (2^depth - 1) */
  int shift;
  unsigned max_value;
  CcBorder border;
  bool src_ready; /* CC_LAUNCH_SRC_READY */
  cudaStream_t stream;
  /* device memory the two-pass families keep their intermediate in, at
   * least what the family's row asks (catalogue.cu checks) */
  void *workspace;
  size_t workspace_bytes;

  int radius () const { return filter->radius; }
  bool magnitude () const { return filter->response == CC_RESPONSE_MAGNITUDE; }
};

/* The kernels are compiled for each radius, so that their loops over the
 * window unroll: body (std::integral_constant<int, R> ()) for R == r, or
 * outside where r is not in MIN_R .. MAX_R. */
template <int MIN_R, int MAX_R, int R = MIN_R, typename Ret, typename Body>
static Ret
with_radius (int r, Ret outside, Body body)
{
  if constexpr (R > MAX_R) {
    return outside;
  } else {
    if (r == R)
      return body (std::integral_constant<int, R> ());
    return with_radius<MIN_R, MAX_R, R + 1> (r, outside, body);
  }
}

/* body (T (), R, MAGNITUDE) with T the launch's sample type (uint8_t or
 * uint16_t) and R, MAGNITUDE integral constants of its filter, for radii up
 * to MAX_R (CC_MAX_MAGNITUDE_RADIUS for a gradient magnitude); outside for
 * the others. */
template <int MAX_R, typename Ret, typename Body> static Ret
with_kernel_2d (const Launch &l, Ret outside, Body body)
{
  constexpr int MAX_MAGNITUDE_R = MAX_R < CC_MAX_MAGNITUDE_RADIUS ?
      MAX_R :
      CC_MAX_MAGNITUDE_RADIUS;
  auto of_type = [&] (auto t) -> Ret {
    if (l.magnitude ())
      return with_radius<0, MAX_MAGNITUDE_R> (l.radius (), outside,
          [&] (auto r) { return body (t, r, std::true_type ()); });
    return with_radius<0, MAX_R> (l.radius (), outside,
        [&] (auto r) { return body (t, r, std::false_type ()); });
  };
  if (l.sample == CC_SAMPLE_U8)
    return of_type (uint8_t ());
  return of_type (uint16_t ());
}

/* body (T (), R) for a separable launch, radii MIN_R .. MAX_R of type T's
 * range (MIN_R (sizeof (T)), MAX_R (sizeof (T))); outside for the others */
template <typename Range, typename Ret, typename Body> static Ret
with_kernel_separable (const Launch &l, Ret outside, Body body)
{
  auto of_type = [&] (auto t) -> Ret {
    typedef decltype (t) T;
    return with_radius<Range::template min<T> (),
        Range::template max<T> ()> (l.radius (), outside,
        [&] (auto r) { return body (t, r); });
  };
  if (l.sample == CC_SAMPLE_U8)
    return of_type (uint8_t ());
  return of_type (uint16_t ());
}

/* The filter's 2D taps as the kernel of radius R takes them, times scale:
 * copied into the kernel parameter, so the filter may change once the
 * launch is queued */
template <int R, bool MAGNITUDE> static Taps2D<R, MAGNITUDE>
taps_2d (const CcFilter &f, float scale = 1.0f)
{
  Taps2D<R, MAGNITUDE> t;
  for (int k = 0; k < Taps2D<R, MAGNITUDE>::COUNT; k++)
    t.w[k] = f.taps[k] * scale;
  return t;
}

template <int R> static TapsSeparable<R>
taps_separable (const CcFilter &f)
{
  TapsSeparable<R> t;
  std::memcpy (t.col, f.col_taps, sizeof (t.col));
  std::memcpy (t.row, f.row_taps, sizeof (t.row));
  return t;
}

/* One kernel launch as launch.cu takes it: the kernel, its configuration,
 * and a pointer to each argument's value with its size. dependent: the
 * kernel joins the one before it on the stream (dependent-launch.cuh), so
 * it may start early where the device allows. */
struct KernelLaunch {
  const void *kernel;
  dim3 grid, block;
  size_t shared_bytes;
  cudaStream_t stream;
  bool dependent;
  int n_args;
  void *const *args;
  const size_t *arg_sizes;
};

/* Every kernel of the library is launched through here (launch.cu): at
 * once, or, while a frame graph records or binds the launches on this
 * thread and stream (cudaconv-cuda.h), as that graph's. The launch's error
 * is also taken off CUDA's last error, so that a later check does not
 * find it. */
cudaError_t launch_or_record (const KernelLaunch &k);

/* kernel<<<grid, block, shared_bytes, stream>>> (args...) through
 * launch_or_record: each argument converted to its parameter's type, as
 * the launch syntax does. */
template <typename... Params, typename... Args> static cudaError_t
launch_kernel (void (*kernel) (Params...), dim3 grid, dim3 block,
    size_t shared_bytes, cudaStream_t stream, bool dependent,
    const Args &...args)
{
  static_assert (sizeof...(Params) == sizeof...(Args),
      "one argument per parameter");
  constexpr int N = sizeof...(Params);
  std::tuple<std::decay_t<Params>...> values (args...);
  void *pointers[N > 0 ? N : 1];
  size_t sizes[N > 0 ? N : 1];
  std::apply (
      [&] (auto &...value) {
        int i = 0;
        ((pointers[i] = static_cast<void *> (&value), sizes[i] = sizeof (value),
             i++),
            ...);
      },
      values);
  const KernelLaunch k = { reinterpret_cast<const void *> (kernel), grid, block,
    shared_bytes, stream, dependent, N, pointers, sizes };
  return launch_or_record (k);
}

/* Shared memory past the default 48 KB needs the kernel's consent; per
 * device and cheap, so asking on every launch keeps multi-GPU use simple. */
template <typename Kernel> static cudaError_t
allow_shared_bytes (Kernel kernel, size_t bytes)
{
  if (bytes <= DEFAULT_SHARED_LIMIT)
    return cudaSuccess;
  return cudaFuncSetAttribute (kernel,
      cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes);
}

/* The argument checks have refused planes with more tiles than a grid
 * takes, so the count fits an int. */
static inline TileGrid
tile_grid (const Launch &l, int tile_w, int tile_h)
{
  TileGrid g;
  g.columns = (l.width + tile_w - 1) / tile_w;
  g.count = g.columns * ((l.height + tile_h - 1) / tile_h);
  return g;
}

/* One tile of tile_w x tile_h outputs per block of block threads; every
 * tile kernel takes (src, dst, taps, offset, border, tiles). */
template <typename Kernel, typename Taps> static cudaError_t
launch_tiles (Kernel kernel, const Taps &taps, int tile_w, int tile_h,
    dim3 block, size_t shared_bytes, const Launch &l)
{
  const TileGrid tiles = tile_grid (l, tile_w, tile_h);
  cudaError_t err = allow_shared_bytes (kernel, shared_bytes);
  if (err != cudaSuccess)
    return err;
  return launch_kernel (kernel, tiles.count, block, shared_bytes, l.stream,
      false, l.src, l.dst, taps, l.offset, l.border, tiles);
}

/* The 64 x 64 tiles of the column kernels */
template <typename Kernel, typename Taps> static cudaError_t
launch_column_tiles (Kernel kernel, const Taps &taps, size_t shared_bytes,
    const Launch &l)
{
  return launch_tiles (kernel, taps, Tile64::TILE_W, Tile64::TILE_H,
      dim3 (Tile64::THREADS_X, Tile64::THREADS_Y), shared_bytes, l);
}

/* What ask (device) answers for the current device, a positive number
 * kept in known[device] after the first time (devices past
 * CC_CUDA_MAX_DEVICES ask every time); 0 where it cannot be had. */
template <typename Ask> static int
per_device (std::atomic<int> (&known)[CC_CUDA_MAX_DEVICES], Ask ask)
{
  int dev = 0;
  if (cudaGetDevice (&dev) != cudaSuccess)
    return 0;
  const bool kept = dev >= 0 && dev < CC_CUDA_MAX_DEVICES;
  if (kept && known[dev].load () > 0)
    return known[dev].load ();
  const int value = ask (dev);
  if (kept && value > 0)
    known[dev].store (value);
  return value;
}

/* SMs of the current device */
static inline int
device_sms ()
{
  static std::atomic<int> known[CC_CUDA_MAX_DEVICES];
  return per_device (known, [] (int dev) {
    int sms = 0;
    return cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev)
            == cudaSuccess ?
        sms :
        0;
  });
}

#endif /* CUDACONV_LAUNCH_CUH */
