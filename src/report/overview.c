/* The report's "overview" and "advice" sections (model/analysis/overview.h, model/analysis/advisor.h). */
#include "report/report.h"

#include "model/analysis/advisor.h"
#include "model/analysis/overview.h"
#include "model/index/rank_filter.h"

struct rowset *report_overview(const struct session *s, const struct report_opts *o)
{
    struct overview ov;
    if (!s || !s->nranks || overview_compute(s, &ov) < 0)
        return NULL;
    struct rowset *rs = overview_rowset(&ov, s, o->rank);
    overview_free(&ov);
    return rs;
}

struct rowset *report_advice(const struct session *s, const struct report_opts *o)
{
    struct advice a;
    if (!s || advisor_run(s, &a) < 0) {
        advice_free(&a);
        return NULL;
    }
    /* --rank keeps that rank's findings and the whole-capture ones */
    size_t n = 0;
    for (size_t i = 0; i < a.n; i++)
        if (a.f[i].rank >= s->nranks || rank_selected(s->ranks[a.f[i].rank].rank, o->rank))
            a.f[n++] = a.f[i];
    a.n = n;
    struct rowset *rs = advice_rowset(&a, s);
    advice_free(&a);
    return rs;
}
