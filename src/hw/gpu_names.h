/*
 * gpu_names.h -- reading the names people write for a GPU (module prefix:
 * gpun_).
 *
 * Published measurements name their GPU the way nvidia-smi, a cloud or a
 * paper spells it: "NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-16GB",
 * "A100 80GB PCIe", "AMD Instinct MI300X". gpun_resolve() reads such text
 * into a GPU preset (src/hw/gpu_presets.c): case, vendor and brand words
 * ("NVIDIA", "Tesla", "GeForce", "AMD Instinct"), hyphens, spaces and
 * underscores, and the order of form factor and memory do not matter.
 *
 * It never guesses between parts the text tells apart: a stated memory
 * size, form factor (SXM, PCIe, NVL, OAM) or memory type (HBM3, HBM2e)
 * must match the preset, and a word it does not know (a model suffix, a
 * variant it has no preset for) makes the whole text unknown. Where the
 * text leaves the form factor or the memory open, the family's documented
 * default is taken (docs/input.md, "GPU names"): the SXM part before the
 * PCIe one, the larger memory before the smaller (as the set ids of
 * ../shared/validation/DP-AND-RECSYS.md: "the larger memory keeps a fit
 * check from failing"), and the note says so.
 */
#ifndef SC_HW_GPU_NAMES_H
#define SC_HW_GPU_NAMES_H

#include <stddef.h>

#include "stepcast.h"

/* The preset `text` names, or NULL when it names none (NULL or empty
 * text, an unknown word, a memory size or form factor no preset of that
 * GPU has, two GPU models). A preset id or alias (sc_gpu_preset) is
 * returned as it is, with no note. Otherwise note[0..n) (when note is not
 * NULL and n > 0) receives what was read into the text that it does not
 * say -- "A100 read as a100-sxm4-80gb (form factor, memory not stated)"
 * -- or "" when nothing was; it is always NUL-terminated. The result is
 * the static preset. */
const sc_gpu *gpun_resolve(const char *text, char *note, size_t n);

#endif /* SC_HW_GPU_NAMES_H */
