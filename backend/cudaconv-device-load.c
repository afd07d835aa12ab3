/* cudaconv: the process's count of started elements per CUDA device (see
 * the header). */
#include "cudaconv-device-load.h"

/* a static GMutex needs no init */
static GMutex load_lock;
/* started[d]: elements counted on device d, for d < n_known */
static guint *started;
static gint n_known;

gint
cudaconv_device_least_busy (const guint * counts, gint n_devices)
{
  gint best = 0;

  for (gint d = 1; d < n_devices; d++)
    if (counts[d] < counts[best])
      best = d;
  return best;
}

/* Makes room for devices 0 .. n - 1; call with the lock held. */
static void
know_devices (gint n)
{
  if (n <= n_known)
    return;
  started = g_renew (guint, started, n);
  for (gint d = n_known; d < n; d++)
    started[d] = 0;
  n_known = n;
}

gint
cudaconv_device_load_acquire (gint device_id, gint n_devices)
{
  gint device;

  g_mutex_lock (&load_lock);
  know_devices (device_id >= 0 ? device_id + 1 : n_devices);
  device = device_id >= 0 ? device_id :
      cudaconv_device_least_busy (started, n_devices);
  know_devices (device + 1);
  started[device]++;
  g_mutex_unlock (&load_lock);
  return device;
}

void
cudaconv_device_load_release (gint device)
{
  if (device < 0)
    return;
  g_mutex_lock (&load_lock);
  if (device < n_known && started[device] > 0)
    started[device]--;
  else
    g_critical ("cudaconv: device %d released more often than acquired",
        device);
  g_mutex_unlock (&load_lock);
}

guint
cudaconv_device_load_started (gint device)
{
  guint n = 0;

  g_mutex_lock (&load_lock);
  if (device >= 0 && device < n_known)
    n = started[device];
  g_mutex_unlock (&load_lock);
  return n;
}
