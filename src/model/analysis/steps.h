/* Steps and phases of one rank: where each iteration of the served model begins and ends on
 * the device, and whether it was a prefill, a decode or a mix of both.
 *
 * Data flow: the loader finalizes a model, then calls steps_detect(model, kernel table) once;
 * the result is immutable and read by the report (steps, phases) and the UI (phase view)
 * through the rowset builders below. The steps borrow the model: free them before it.
 *
 * Step sources, best first (steps->source says which one was used):
 *   0. step_trace: msprof's own iterations, the "Iteration N" slices of the Step Trace lane
 *      (device time); a device kernel belongs to the iteration holding its start. The lane
 *      itself is never a kernel, device busy time or host work.
 *   1. markers: host slices named "ProfilerStep#N" (index = N).
 *   1b. annotation: a serving engine's step annotations (vLLM "execute_..._context_C..
 *      _generation_G..", SGLang "step[DECODE ...]", model/analysis/engine_annot.h), numbered 0, 1, ...;
 *      each step's phase is the one its annotation names.
 *   2. host:    outermost host slices the serving engine leaves when python stacks are on
 *               ("...: execute_model", else "EngineCore.step" / "...core.py(...): step").
 *      For 1 and 2 a device kernel belongs to the step whose marker encloses the host time
 *      of its launch (the flow into the kernel); a kernel without a launch flow follows the
 *      last kernel of its stream that had one, or, before the first such kernel or when its
 *      stream has no flows, the marker window [marker start, next marker start) holding its
 *      own start.
 *   3. period:  the device alone. On the busiest compute stream, kernel names that recur at
 *      a regular kernel-count interval through the whole capture propose periods. For each
 *      period, the cut is placed at the offset from the recurring kernel where the device
 *      (all streams) is idle longest, then per occurrence at the largest idle gap near that
 *      offset (so missing or extra kernels do not shift cuts). A period is accepted only
 *      when the names repeat at that lag (>= 50% of positions, allowing a drift of 2 kernels
 *      for missing or extra ones) and its cuts sit in idle
 *      gaps that are clearly longer than the gaps inside steps (lower quartile of cut gaps
 *      >= 3x the 90th percentile of the others, and >= 1 µs); of the accepted periods the
 *      shortest one as strong as the best wins (a layer repeats too, but its boundaries are
 *      not idle). Kernels on other streams go to the step whose time window holds their
 *      start; windows meet in the middle of the longest device-idle interval between the
 *      last busiest-stream kernel of one step and the first of the next. Nothing
 *      accepted: no steps, and steps_note() says "no periodic steps found" and why.
 *   Cost: O(n log n) in kernels (one sort), plus O(n) per candidate period (at most 24).
 *
 * Phase rule (per step, from its device kernels):
 *   - Attention kernels named like prefill (PromptFlashAttention, FlashAttentionScore,
 *     UnpadFlashAttention, _npu_flash_attention / FlashAttentionEncoder; on GPUs FlashInfer's
 *     BatchPrefillWith* / SinglePrefillWith*) and like decode (IncreFlashAttention,
 *     PagedAttention, FlashAttentionDecoder; on GPUs vLLM's paged_attention_v1/v2_kernel and
 *     paged_attention_ll4mi*, FlashInfer's BatchDecodeWith* / SingleDecodeWith*). Attention
 *     kernels that serve both (flash_fwd_kernel, kernel_unified_attention_2d, ...) name no
 *     phase: a GPU step with only those is "other" unless an annotation names it.
 *     both kinds in one step -> mixed (chunked prefill batches prefill chunks with decodes);
 *     only prefill kinds -> prefill; only decode kinds -> decode.
 *   - Only FusedInferAttentionScore (serves both): when the kernel table gives the query's
 *     Input Shapes, tokens T = first dimension of the first input (times the third for a
 *     4-D BNSD query) and requests R = first dimension of the first 2-D INT32 input (the
 *     block table): T == R -> decode, R <= 1 and T > 1 -> prefill, T > R > 1 -> mixed.
 *     Without shapes: decode when the step lasts at most 2x the median of the steps with attention kernels,
 *     else prefill (a long FIAS step cannot be told from mixed without shapes).
 *   - No attention kernel at all -> other.
 *   - A step found from an engine annotation takes the annotation's phase instead.
 *   Communication kernels: hcom_* / Hccl* (HCCL), nccl* / rccl* and names holding
 *   ncclKernel / ncclDevKernel (NCCL, RCCL).
 * Figures: busy = union of device kernels within [start, end); computing / communication
 * not overlapped come from the Overlap Analysis lanes within the step when present, else from
 * the union of compute kernels and of communication (hcom_* / Hccl* names, Communication
 * lanes); free is the rest of the step, so the three add up to its duration;
 * gap_before = device idle since the previous step's last kernel; launch = first kernel start
 * minus its host launch (when a flow says).
 * Outliers: within a phase, a step is an outlier when its duration exceeds
 * p50 + 3 * max(MAD, 1% of p50) of that phase.
 */
#ifndef APTOP_STEPS_H
#define APTOP_STEPS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/index/model.h"
#include "model/rowsets/rowset.h"

struct table;

enum step_phase { PHASE_PREFILL, PHASE_DECODE, PHASE_MIXED, PHASE_OTHER, PHASE_COUNT };
enum step_source { STEP_SRC_NONE, STEP_SRC_MARKERS, STEP_SRC_HOST, STEP_SRC_PERIOD, STEP_SRC_STEP_TRACE,
                   STEP_SRC_ANNOTATION };

const char *step_phase_name(enum step_phase p);     /* "prefill", "decode", "mixed", "other" */
const char *step_source_name(enum step_source s);   /* "none", "markers", "host", "period", "step_trace", "annotation" */

struct step {
    int64_t index;          /* N of ProfilerStep#N, else 0, 1, 2, ... */
    enum step_phase phase;
    ns_t start, end;        /* first device kernel start, last device kernel end (absolute) */
    ns_t mark_start, mark_end;  /* the host marker, or the step's cut window (NS_NONE: open) */
    uint32_t kernels;       /* device kernels (Ascend Hardware lanes) in the step */
    ns_t busy;              /* union of device kernels within [start, end) */
    ns_t computing;         /* compute busy, comm not overlapped, free within [start, end): */
    ns_t comm_not_overlapped;  /* from the Overlap Analysis lanes when present, else */
    ns_t free_time;            /* from device and communication lanes */
    ns_t gap_before;        /* device idle since the previous step's end (NS_NONE: first) */
    ns_t launch;            /* first kernel start minus its host launch (NS_NONE: no flow) */
    bool outlier;           /* duration > p50 + 3 MAD of its phase */
    uint32_t first;         /* the step's kernels: steps->kernel[first .. first+kernels) */
    int8_t annot_phase;     /* the phase its engine annotation names, -1 when none */
};

struct phase_stat {
    uint32_t count;
    ns_t p50, p90, p99, max, mad;
};

struct steps {
    const struct model *m;      /* borrowed */
    enum step_source source;
    char note[192];             /* how steps were found, or why none were */
    struct step *v;
    size_t n;
    uint32_t *kernel;           /* slice indices of device kernels grouped by step, by start */
    size_t nkernel;
    struct phase_stat phase[PHASE_COUNT];
    uint32_t period_kernels;    /* period source: kernels per step on the busiest stream */
    uint32_t stream_lane;       /* period source: the busiest compute stream, else LANE_NONE */
    bool overlap_lanes;         /* computing/comm/free came from Overlap Analysis lanes */
};

/* Detects steps and phases. kernels may be NULL (phases then come from names and durations).
 * Returns NULL only when memory ran out; a model without steps gives n == 0 and a note. */
struct steps *steps_detect(const struct model *m, const struct table *kernels);
void steps_free(struct steps *s);

static inline size_t steps_count(const struct steps *s) { return s ? s->n : 0; }
static inline const struct step *steps_get(const struct steps *s, size_t i) { return &s->v[i]; }
static inline const char *steps_note(const struct steps *s) { return s ? s->note : ""; }
/* Kernels of step i (slice indices, by start). */
const uint32_t *steps_kernels(const struct steps *s, size_t i, size_t *n);
/* Step holding time t (by [start, end)), or SIZE_MAX. O(log n). */
size_t steps_at(const struct steps *s, ns_t t);

/* Rowsets for the report and the UI (caller frees). link of each row: the step number i
 * (steps_rowset), the phase (steps_phase_rowset), or a slice index (canonical). */
struct rowset *steps_rowset(const struct steps *s);
struct rowset *steps_phase_rowset(const struct steps *s);
/* steps_rowset of one rank's steps plus "file_stage_us": the Stage figure its
 * step_trace_time.csv gives for the same step (ProfilerStep#N = Step N), kept apart from the
 * duration, which is always the step's own (model/rowsets/steps_session.c). */
struct rank_data;
struct rowset *steps_rowset_of_rank(const struct rank_data *rd, const struct steps *s);
/* Every rank's steps_rowset_of_rank (steps_phase_rowset) in one rowset, or only rank `rank`
 * (rank < 0: all), "rank" first when the session has several; a rank read from a summary
 * gives the rows its own host printed. NULL when no rank has steps. */
struct session;
struct rowset *steps_session_rowset(const struct session *s, int rank);
struct rowset *steps_phases_session_rowset(const struct session *s, int rank);
/* The canonical decode step: one row per kernel position across decode steps that have the
 * usual kernel count, with median and p90 durations; when slow_step (a step number, or
 * SIZE_MAX for none) is given, its kernel at each position and how much it grew against
 * the median; a step of another phase is not compared (the caption says so). NULL when
 * there are no decode steps. */
struct rowset *steps_canonical_rowset(const struct steps *s, size_t slow_step);

#endif
