/* Range totals: slices overlapping the range count with their time inside it, grouped by the
 * kind of their lane; host and device time never share a total. */
#include <string.h>

#include "model/index/range_totals.h"
#include "../runner.h"
#include "helpers.h"

#define US 1000

static const struct range_row *row_named(const struct model *m, const struct range_totals *rt,
                                         enum range_group g, const char *name)
{
    for (size_t i = 0; i < rt->n; i++)
        if (rt->rows[i].group == g && !strcmp(model_str(m, rt->rows[i].name), name))
            return &rt->rows[i];
    return NULL;
}

TEST(range_totals_clipped_and_grouped)
{
    struct model *m = model_new(TIME_LOCAL_US);
    uint32_t py = test_lane(m, "1", "Python", "1");
    uint32_t dev = test_lane(m, "2", "Ascend Hardware", "3");
    uint32_t ov = test_lane(m, "4", "Overlap Analysis", "5");
    test_slice(m, py, 0, 100 * US, "aten::mm");          /* host, nested child below */
    test_slice(m, py, 10 * US, 20 * US, "aclnnMm");
    test_slice(m, dev, 40 * US, 30 * US, "MatMulV2");    /* straddles the range start */
    test_slice(m, dev, 80 * US, 10 * US, "MatMulV2");    /* inside */
    test_slice(m, dev, 95 * US, 30 * US, "Add");         /* straddles the range end */
    test_slice(m, dev, 130 * US, 5 * US, "Add");         /* after the range */
    test_slice(m, ov, 40 * US, 80 * US, "Computing");
    CHECK_INT(model_finalize(m), 0);
    uint32_t lanes[3] = { py, dev, ov };
    struct range_totals rt;
    CHECK_INT(range_totals_compute(m, lanes, 3, 50 * US, 110 * US, &rt), 0);
    const struct range_row *mm = row_named(m, &rt, RG_DEVICE, "MatMulV2");
    const struct range_row *add = row_named(m, &rt, RG_DEVICE, "Add");
    const struct range_row *hm = row_named(m, &rt, RG_HOST, "aten::mm");
    const struct range_row *comp = row_named(m, &rt, RG_OVERLAP, "Computing");
    CHECK(mm && add && hm && comp);
    if (mm && add && hm && comp) {
        CHECK_INT(mm->count, 2);
        CHECK_INT(mm->in_range, 20 * US + 10 * US);     /* 50..70 of the first, all of the second */
        CHECK_INT(mm->full, 40 * US);
        CHECK_INT(mm->min, 10 * US);
        CHECK_INT(mm->max, 30 * US);
        CHECK_INT(add->count, 1);
        CHECK_INT(add->in_range, 15 * US);              /* 95..110 */
        CHECK_INT(hm->in_range, 50 * US);               /* 50..100 */
        CHECK_INT(comp->in_range, 60 * US);
    }
    CHECK(row_named(m, &rt, RG_HOST, "aclnnMm") == NULL);   /* ended before the range */
    CHECK_INT(rt.group_time[RG_HOST], 50 * US);
    CHECK_INT(rt.group_time[RG_DEVICE], 45 * US);
    CHECK_INT(rt.group_time[RG_OVERLAP], 60 * US);
    CHECK_INT(rt.group_slices[RG_DEVICE], 3);
    /* rows: host first, then device (largest first), then overlap */
    for (size_t i = 1; i < rt.n; i++)
        CHECK(rt.rows[i - 1].group < rt.rows[i].group
              || (rt.rows[i - 1].group == rt.rows[i].group && rt.rows[i - 1].in_range >= rt.rows[i].in_range));
    range_totals_free(&rt);
    CHECK_INT(range_totals_compute(m, lanes, 3, 200 * US, 100 * US, &rt), 0);   /* empty range */
    CHECK_INT(rt.n, 0);
    range_totals_free(&rt);
    model_free(m);
}
