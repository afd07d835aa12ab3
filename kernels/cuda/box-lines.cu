/* cudaconv: the launchers of the box-lines family (box-lines.cuh). */
#include "families.cuh"
#include "box-lines.cuh"

/* The selector's preference: radii where the line passes beat the
 * running sums (BoxLineTuning) */
bool
box_lines_pays (const Launch &l)
{
  return l.radius () >= (l.sample == CC_SAMPLE_U8 ?
                 BoxLineTuning::MIN_RADIUS_8 :
                 BoxLineTuning::MIN_RADIUS_16);
}

cudaError_t
launch_box_lines (const Launch &l)
{
  return l.sample == CC_SAMPLE_U8 ?
      box_lines_launch<BoxLineTuning, uint8_t, uint16_t> (l) :
      box_lines_launch<BoxLineTuning, uint16_t, uint32_t> (l);
}
