/* Table views that show one of a few tables (see struct vt_modes in view_table.h). */
#include "ui/table/view_table.h"

void vt_modes_init(struct view *v, const struct vt_modes_spec *spec)
{
    struct vt_modes *m = vt_modes_of(v);
    for (int i = 0; i < spec->nmodes; i++)
        vt_init(&m->tab[i]);
    m->spec = spec;
    m->stale = true;
}

void vt_modes_done(struct view *v)
{
    struct vt_modes *m = vt_modes_of(v);
    for (int i = 0; i < m->spec->nmodes; i++)
        vt_free(&m->tab[i]);
}

void vt_modes_changed(struct view *v)
{
    vt_modes_of(v)->stale = true;
}

const char *vt_modes_hint(struct view *v)
{
    return vt_modes_of(v)->spec->hint;
}

void vt_modes_refresh(struct view *v)
{
    struct vt_modes *m = vt_modes_of(v);
    if (m->stale) {
        m->stale = false;
        m->spec->build(v);
    }
}

void vt_modes_draw(struct view *v, WINDOW *w)
{
    struct vt_modes *m = vt_modes_of(v);
    vt_modes_refresh(v);
    werase(w);
    vt_draw(&m->tab[m->mode], w, 0, getmaxy(w));
}

enum request vt_modes_request(struct view *v, enum request req, int key)
{
    struct vt_modes *m = vt_modes_of(v);
    vt_modes_refresh(v);
    struct vtable *t = &m->tab[m->mode];
    req = vt_request(v, t, req, key);
    if (req == REQ_ENTER) {
        m->spec->enter(v, t, vt_selected(t));
        return REQ_NONE;
    }
    if (req != REQ_TABLE_MODE)
        return req;
    m->mode = (m->mode + 1) % m->spec->nmodes;
    m->stale = true;
    vt_modes_refresh(v);
    if (m->spec->titles)
        ui_message(v->ui, "%s: %s", v->ops->name, m->spec->titles[m->mode]);
    return REQ_NONE;
}
