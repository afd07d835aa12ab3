/* cudaconv: the launchers of the box-running-sum family
 * (box-running-sum.cuh). */
#include "families.cuh"
#include "box-running-sum.cuh"

/* Both box families' intermediate: one sum per sample (box-running-sum's
 * rows of row sums, box-lines' mid^T) */
size_t
box_workspace (const Launch &l)
{
  return (l.sample == CC_SAMPLE_U8 ? sizeof (uint16_t) : sizeof (uint32_t))
      * (size_t) l.width * (size_t) l.height;
}

cudaError_t
launch_box_running_sum (const Launch &l)
{
  return l.sample == CC_SAMPLE_U8 ?
      box_launch<BoxTuning, uint8_t, uint16_t> (l) :
      box_launch<BoxTuning, uint16_t, uint32_t> (l);
}
