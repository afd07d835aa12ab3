/* cudaconv tests: the choice of the least busy CUDA device and the
 * process's count of elements started on each. */
#include <glib.h>

#include "cudaconv-device-load.h"

static void
test_least_busy (void)
{
  const guint idle[4] = { 0, 0, 0, 0 };
  const guint first_busy[4] = { 1, 0, 0, 0 };
  const guint last_idle[4] = { 2, 2, 2, 1 };
  const guint middle_ties[5] = { 3, 1, 2, 1, 1 };
  const guint one[1] = { 7 };

  /* ties go to the lowest id */
  g_assert_cmpint (cudaconv_device_least_busy (idle, 4), ==, 0);
  g_assert_cmpint (cudaconv_device_least_busy (first_busy, 4), ==, 1);
  g_assert_cmpint (cudaconv_device_least_busy (last_idle, 4), ==, 3);
  g_assert_cmpint (cudaconv_device_least_busy (middle_ties, 5), ==, 1);
  /* only the first n_devices count */
  g_assert_cmpint (cudaconv_device_least_busy (last_idle, 3), ==, 0);
  /* one GPU: always device 0, however busy */
  g_assert_cmpint (cudaconv_device_least_busy (one, 1), ==, 0);
  /* no device known: CUDA's default */
  g_assert_cmpint (cudaconv_device_least_busy (NULL, 0), ==, 0);
  g_assert_cmpint (cudaconv_device_least_busy (NULL, -1), ==, 0);
}

/* Eight elements of device-id=-1 on four devices land two on each, in
 * turn; explicit devices count too; released counts are free again. The
 * table is the process's, so the test leaves it as it found it: empty. */
static void
test_table (void)
{
  gint devices[8];

  for (guint i = 0; i < G_N_ELEMENTS (devices); i++) {
    devices[i] = cudaconv_device_load_acquire (-1, 4);
    g_assert_cmpint (devices[i], ==, i % 4);
  }
  for (gint d = 0; d < 4; d++)
    g_assert_cmpuint (cudaconv_device_load_started (d), ==, 2);

  /* an element of device-id=2 makes device 2 the busiest */
  g_assert_cmpint (cudaconv_device_load_acquire (2, 4), ==, 2);
  g_assert_cmpuint (cudaconv_device_load_started (2), ==, 3);
  g_assert_cmpint (cudaconv_device_load_acquire (-1, 4), ==, 0);
  g_assert_cmpint (cudaconv_device_load_acquire (-1, 4), ==, 1);
  g_assert_cmpint (cudaconv_device_load_acquire (-1, 4), ==, 3);
  /* all at 3 again: ties go to device 0 */
  g_assert_cmpint (cudaconv_device_load_acquire (-1, 4), ==, 0);
  cudaconv_device_load_release (0);
  cudaconv_device_load_release (0);
  cudaconv_device_load_release (1);
  cudaconv_device_load_release (2);
  cudaconv_device_load_release (3);

  /* the two of device 1 stop: the next element goes there */
  cudaconv_device_load_release (devices[1]);
  cudaconv_device_load_release (devices[5]);
  g_assert_cmpuint (cudaconv_device_load_started (1), ==, 0);
  g_assert_cmpint (cudaconv_device_load_acquire (-1, 4), ==, 1);
  cudaconv_device_load_release (1);

  /* a device beyond those counted so far, as a context of another device
   * brings it (n_devices 0) */
  g_assert_cmpint (cudaconv_device_load_acquire (6, 0), ==, 6);
  g_assert_cmpuint (cudaconv_device_load_started (6), ==, 1);
  cudaconv_device_load_release (6);
  /* releasing nothing is nothing */
  cudaconv_device_load_release (-1);

  for (guint i = 0; i < G_N_ELEMENTS (devices); i++)
    if (i != 1 && i != 5)
      cudaconv_device_load_release (devices[i]);
  for (gint d = 0; d < 8; d++)
    g_assert_cmpuint (cudaconv_device_load_started (d), ==, 0);
  /* all stopped: the next one starts from device 0 again */
  g_assert_cmpint (cudaconv_device_load_acquire (-1, 4), ==, 0);
  cudaconv_device_load_release (0);
}

/* Elements starting at once from many threads still spread evenly: the
 * choice and the count are one step. */
static gpointer
acquire_many (gpointer data)
{
  gint *devices = data;

  for (guint i = 0; i < 100; i++)
    devices[i] = cudaconv_device_load_acquire (-1, 3);
  return NULL;
}

static void
test_threads (void)
{
  gint devices[4][100];
  GThread *threads[4];

  for (guint t = 0; t < 4; t++)
    threads[t] = g_thread_new ("acquire", acquire_many, devices[t]);
  for (guint t = 0; t < 4; t++)
    g_thread_join (threads[t]);
  /* 400 on 3 devices: 134, 133, 133 */
  g_assert_cmpuint (cudaconv_device_load_started (0), ==, 134);
  g_assert_cmpuint (cudaconv_device_load_started (1), ==, 133);
  g_assert_cmpuint (cudaconv_device_load_started (2), ==, 133);
  for (guint t = 0; t < 4; t++)
    for (guint i = 0; i < 100; i++)
      cudaconv_device_load_release (devices[t][i]);
  for (gint d = 0; d < 3; d++)
    g_assert_cmpuint (cudaconv_device_load_started (d), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/device-load/least-busy", test_least_busy);
  g_test_add_func ("/device-load/table", test_table);
  g_test_add_func ("/device-load/threads", test_threads);
  return g_test_run ();
}
