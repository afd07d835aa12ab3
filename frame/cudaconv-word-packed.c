/* cudaconv: unpacking and packing the word-packed 10-bit formats (see the
 * header). Layouts, each word little-endian, bit 0 first:
 *  - v210: 6 pixels in 4 words of three 10-bit samples at bits 0, 10, 20:
 *    Cb0 Y0 Cr0 | Y1 Cb1 Y2 | Cr1 Y3 Cb2 | Y4 Cr2 Y5; rows hold whole
 *    groups of 48 pixels (128 bytes);
 *  - Y410: U, Y, V at bits 0, 10, 20, a 2-bit alpha at bit 30;
 *  - RGB10A2_LE: R, G, B at bits 0, 10, 20, A at 30; BGR10A2_LE: B, G, R. */
#include <string.h>

#include "cudaconv-word-packed.h"
#include "cudaconv-cpu-pool.h"

#define TEN_BITS 0x3ffu

/* Component k of a 32-bit word that holds three 10-bit samples and a
 * 2-bit one at bit 30 */
#define FIELD(word, k) (((word) >> (10 * (k))) & TEN_BITS)

GstVideoFormat
cudaconv_word_packed_work_format (GstVideoFormat format)
{
  switch (format) {
    case GST_VIDEO_FORMAT_v210:
      return GST_VIDEO_FORMAT_I422_10LE;
    case GST_VIDEO_FORMAT_Y410:
      return GST_VIDEO_FORMAT_A444_10LE;
    case GST_VIDEO_FORMAT_RGB10A2_LE:
    case GST_VIDEO_FORMAT_BGR10A2_LE:
      return GST_VIDEO_FORMAT_GBRA_10LE;
    default:
      return GST_VIDEO_FORMAT_UNKNOWN;
  }
}

static guint16 *
work_row (const GstVideoFrame * work, gint comp, gint y)
{
  return (guint16 *) ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (work, comp) +
      (gsize) y * GST_VIDEO_FRAME_COMP_STRIDE (work, comp));
}

static const guint8 *
packed_row (const GstVideoFrame * packed, gint y)
{
  return (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (packed, 0) +
      (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (packed, 0);
}

/* In each v210 group of 4 words, for each of its 12 samples: the word,
 * the field within it, the plane (0 Y, 1 Cb, 2 Cr) and the index in the
 * group's samples of that plane (6 Y, 3 Cb, 3 Cr). */
static const struct {
  guint8 word, field, plane, index;
} v210_samples[12] = {
  {0, 0, 1, 0}, {0, 1, 0, 0}, {0, 2, 2, 0},
  {1, 0, 0, 1}, {1, 1, 1, 1}, {1, 2, 0, 2},
  {2, 0, 2, 1}, {2, 1, 0, 3}, {2, 2, 1, 2},
  {3, 0, 0, 4}, {3, 1, 2, 2}, {3, 2, 0, 5},
};

static inline guint32
read_word (const guint8 * p)
{
  guint32 w;
  memcpy (&w, p, 4);
  return GUINT32_FROM_LE (w);
}

static inline void
write_word (guint8 * p, guint32 w)
{
  w = GUINT32_TO_LE (w);
  memcpy (p, &w, 4);
}

/* One group of 6 pixels whose samples all lie inside the row: straight
 * code, as nearly every group of a row is */
static inline void
v210_unpack_group (const guint8 * in, guint16 * y, guint16 * cb, guint16 * cr)
{
  const guint32 w0 = read_word (in), w1 = read_word (in + 4);
  const guint32 w2 = read_word (in + 8), w3 = read_word (in + 12);
  cb[0] = FIELD (w0, 0);
  y[0] = FIELD (w0, 1);
  cr[0] = FIELD (w0, 2);
  y[1] = FIELD (w1, 0);
  cb[1] = FIELD (w1, 1);
  y[2] = FIELD (w1, 2);
  cr[1] = FIELD (w2, 0);
  y[3] = FIELD (w2, 1);
  cb[2] = FIELD (w2, 2);
  y[4] = FIELD (w3, 0);
  cr[2] = FIELD (w3, 1);
  y[5] = FIELD (w3, 2);
}

#define TEN(v) MIN ((guint32) (v), TEN_BITS)
static inline void
v210_pack_group (guint8 * out, const guint16 * y, const guint16 * cb,
    const guint16 * cr)
{
  write_word (out, TEN (cb[0]) | TEN (y[0]) << 10 | TEN (cr[0]) << 20);
  write_word (out + 4, TEN (y[1]) | TEN (cb[1]) << 10 | TEN (y[2]) << 20);
  write_word (out + 8, TEN (cr[1]) | TEN (y[3]) << 10 | TEN (cb[2]) << 20);
  write_word (out + 12, TEN (y[4]) | TEN (cr[2]) << 10 | TEN (y[5]) << 20);
}

/* The last group of a row that ends inside it, sample by sample */
static void
v210_partial_group (guint8 * row, gint g, guint16 * planes[3],
    const gint counts[3], gboolean to_work)
{
  static const gint per_group[3] = { 6, 3, 3 };
  guint32 words[4] = { 0, 0, 0, 0 };

  if (to_work)
    for (gint k = 0; k < 4; k++)
      words[k] = read_word (row + 16 * g + 4 * k);
  for (guint s = 0; s < G_N_ELEMENTS (v210_samples); s++) {
    const gint p = v210_samples[s].plane;
    const gint i = per_group[p] * g + v210_samples[s].index;
    if (i >= counts[p])
      continue;
    if (to_work)
      planes[p][i] = FIELD (words[v210_samples[s].word],
          v210_samples[s].field);
    else
      words[v210_samples[s].word] |= TEN (planes[p][i]) <<
          (10 * v210_samples[s].field);
  }
  if (!to_work)
    for (gint k = 0; k < 4; k++)
      write_word (row + 16 * g + 4 * k, words[k]);
}

static void
v210_rows (const GstVideoFrame * packed, const GstVideoFrame * work,
    gboolean to_work, gint y0, gint y1)
{
  const gint width = GST_VIDEO_FRAME_WIDTH (work);
  const gint counts[3] = { width, (width + 1) / 2, (width + 1) / 2 };
  const gint whole = width / 6;

  for (gint y = y0; y < y1; y++) {
    guint8 *row = (guint8 *) packed_row (packed, y);
    guint16 *planes[3] = { work_row (work, 0, y), work_row (work, 1, y),
      work_row (work, 2, y)
    };

    for (gint g = 0; g < whole; g++) {
      if (to_work)
        v210_unpack_group (row + 16 * g, planes[0] + 6 * g, planes[1] + 3 * g,
            planes[2] + 3 * g);
      else
        v210_pack_group (row + 16 * g, planes[0] + 6 * g, planes[1] + 3 * g,
            planes[2] + 3 * g);
    }
    if (whole * 6 < width)
      v210_partial_group (row, whole, planes, counts, to_work);
  }
}

void
cudaconv_word_packed_components (GstVideoFormat format, gint comps[4])
{
  static const gint v210[4] = { GST_VIDEO_COMP_Y, GST_VIDEO_COMP_U,
    GST_VIDEO_COMP_V, -1
  };
  static const gint y410[4] = { GST_VIDEO_COMP_U, GST_VIDEO_COMP_Y,
    GST_VIDEO_COMP_V, GST_VIDEO_COMP_A
  };
  static const gint rgb[4] = { GST_VIDEO_COMP_R, GST_VIDEO_COMP_G,
    GST_VIDEO_COMP_B, GST_VIDEO_COMP_A
  };
  static const gint bgr[4] = { GST_VIDEO_COMP_B, GST_VIDEO_COMP_G,
    GST_VIDEO_COMP_R, GST_VIDEO_COMP_A
  };
  const gint *c = format == GST_VIDEO_FORMAT_v210 ? v210 :
      format == GST_VIDEO_FORMAT_Y410 ? y410 :
      format == GST_VIDEO_FORMAT_RGB10A2_LE ? rgb : bgr;
  for (gint k = 0; k < 4; k++)
    comps[k] = c[k];
}

static void
word_rows (const GstVideoFrame * packed, const GstVideoFrame * work,
    gboolean to_work, gint y0, gint y1)
{
  const gint width = GST_VIDEO_FRAME_WIDTH (work);
  gint comps[4];

  cudaconv_word_packed_components (GST_VIDEO_FRAME_FORMAT (packed), comps);
  for (gint y = y0; y < y1; y++) {
    guint8 *row = (guint8 *) packed_row (packed, y);
    guint16 *planes[4];

    for (gint k = 0; k < 4; k++)
      planes[k] = work_row (work, comps[k], y);
    for (gint x = 0; x < width; x++) {
      if (to_work) {
        const guint32 w = read_word (row + 4 * x);
        planes[0][x] = FIELD (w, 0);
        planes[1][x] = FIELD (w, 1);
        planes[2][x] = FIELD (w, 2);
        planes[3][x] = w >> 30;
      } else {
        write_word (row + 4 * x, TEN (planes[0][x]) | TEN (planes[1][x]) << 10
            | TEN (planes[2][x]) << 20 | (guint32) MIN (planes[3][x], 3u) << 30);
      }
    }
  }
}

/* Bands of rows on the CPU back end's worker threads */
typedef struct {
  const GstVideoFrame *packed, *work;
  gboolean to_work;
  gint n_bands, rows;
} Job;

static void
convert_band (void *data, int band)
{
  const Job *job = data;
  const gint y0 = (gint) ((gint64) job->rows * band / job->n_bands);
  const gint y1 = (gint) ((gint64) job->rows * (band + 1) / job->n_bands);

  if (GST_VIDEO_FRAME_FORMAT (job->packed) == GST_VIDEO_FORMAT_v210)
    v210_rows (job->packed, job->work, job->to_work, y0, y1);
  else
    word_rows (job->packed, job->work, job->to_work, y0, y1);
}

static void
convert (const GstVideoFrame * packed, const GstVideoFrame * work,
    gboolean to_work, gint n_threads)
{
  /* every row of every field: frame rows, or a field's in alternate mode */
  const gint rows = GST_VIDEO_FRAME_COMP_HEIGHT (work, 0);
  Job job = { packed, work, to_work, CLAMP (n_threads, 1,
        CC_CPU_MAX_THREADS), rows
  };

  /* a band of fewer than 16 rows is not worth a thread */
  job.n_bands = MAX (1, MIN (job.n_bands, rows / 16));
  /* a pool that could not grow still ran every band on this thread */
  (void) cc_cpu_pool_run (job.n_bands, convert_band, &job);
}

void
cudaconv_word_packed_unpack (const GstVideoFrame * packed,
    GstVideoFrame * work, gint n_threads)
{
  convert (packed, work, TRUE, n_threads);
}

void
cudaconv_word_packed_pack (const GstVideoFrame * work, GstVideoFrame * packed,
    gint n_threads)
{
  convert (packed, work, FALSE, n_threads);
}
