/* cudaconv benchmark, --crop: videocrop's crop meta taken against
 * refused (bench-common.h). */
#include "bench-common.h"

/* Whether to advertise crop metas upstream: a decoder's 1920x1088 I420
 * frames cropped to 1080 rows by videocrop (4 rows off the top and bottom,
 * so the picture starts inside the buffer), with cudaconv taking the crop
 * meta and with the meta refused, against plain 1920x1080 frames; for each
 * backend this machine runs, the three alternating, median of CROP_RUNS. */
#define CROP_RUNS 5
int
crop_table (const Bench * bench)
{
  const char *props = bench->props;
  const int frames = bench->frames;
  static const char *backends[] = { "cuda", "cpu" };
  int status = 0;

  printf ("\nCrop: 1920x1088 I420 ! videocrop top=4 bottom=4 ! cudaconv %s, "
      "frames/s, median of %d alternating runs\n", props, CROP_RUNS);
  for (size_t b = 0; b < G_N_ELEMENTS (backends); b++) {
    const int n = b == 0 ? frames : MIN (frames, 200);
    gchar *conv = g_strdup_printf ("cudaconv backend=%s %s", backends[b],
        props);
    gchar *cropped = g_strdup_printf ("videocrop name=crop top=4 bottom=4 ! "
        "%s", conv);
    double meta[CROP_RUNS], copy[CROP_RUNS], plain[CROP_RUNS];

    if (b == 0 && !cuda_device_present ()) {
      printf ("%-44s (no CUDA device)\n", conv);
      g_free (cropped);
      g_free (conv);
      continue;
    }
    for (int k = 0; k < CROP_RUNS; k++) {
      RunWindow refused = { .refuse_crop_meta = TRUE };
      meta[k] = pipeline_fps (cropped, "I420", 1920, 1088, FEED_FOREIGN, n);
      copy[k] = pipeline_run (cropped, "I420", 1920, 1088, FEED_FOREIGN, n,
          &refused);
      plain[k] = pipeline_fps (conv, "I420", 1920, 1080, FEED_FOREIGN, n);
    }
    const double m = median (meta, CROP_RUNS), c = median (copy, CROP_RUNS);
    const double p = median (plain, CROP_RUNS);
    printf ("%-44s\n  crop meta taken   %9.1f frames/s\n"
        "  crop meta refused %9.1f frames/s  (videocrop copies; taken/refused "
        "%.2fx)\n  no crop, 1080 rows %8.1f frames/s\n", conv, m, c,
        c > 0 ? m / c : -1.0, p);
    csv_row (bench, "crop-meta-taken", 1920, 1080, 8, 0, backends[b], m);
    csv_row (bench, "crop-meta-refused", 1920, 1080, 8, 0, backends[b], c);
    csv_row (bench, "no-crop", 1920, 1080, 8, 0, backends[b], p);
    if (meta[0] <= 0 || copy[0] <= 0 || plain[0] <= 0)
      status = 1;
    g_free (cropped);
    g_free (conv);
  }
  return status;
}
