/* cudaconv: the launchers of the box-lines family (box-lines.cuh). */
#include "families.cuh"
#include "box-lines.cuh"

/* mid^T: one sum per sample */
size_t
box_lines_workspace (const Launch &l)
{
  return (l.sample == CC_SAMPLE_U8 ? sizeof (uint16_t) : sizeof (uint32_t))
      * (size_t) l.width * (size_t) l.height;
}

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
