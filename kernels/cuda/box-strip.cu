/* cudaconv: the launcher of the box-strip family (box-strip.cuh). */
#include "families.cuh"
#include "box-strip.cuh"

/* The selector's preference (BoxStripTuning::ALWAYS_RADIUS) */
bool
box_strip_pays (const Launch &l)
{
  const int r = l.radius ();
  return r <= BoxStripTuning::ALWAYS_RADIUS
      || box_strip_fills<BoxStripTuning> (l.width, l.height,
          BoxStripShape<BOX_STRIP_MAX_RADIUS>::COLUMNS);
}

cudaError_t
launch_box_strip (const Launch &l)
{
  return l.sample == CC_SAMPLE_U8 ?
      box_strip_launch<BoxStripTuning, uint8_t> (l) :
      box_strip_launch<BoxStripTuning, uint16_t> (l);
}
