/* cudaconv: how many elements of this process are started on each CUDA
 * device, so that an element free to choose (device-id=-1 and no CUDA
 * context shared in its pipeline) takes the least busy one. An element
 * counts itself on its device in start, whatever chose that device, and
 * uncounts itself in stop. The table holds plain counts under a mutex,
 * so it builds, and is tested, without CUDA. */
#ifndef CUDACONV_DEVICE_LOAD_H
#define CUDACONV_DEVICE_LOAD_H

#include <glib.h>

G_BEGIN_DECLS

/* The device with the fewest started elements, counts[d] being those of
 * device d < n_devices; the lowest such id on a tie, and 0 (CUDA's default
 * device) when n_devices is below 1. */
gint cudaconv_device_least_busy (const guint * counts, gint n_devices);

/* Counts one more element started on device_id (a device that exists), or
 * for -1 on the least busy of devices 0 .. n_devices - 1 (chosen and
 * counted under one lock, so that elements starting at once spread too);
 * returns that device. */
gint cudaconv_device_load_acquire (gint device_id, gint n_devices);

/* Counts one element fewer on device, an answer of acquire; -1 is
 * ignored. */
void cudaconv_device_load_release (gint device);

/* How many elements are counted on device now. */
guint cudaconv_device_load_started (gint device);

G_END_DECLS
#endif /* CUDACONV_DEVICE_LOAD_H */
