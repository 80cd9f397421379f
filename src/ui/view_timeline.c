/* The timeline view (in progress). */
#include "ui/view.h"

void timeline_goto_slice(struct view *v, uint32_t slice)
{
    (void)v; (void)slice;
}

void timeline_goto_range(struct view *v, ns_t t0, ns_t t1)
{
    (void)v; (void)t0; (void)t1;
}
