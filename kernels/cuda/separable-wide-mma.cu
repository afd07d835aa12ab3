/* cudaconv: the launchers of the separable-wide-mma family
 * (separable-wide-mma.cuh). */
#include <algorithm>
#include <climits>
#include <cmath>

#include "families.cuh"
#include "separable-wide-mma.cuh"

/* mid^T: one element per sample (WideMmaFormat: an fp16, or two) */
size_t
separable_wide_mma_workspace (const Launch &l)
{
  const size_t element = l.sample == CC_SAMPLE_U8 ?
      sizeof (WideMmaFormat<uint8_t>::Mid) :
      sizeof (WideMmaFormat<uint16_t>::Mid);
  return element * (size_t) l.width * (size_t) l.height;
}

/* The factor's taps times 2^e as the band's fp16 pairs (WideMmaBand; the
 * 8-bit passes read only the high halves) */
static WideMmaBand
band_of (const float *taps, int side, int e)
{
  WideMmaBand band;
  const float scale = std::ldexp (1.0f, e);
  for (int p = 0; p < WideMmaTuning::BAND_PAIRS; p++) {
    unsigned hi = 0, lo = 0;
    for (int k = 0; k < 2; k++) {
      const int j = p - WideMmaTuning::BAND_ZERO + k;
      const float v = j >= 0 && j < side ? taps[j] * scale : 0.0f;
      const __half h = __float2half_rn (v);
      const __half rest = __float2half_rn (v - __half2float (h));
      hi |= (unsigned) __half_as_ushort (h) << (16 * k);
      lo |= (unsigned) __half_as_ushort (rest) << (16 * k);
    }
    band.hi[p] = hi;
    band.lo[p] = lo;
  }
  return band;
}

/* Whether both passes give every SM FILL_BLOCKS_PER_SM blocks: the
 * selector's preference (the catalogue's row) */
bool
separable_wide_mma_fills (const Launch &l)
{
  typedef WideMmaTuning W;
  const long long fill = (long long) W::FILL_BLOCKS_PER_SM * device_sms ();
  return W::blocks (l.height, l.width) >= fill
      && W::blocks (l.width, l.height) >= fill;
}

template <typename T, bool SECOND, int STEPS> static cudaError_t
launch_pass (WideMmaArgs a, cudaStream_t stream)
{
  typedef WideMmaTuning W;
  const long long blocks = W::blocks (a.lines, a.positions);
  a.position_blocks = (a.positions + W::POSITIONS - 1) / W::POSITIONS;
  if (blocks > INT_MAX)
    return cudaErrorInvalidValue;
  return launch_kernel (wide_mma_lines<T, SECOND, STEPS>, (unsigned) blocks,
      W::THREADS, 0, stream, false, a);
}

/* The pass compiled for the smallest odd bucket of at least steps */
template <typename T, bool SECOND, int STEPS = 3> static cudaError_t
with_steps (int steps, const WideMmaArgs &a, cudaStream_t stream)
{
  if constexpr (STEPS > WideMmaTuning::MAX_STEPS) {
    return cudaErrorInvalidValue;
  } else {
    if (steps <= STEPS)
      return launch_pass<T, SECOND, STEPS> (a, stream);
    return with_steps<T, SECOND, STEPS + 2> (steps, a, stream);
  }
}

template <typename T> static cudaError_t
launch_wide_mma (const Launch &l)
{
  const CcFilter &f = *l.filter;
  const int r = l.radius (), side = 2 * r + 1;
  const int r8 = (r + 7) / 8 * 8;
  /* a tile's 8 outputs reach 2r + 7 positions past the first, which
   * starts lead positions into its window */
  const int steps = (MMA_N + 2 * r + (r8 - r) + MMA_K - 1) / MMA_K;
  float row_max = 0.0f, row_sum = 0.0f, col_max = 0.0f;
  for (int k = 0; k < side; k++) {
    row_max = std::max (row_max, std::fabs (f.row_taps[k]));
    row_sum += std::fabs (f.row_taps[k]);
    col_max = std::max (col_max, std::fabs (f.col_taps[k]));
  }
  /* the taps' largest in [1024, 2048); mid below 2^15, within fp16 */
  const int e_row = scale_exponent (row_max, HALF_TAP_TOP);
  const int e_col = scale_exponent (col_max, HALF_TAP_TOP);
  const int e_mid = scale_exponent (row_sum * SampleTraits<T>::max, 15);

  WideMmaArgs a = {};
  a.src = l.src;
  a.dst = l.dst;
  a.mid = l.workspace;
  a.mid_pitch = l.height;
  a.r8 = r8;
  a.lead = r8 - r;
  a.border = l.border;

  /* the rows along x into mid^T */
  a.lines = l.height;
  a.positions = l.width;
  a.scale = std::ldexp (1.0f, e_mid - e_row);
  a.band = band_of (f.row_taps, side, e_row);
  cudaError_t err = with_steps<T, false> (steps, a, l.stream);
  if (err != cudaSuccess)
    return err;

  /* mid^T's rows (the plane's columns) along y into the plane */
  a.lines = l.width;
  a.positions = l.height;
  a.scale = std::ldexp (1.0f, -(e_col + e_mid));
  a.centre = f.centre;
  a.offset = l.offset;
  a.band = band_of (f.col_taps, side, e_col);
  return with_steps<T, true> (steps, a, l.stream);
}

cudaError_t
launch_separable_wide_mma (const Launch &l)
{
  return l.sample == CC_SAMPLE_U8 ? launch_wide_mma<uint8_t> (l) :
                                    launch_wide_mma<uint16_t> (l);
}
