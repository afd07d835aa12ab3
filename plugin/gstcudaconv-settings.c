/* cudaconv: the element's properties (see gstcudaconv.h): their values,
 * the filter they make, and what is refused.
 *
 * Values are copied under the object lock; the streaming thread takes
 * them at the next frame (settings_cookie). The filter is made here, in
 * set_property, so that weights too large for the back ends' sums are
 * refused like any other bad value. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstcudaconv.h"
#include "cudaconv-presets.h"
#include "cudaconv-matrix.h"
#include "cudaconv-filter.h"
#include "cudaconv-wide-filter.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cudaconv_debug);
#define GST_CAT_DEFAULT gst_cudaconv_debug

enum {
  PROP_0,
  PROP_KERNEL,
  PROP_RADIUS,
  PROP_SIGMA,
  PROP_MATRIX,
  PROP_DIVISOR,
  PROP_OFFSET,
  PROP_BORDER,
  PROP_STRATEGY,
  PROP_CHANNELS,
  PROP_GRAY_EDGES,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_ASYNC_DEPTH,
  PROP_HOST_REGISTER,
  PROP_REGION,
  PROP_REGION_TYPES,
  PROP_REGION_BOXES,
  PROP_REGION_MARGIN,
  PROP_REGION_HOLD,
  PROP_REGION_RADIUS_SCALE,
  PROP_STATS
};

#define DEFAULT_PROP_KERNEL GST_CUDACONV_KERNEL_GAUSSIAN
#define DEFAULT_PROP_RADIUS 2
#define DEFAULT_PROP_SIGMA 0.0
#define DEFAULT_PROP_MATRIX NULL
#define DEFAULT_PROP_DIVISOR 0.0
#define DEFAULT_PROP_OFFSET 0.0
/* replicating the edge keeps blurred borders as bright as the picture */
#define DEFAULT_PROP_BORDER GST_CUDACONV_BORDER_CLAMP
#define DEFAULT_PROP_STRATEGY CC_STRATEGY_AUTO
#define DEFAULT_PROP_CHANNELS GST_CUDACONV_CHANNELS_COLOR
#define DEFAULT_PROP_GRAY_EDGES TRUE
#define DEFAULT_PROP_BACKEND GST_CUDACONV_BACKEND_AUTO
#define DEFAULT_PROP_DEVICE_ID -1
#define DEFAULT_PROP_ASYNC_DEPTH 0
#define DEFAULT_PROP_HOST_REGISTER TRUE
#define DEFAULT_PROP_REGION GST_CUDACONV_REGION_MODE_FRAME
#define DEFAULT_PROP_REGION_MARGIN 0.0
#define DEFAULT_PROP_REGION_HOLD 0
#define DEFAULT_PROP_REGION_RADIUS_SCALE 0.0
/* a margin of 2 makes a box five times its size, past any use */
#define MAX_REGION_MARGIN 2.0
/* The numeric properties declare their real ranges, so that gst-inspect,
 * GUI tools and a GstController's normal (not absolute) bindings see them;
 * GObject refuses values outside them, NaN included, with its own warning
 * and the previous value stays. */
#define MAX_SIGMA 1000.0
/* far beyond what 31x31 weights of a million each add up to */
#define MAX_DIVISOR 1e9
/* the offset is on the 8-bit scale at every depth (cudaconv-layout.h):
 * 256 lifts black past white in any format */
#define MAX_OFFSET 256.0

#define LIVE_PARAM_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)
#define CONTROLLABLE_PARAM_FLAGS (LIVE_PARAM_FLAGS | GST_PARAM_CONTROLLABLE)

gboolean
gst_cudaconv_settings_filter (const GstCudaConvSettings * s,
    CcFilter * filter, GError ** error)
{
  CudaConvWeights weights;

  if (s->kernel == GST_CUDACONV_KERNEL_CUSTOM) {
    if (!s->have_matrix) {
      g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
          "kernel=custom needs the matrix property, e.g. "
          "matrix=\"0,-1,0;-1,5,-1;0,-1,0\"");
      return FALSE;
    }
    weights = s->matrix;
  } else if (cudaconv_preset_is_wide (s->kernel, s->radius)) {
    return cudaconv_wide_filter_make (s->kernel, s->radius, s->sigma,
        s->divisor, s->offset, filter, error);
  } else {
    cudaconv_preset_weights (s->kernel, s->radius, s->sigma, &weights);
  }
  return cudaconv_filter_prepare (&weights, s->divisor, s->offset, filter,
      error);
}

/* kernel=custom set before its matrix: allowed for now, judged when the
 * element starts or, while it runs, at the next frame */
static gboolean
awaits_matrix (const GstCudaConvSettings * s)
{
  return s->kernel == GST_CUDACONV_KERNEL_CUSTOM && !s->have_matrix;
}

static gboolean
shapes_filter (guint prop_id)
{
  return prop_id == PROP_KERNEL || prop_id == PROP_RADIUS
      || prop_id == PROP_SIGMA || prop_id == PROP_MATRIX
      || prop_id == PROP_DIVISOR || prop_id == PROP_OFFSET;
}

/* Only the identity preset with no divisor or offset effect leaves every
 * frame as it is; a custom 1x1 [1] is filtered anyway, which costs a copy. */
static gboolean
settings_are_identity (const GstCudaConvSettings * s)
{
  return s->kernel == GST_CUDACONV_KERNEL_IDENTITY && s->offset == 0.0
      && (s->divisor == 0.0 || s->divisor == 1.0);
}

/* Every change of the settings is followed by a call, and the calls run one
 * at a time, each deciding on the settings as they are once it holds the
 * lock: the last decision always sees the last change, so two threads
 * setting kernel=identity and kernel=gaussian cannot leave passthrough on
 * with gaussian set. (GstBaseTransform takes the object lock to switch
 * passthrough, so the decision cannot be made under that lock itself.) */
void
gst_cudaconv_update_passthrough (GstCudaConv * self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  gboolean identity;

  g_mutex_lock (&self->passthrough_lock);
  GST_OBJECT_LOCK (self);
  /* a frame that changes memory is copied even when nothing filters it */
  identity = settings_are_identity (&self->settings)
      && !self->changes_memory;
  GST_OBJECT_UNLOCK (self);
  if (identity != gst_base_transform_is_passthrough (trans)) {
    GST_DEBUG_OBJECT (self, "passthrough %s", identity ? "on" : "off");
    gst_base_transform_set_passthrough (trans, identity);
    /* output buffers must be allocated again; in passthrough, upstream
     * must ask downstream which metas it takes (crop metas among them) */
    if (!identity)
      gst_base_transform_reconfigure_src (trans);
    else
      gst_base_transform_reconfigure_sink (trans);
  }
  g_mutex_unlock (&self->passthrough_lock);
}

/* A refused value keeps the previous one. It is reported once: before the
 * element starts, as the ERROR that makes start() fail (so that a bad
 * command line ends in an error instead of running with a value the user
 * did not ask for), afterwards as a WARNING on the bus. Never g_warning,
 * which aborts applications that run with G_DEBUG=fatal-warnings. */
static void
reject_setting (GstCudaConv * self, const gchar * property,
    const gchar * format, ...)
{
  gchar *problem, *message;
  gboolean started;
  va_list args;

  va_start (args, format);
  problem = g_strdup_vprintf (format, args);
  va_end (args);
  message = g_strdup_printf ("%s: invalid %s: %s", GST_OBJECT_NAME (self),
      property, problem);
  GST_WARNING_OBJECT (self, "%s; keeping the previous value", message);

  GST_OBJECT_LOCK (self);
  started = self->started;
  if (!started && !self->rejected_setting) {
    self->rejected_property = property;
    self->rejected_setting = message;
    message = NULL;
  }
  GST_OBJECT_UNLOCK (self);
  if (started)
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("Invalid %s: %s", property,
            problem), ("the previous value stays in effect"));
  g_free (problem);
  g_free (message);
}

void
gst_cudaconv_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaConv *self = GST_CUDACONV (object);
  GstCudaConvSettings next, *s = &next;
  const gchar *name = g_param_spec_get_name (pspec);
  CudaConvWeights matrix;
  GBytes *boxes = NULL;
  GQuark types[16];
  guint n_types = 0;
  CcFilter filter;
  gboolean filter_valid = FALSE;
  GError *err = NULL;

  switch (prop_id) {
    case PROP_BACKEND:
    case PROP_DEVICE_ID:
    case PROP_ASYNC_DEPTH:{
      gboolean started;
      GST_OBJECT_LOCK (self);
      started = self->started;
      GST_OBJECT_UNLOCK (self);
      if (started) {
        reject_setting (self, name, "it can only change in the NULL or READY "
            "state");
        return;
      }
      break;
    }
    case PROP_MATRIX:
      if (g_value_get_string (value)
          && !cudaconv_matrix_parse (g_value_get_string (value), &matrix,
              &err)) {
        reject_setting (self, name, "%s", err->message);
        g_error_free (err);
        return;
      }
      break;
    case PROP_REGION_TYPES:
      if (!cudaconv_regions_parse_types (g_value_get_string (value), types,
              &n_types, &err)) {
        reject_setting (self, name, "%s", err->message);
        g_error_free (err);
        return;
      }
      break;
    case PROP_REGION_BOXES:
      if (!cudaconv_regions_parse_boxes (g_value_get_string (value), &boxes,
              &err)) {
        reject_setting (self, name, "%s", err->message);
        g_error_free (err);
        return;
      }
      break;
    default:
      break;
  }

  GST_OBJECT_LOCK (self);
  next = self->settings;
  switch (prop_id) {
    case PROP_KERNEL:
      s->kernel = g_value_get_enum (value);
      break;
    case PROP_RADIUS:
      s->radius = g_value_get_int (value);
      break;
    case PROP_SIGMA:
      s->sigma = g_value_get_double (value);
      break;
    case PROP_MATRIX:
      s->have_matrix = g_value_get_string (value) != NULL;
      if (s->have_matrix)
        s->matrix = matrix;
      break;
    case PROP_DIVISOR:
      s->divisor = g_value_get_double (value);
      break;
    case PROP_OFFSET:
      s->offset = g_value_get_double (value);
      break;
    case PROP_BORDER:
      s->border = g_value_get_enum (value);
      break;
    case PROP_STRATEGY:
      s->strategy = g_value_get_enum (value);
      break;
    case PROP_CHANNELS:
      s->channels = g_value_get_flags (value);
      break;
    case PROP_GRAY_EDGES:
      s->gray_edges = g_value_get_boolean (value);
      break;
    case PROP_BACKEND:
      s->backend = g_value_get_enum (value);
      break;
    case PROP_DEVICE_ID:
      s->device_id = g_value_get_int (value);
      break;
    case PROP_ASYNC_DEPTH:
      s->async_depth = g_value_get_uint (value);
      break;
    case PROP_HOST_REGISTER:
      s->host_register = g_value_get_boolean (value);
      break;
    case PROP_REGION:
      s->region_mode = g_value_get_enum (value);
      break;
    case PROP_REGION_TYPES:
      memcpy (s->region_rules.types, types, sizeof (types));
      s->region_rules.n_types = n_types;
      break;
    case PROP_REGION_BOXES:
      /* the settings' reference; the old boxes' goes below */
      s->region_rules.boxes = boxes;
      break;
    case PROP_REGION_MARGIN:
      s->region_rules.margin = g_value_get_double (value);
      break;
    case PROP_REGION_HOLD:
      s->region_rules.hold = g_value_get_uint (value);
      break;
    case PROP_REGION_RADIUS_SCALE:
      s->region_radius_scale = g_value_get_double (value);
      break;
    default:
      GST_OBJECT_UNLOCK (self);
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
  }
  /* The filter is made here, from the settings it belongs to and under the
   * same lock: weights too large for the back ends' sums are refused like
   * any other bad value, and the streaming thread only copies the result. */
  if (shapes_filter (prop_id)) {
    filter_valid = gst_cudaconv_settings_filter (&next, &filter, &err);
    if (!filter_valid && !awaits_matrix (&next)) {
      GST_OBJECT_UNLOCK (self);
      reject_setting (self, name, "%s", err->message);
      g_error_free (err);
      return;
    }
    g_clear_error (&err);
    self->settings_filter_valid = filter_valid;
    if (filter_valid)
      self->settings_filter = filter;
  }
  if (prop_id == PROP_REGION_BOXES && self->settings.region_rules.boxes)
    g_bytes_unref (self->settings.region_rules.boxes);
  self->settings = next;
  if (prop_id == PROP_MATRIX) {
    g_free (self->matrix_text);
    self->matrix_text = g_value_dup_string (value);
  } else if (prop_id == PROP_REGION_TYPES) {
    g_free (self->region_types_text);
    self->region_types_text = g_value_dup_string (value);
  } else if (prop_id == PROP_REGION_BOXES) {
    g_free (self->region_boxes_text);
    self->region_boxes_text = g_value_dup_string (value);
  }
  self->settings_cookie++;
  /* a valid value replaces a refused one */
  if (g_strcmp0 (self->rejected_property, name) == 0) {
    self->rejected_property = NULL;
    g_clear_pointer (&self->rejected_setting, g_free);
  }
  GST_OBJECT_UNLOCK (self);

  gst_cudaconv_update_passthrough (self);
}

void
gst_cudaconv_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaConv *self = GST_CUDACONV (object);
  GstCudaConvSettings *s = &self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL:
      g_value_set_enum (value, s->kernel);
      break;
    case PROP_RADIUS:
      g_value_set_int (value, s->radius);
      break;
    case PROP_SIGMA:
      g_value_set_double (value, s->sigma);
      break;
    case PROP_MATRIX:
      g_value_set_string (value, self->matrix_text);
      break;
    case PROP_DIVISOR:
      g_value_set_double (value, s->divisor);
      break;
    case PROP_OFFSET:
      g_value_set_double (value, s->offset);
      break;
    case PROP_BORDER:
      g_value_set_enum (value, s->border);
      break;
    case PROP_STRATEGY:
      g_value_set_enum (value, s->strategy);
      break;
    case PROP_CHANNELS:
      g_value_set_flags (value, s->channels);
      break;
    case PROP_GRAY_EDGES:
      g_value_set_boolean (value, s->gray_edges);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, s->backend);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, s->device_id);
      break;
    case PROP_ASYNC_DEPTH:
      g_value_set_uint (value, s->async_depth);
      break;
    case PROP_HOST_REGISTER:
      g_value_set_boolean (value, s->host_register);
      break;
    case PROP_REGION:
      g_value_set_enum (value, s->region_mode);
      break;
    case PROP_REGION_TYPES:
      g_value_set_string (value, self->region_types_text);
      break;
    case PROP_REGION_BOXES:
      g_value_set_string (value, self->region_boxes_text);
      break;
    case PROP_REGION_MARGIN:
      g_value_set_double (value, s->region_rules.margin);
      break;
    case PROP_REGION_HOLD:
      g_value_set_uint (value, s->region_rules.hold);
      break;
    case PROP_REGION_RADIUS_SCALE:
      g_value_set_double (value, s->region_radius_scale);
      break;
    case PROP_STATS:
      g_value_take_boxed (value, gst_structure_new ("cudaconv-stats",
              "frames", G_TYPE_UINT64, self->stats_frames,
              "regions-us", G_TYPE_UINT64, self->stats_regions_us,
              "queue-us", G_TYPE_UINT64, self->stats_queue_us,
              "finish-us", G_TYPE_UINT64, self->stats_finish_us, NULL));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

void
gst_cudaconv_settings_install (GObjectClass * gobject_class)
{
  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_enum ("kernel", "Kernel",
          "The filter: a preset or custom (the matrix property)",
          GST_TYPE_CUDACONV_KERNEL, DEFAULT_PROP_KERNEL,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Filter width is 2*radius+1, for box, gaussian, sharpen and "
          "pixelate (its block side); the 3x3 presets (edge, sobel, sobel-x, "
          "sobel-y, emboss), identity and custom ignore it. Beyond 15, box "
          "runs as running sums and gaussian and sharpen as two 1D passes",
          1, CC_MAX_WIDE_RADIUS, DEFAULT_PROP_RADIUS,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Standard deviation of gaussian and sharpen, in pixels; 0 derives it "
          "from the radius as 0.3*(radius-1)+0.8", 0.0, MAX_SIGMA,
          DEFAULT_PROP_SIGMA, CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MATRIX,
      g_param_spec_string ("matrix", "Matrix",
          "Weights of kernel=custom: rows separated by ';', values by ',', "
          "e.g. \"1,2,1;2,4,2;1,2,1\"; square with an odd side of 1 to 31",
          DEFAULT_PROP_MATRIX, LIVE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_DIVISOR,
      g_param_spec_double ("divisor", "Divisor",
          "The weighted sum is divided by this; 0 divides by the sum of the "
          "weights, or by 1 when they sum to 0. Refused when it makes the "
          "weights too large for single-precision sums", -MAX_DIVISOR,
          MAX_DIVISOR, DEFAULT_PROP_DIVISOR, CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_OFFSET,
      g_param_spec_double ("offset", "Offset",
          "Added after dividing, on the 8-bit scale: deeper formats take it "
          "times 2^(depth-8), so 128 is mid-level in every format and shows "
          "signed responses (512 in 10-bit samples)", -MAX_OFFSET, MAX_OFFSET, DEFAULT_PROP_OFFSET,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border",
          "What the filter sees beyond the frame's edges",
          GST_TYPE_CUDACONV_BORDER, DEFAULT_PROP_BORDER,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_STRATEGY,
      g_param_spec_enum ("strategy", "Strategy",
          "How the CUDA kernels stage their input; the bus INFO on the first "
          "frame names the kernel family each component runs (the CPU "
          "backend ignores it)",
          GST_TYPE_CUDACONV_STRATEGY, DEFAULT_PROP_STRATEGY,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_CHANNELS,
      g_param_spec_flags ("channels", "Channels",
          "Components to filter; the others are copied unchanged",
          GST_TYPE_CUDACONV_CHANNELS, DEFAULT_PROP_CHANNELS,
          LIVE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_GRAY_EDGES,
      g_param_spec_boolean ("gray-edges", "Gray edges",
          "With edge, sobel, sobel-x, sobel-y and emboss on YUV formats, set "
          "the chroma to its neutral value so the output is a gray edge map",
          DEFAULT_PROP_GRAY_EDGES, LIVE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where frames are filtered", GST_TYPE_CUDACONV_BACKEND,
          DEFAULT_PROP_BACKEND,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "CUDA device to use; -1 takes the device of a CUDA context the "
          "pipeline already has (a neighbour's, or one the application "
          "sets), else the device on which the fewest cudaconv elements of "
          "this process are started, the lowest on a tie; decided at start",
          -1, G_MAXINT,
          DEFAULT_PROP_DEVICE_ID,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_ASYNC_DEPTH,
      g_param_spec_uint ("async-depth", "Async depth",
          "Frames the CUDA backend works on at once (copy in, filter, copy "
          "out overlapping); output leaves async-depth - 1 frames after its "
          "input. 0: 1 on live streams, 3 otherwise", 0,
          CUDACONV_MAX_IN_FLIGHT, DEFAULT_PROP_ASYNC_DEPTH,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_HOST_REGISTER,
      g_param_spec_boolean ("host-register", "Host register",
          "Page-lock input buffers that are not from this element's pool "
          "with CUDA, once per buffer while upstream recycles it, so they "
          "are copied by DMA; false copies them through pinned staging",
          DEFAULT_PROP_HOST_REGISTER, LIVE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_REGION,
      g_param_spec_enum ("region", "Region",
          "Where each frame is filtered: the whole frame, or inside or "
          "outside its regions: the boxes of its GstVideoRegionOfInterestMeta"
#ifdef HAVE_GST_ANALYTICS
          " and GstAnalyticsODMtd"
#endif
          " metas (detectors such as facedetect attach them) and "
          "region-boxes. Filters read the real pixels around a region; "
          "border applies at the frame's edges only",
          GST_TYPE_CUDACONV_REGION_MODE, DEFAULT_PROP_REGION,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_REGION_TYPES,
      g_param_spec_string ("region-types", "Region types",
          "Region types (ROI metas) or labels (analytics detections) to act "
          "on, separated by ',', e.g. \"face\"; empty or unset: all",
          NULL, LIVE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_REGION_BOXES,
      g_param_spec_string ("region-boxes", "Region boxes",
          "Fixed regions in pixels of the frame, \"x,y,width,height\" "
          "separated by ';' (at most 1024), with the metas' or alone; boxes "
          "partly outside the frame are clipped",
          NULL, LIVE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_REGION_MARGIN,
      g_param_spec_double ("region-margin", "Region margin",
          "Grows each region on every side by this fraction of its own width "
          "and height (detectors' boxes are tight: hair, ears, chin)",
          0.0, MAX_REGION_MARGIN, DEFAULT_PROP_REGION_MARGIN,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_REGION_HOLD,
      g_param_spec_uint ("region-hold", "Region hold",
          "Keeps each region reported by a meta for this many frames after "
          "the frame that last reported it, so that a missed detection does "
          "not uncover it", 0, CUDACONV_MAX_REGION_HOLD,
          DEFAULT_PROP_REGION_HOLD, LIVE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_REGION_RADIUS_SCALE,
      g_param_spec_double ("region-radius-scale", "Region radius scale",
          "With box, gaussian, sharpen and pixelate: each region's radius is "
          "this fraction of its smaller side in pixels (1 to 127), so that "
          "larger faces get stronger blur; 0 uses radius for every region",
          0.0, 1.0, DEFAULT_PROP_REGION_RADIUS_SCALE,
          CONTROLLABLE_PARAM_FLAGS));
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "The host's time on the frames filtered since the element "
          "started, in microseconds: \"frames\", \"regions-us\" (collecting "
          "their regions and working out what those cover), \"queue-us\" "
          "(queueing them on the backend) and \"finish-us\" (finishing "
          "them, waiting for the device included)", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

void
gst_cudaconv_settings_init (GstCudaConv * self)
{
  GstCudaConvSettings *s = &self->settings;

  s->kernel = DEFAULT_PROP_KERNEL;
  s->radius = DEFAULT_PROP_RADIUS;
  s->sigma = DEFAULT_PROP_SIGMA;
  s->have_matrix = FALSE;
  s->divisor = DEFAULT_PROP_DIVISOR;
  s->offset = DEFAULT_PROP_OFFSET;
  s->border = DEFAULT_PROP_BORDER;
  s->strategy = DEFAULT_PROP_STRATEGY;
  s->channels = DEFAULT_PROP_CHANNELS;
  s->gray_edges = DEFAULT_PROP_GRAY_EDGES;
  s->backend = DEFAULT_PROP_BACKEND;
  s->device_id = DEFAULT_PROP_DEVICE_ID;
  s->async_depth = DEFAULT_PROP_ASYNC_DEPTH;
  s->host_register = DEFAULT_PROP_HOST_REGISTER;
  s->region_mode = DEFAULT_PROP_REGION;
  memset (&s->region_rules, 0, sizeof (s->region_rules));
  s->region_rules.margin = DEFAULT_PROP_REGION_MARGIN;
  s->region_rules.hold = DEFAULT_PROP_REGION_HOLD;
  s->region_radius_scale = DEFAULT_PROP_REGION_RADIUS_SCALE;
  self->settings_cookie = 1;
  self->settings_filter_valid = gst_cudaconv_settings_filter (s,
      &self->settings_filter, NULL);
}

void
gst_cudaconv_stats_reset (GstCudaConv * self)
{
  GST_OBJECT_LOCK (self);
  self->stats_frames = self->stats_regions_us = 0;
  self->stats_queue_us = self->stats_finish_us = 0;
  GST_OBJECT_UNLOCK (self);
}

void
gst_cudaconv_stats_add (GstCudaConv * self, guint frames, gint64 regions_us,
    gint64 queue_us, gint64 finish_us)
{
  GST_OBJECT_LOCK (self);
  self->stats_frames += frames;
  self->stats_regions_us += (guint64) regions_us;
  self->stats_queue_us += (guint64) queue_us;
  self->stats_finish_us += (guint64) finish_us;
  GST_OBJECT_UNLOCK (self);
}
