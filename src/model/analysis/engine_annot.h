/* The step annotations serving engines leave in a profiler trace, and the phase each one
 * names:
 *   - vLLM: "execute_<tokens>_context_<C>(...)_generation_<G>(...)": C requests in their
 *     context (prefill) phase and G generating (decode); C > 0 and G > 0 is mixed (chunked
 *     prefill batched with decodes);
 *   - SGLang: "step[<MODE> ...]" with MODE EXTEND or PREFILL (prefill), DECODE (decode),
 *     MIXED (mixed); another mode (IDLE, ...) is a step of phase other.
 * Nothing else is an engine annotation. */
#ifndef APTOP_ENGINE_ANNOT_H
#define APTOP_ENGINE_ANNOT_H
#include <stddef.h>

/* The phase (enum step_phase of model/analysis/steps.h) the annotation names, or -1 when name is
 * not an engine step annotation. */
int engine_annot_phase(const char *name, size_t len);

#endif
