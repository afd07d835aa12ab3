/* cudaconv: the launchers of the box-bands family (box-bands.cuh). */
#include "families.cuh"
#include "box-bands.cuh"

/* The selector's preference: from BoxBandTuning::MIN_RADIUS, on 16-bit
 * planes below the radii that box_lines_pays keeps for box-lines */
bool
box_bands_pays (const Launch &l)
{
  return l.radius () >= BoxBandTuning::MIN_RADIUS
      && (l.sample == CC_SAMPLE_U8 || !box_lines_pays (l));
}

size_t
box_bands_workspace (const Launch &l)
{
  return l.sample == CC_SAMPLE_U8 ?
      box_bands_workspace_bytes<BoxBandTuning, uint8_t> (l.width, l.height) :
      box_bands_workspace_bytes<BoxBandTuning, uint16_t> (l.width, l.height);
}

cudaError_t
launch_box_bands (const Launch &l)
{
  return l.sample == CC_SAMPLE_U8 ?
      box_bands_launch<BoxBandTuning, uint8_t> (l) :
      box_bands_launch<BoxBandTuning, uint16_t> (l);
}
