/* cudaconv: formats whose 10-bit samples share 32-bit words (v210, Y410,
 * RGB10A2_LE, BGR10A2_LE), filtered through a planar 16-bit copy.
 *
 * Their samples lie at bit offsets no kernel addresses, so each frame is
 * unpacked into a planar format of the same size and sample grids (v210
 * into I422_10LE, Y410 into A444_10LE, the RGB ones into GBRA_10LE), the
 * back ends filter that, and the result is packed back. This is the host's
 * conversion, for the CPU backend; the CUDA backend converts on the device
 * (cc_cuda_word_packed_convert). */
#ifndef CUDACONV_WORD_PACKED_H
#define CUDACONV_WORD_PACKED_H

#include <gst/video/video.h>

G_BEGIN_DECLS

/* The planar format frames of format are filtered in, or
 * GST_VIDEO_FORMAT_UNKNOWN for formats the back ends take as they are. */
GstVideoFormat cudaconv_word_packed_work_format (GstVideoFormat format);

/* The work format's component that each of format's planes (v210: Y, Cb,
 * Cr, then -1) or fields (the others: bits 0, 10, 20 and 30 of a word)
 * holds */
void cudaconv_word_packed_components (GstVideoFormat format, gint comps[4]);

/* packed (a word-packed frame) into work (its work format, same size), in
 * bands of rows on up to n_threads threads */
void cudaconv_word_packed_unpack (const GstVideoFrame * packed,
    GstVideoFrame * work, gint n_threads);

/* work into packed; samples past their field's range (a 2-bit alpha
 * above 3) are saturated, and the bits of a word no sample owns are 0 */
void cudaconv_word_packed_pack (const GstVideoFrame * work,
    GstVideoFrame * packed, gint n_threads);

G_END_DECLS
#endif /* CUDACONV_WORD_PACKED_H */
