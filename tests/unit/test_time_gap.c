/* model_time_gap: lanes far away in time from the others are found, close ones are not. */
#include "../runner.h"
#include "model/index/time_gap.h"

static struct model *two_groups(ns_t far)
{
    struct model *m = model_new(TIME_UNIX_NS);
    uint32_t a = model_lane(m, "1", 1, "1", 1), b = model_lane(m, "1", 1, "2", 1);
    uint32_t c = model_lane(m, "2", 1, "9", 1);
    model_add_slice(m, a, 1000, 500, "k", 1, "", 0, 0, UINT64_MAX, 0);
    model_add_slice(m, a, 1200, 100, "nested", 6, "", 0, 0, UINT64_MAX, 0);
    model_add_slice(m, b, 1400, 900, "k", 1, "", 0, 0, UINT64_MAX, 0);
    model_add_slice(m, c, 2300 + far, 10, "mark", 4, "", 0, 0, UINT64_MAX, 0);
    model_finalize(m);
    return m;
}

TEST(time_gap_far_lane_found)
{
    ns_t hour = (ns_t)3600 * 1000000000;
    struct model *m = two_groups(5 * hour);
    struct time_gap g = { 0 };
    CHECK(model_time_gap(m, hour, &g));
    CHECK_INT(g.before, 2300);            /* the end of lane b */
    CHECK_INT(g.after, 2300 + 5 * hour);
    CHECK_INT(g.gap, 5 * hour);
    CHECK_INT(g.lanes_before, 2);
    CHECK_INT(g.lanes_after, 1);
    CHECK_INT(g.example, model_find_lane(m, "2", "Thread 9"));
    model_free(m);
}

TEST(time_gap_close_lanes_not_reported)
{
    ns_t hour = (ns_t)3600 * 1000000000;
    struct model *m = two_groups(hour / 2);
    struct time_gap g;
    CHECK(!model_time_gap(m, hour, &g));
    model_free(m);
}
