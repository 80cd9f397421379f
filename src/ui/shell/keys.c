/* The key table built from request.h, key lookup, and `aptop --keys`. */
#include "ui/shell/request.h"

#include <stdio.h>
#include <string.h>

#include "ui/shell/ui.h"
#include "ui/shell/view.h"

const struct req_info req_table[] = {
#define REQ_ROW_(id, sc, k1, k2, k3, help) { REQ_##id, #id, SCOPE_##sc, { k1, k2, k3 }, help },
    REQ_INFO(REQ_ROW_)
#undef REQ_ROW_
};
const size_t req_table_len = sizeof req_table / sizeof req_table[0];

enum request req_for_key(int key, unsigned scopes)
{
    if (key == 0)
        return REQ_NONE;
    /* the view's own scopes win over GLOBAL */
    for (int pass = 0; pass < 2; pass++) {
        unsigned want = pass == 0 ? (scopes & ~(unsigned)SCOPE_GLOBAL) : SCOPE_GLOBAL;
        for (size_t i = 0; i < req_table_len; i++) {
            const struct req_info *r = &req_table[i];
            if (!(r->scope & want))
                continue;
            for (int k = 0; k < 3; k++)
                if (r->keys[k] == key)
                    return r->req;
        }
    }
    return REQ_NONE;
}

/* The keys shown by name rather than by their character. */
static const struct { int key; const char *name; } key_names[] = {
    { ' ', "Space" }, { '\n', "Enter" }, { '\t', "Tab" }, { UI_ESC, "Esc" }, { KEY_BTAB, "Shift-Tab" },
    { KEY_UP, "Up" }, { KEY_DOWN, "Down" }, { KEY_LEFT, "Left" }, { KEY_RIGHT, "Right" },
    { KEY_PPAGE, "PgUp" }, { KEY_NPAGE, "PgDn" }, { KEY_HOME, "Home" }, { KEY_END, "End" },
    { KEY_BACKSPACE, "Backspace" }, { KEY_MOUSE, "Mouse" },
};

const char *key_label(int key, char *buf, size_t size)
{
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
        if (key_names[i].key == key) {
            snprintf(buf, size, "%s", key_names[i].name);
            return buf;
        }
    if (key == '\r' || key == KEY_ENTER) {
        buf[0] = 0;    /* aliases of Enter: not listed twice */
    } else if (key >= KEY_F(1) && key <= KEY_F(24)) {
        snprintf(buf, size, "F%d", key - KEY_F(0));
    } else if (key > 0 && key < 0x20) {
        snprintf(buf, size, "Ctrl-%c", key == 0x1d ? ']' : key + 'A' - 1);
    } else if (key >= 0x20 && key < 0x7f) {
        snprintf(buf, size, "%c", key);
    } else {
        snprintf(buf, size, "key %d", key);
    }
    return buf;
}

const char *req_keys_label(const struct req_info *r, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = 0;
    for (int k = 0; k < 3; k++) {
        char one[32];
        if (!r->keys[k] || !*key_label(r->keys[k], one, sizeof one))
            continue;
        int n = snprintf(buf + o, size - o, "%s%s", o ? " " : "", one);
        if (n < 0 || (size_t)n >= size - o)
            break;
        o += (size_t)n;
    }
    return buf;
}

const char *req_help(const struct req_info *r)
{
    const struct view_ops *ops = r->help ? NULL : view_opened_by(r->req);
    return r->help ? r->help : ops && ops->help ? ops->help : "";
}

const char *view_open_key(const struct view_ops *ops, char *buf, size_t size)
{
    buf[0] = 0;
    for (size_t i = 0; i < req_table_len; i++)
        if (req_table[i].req == ops->open)
            return key_label(req_table[i].keys[0], buf, size);
    return buf;
}

/* GLOBAL, then every other scope a row of the key table uses, in bit order. */
size_t scope_order(unsigned *order, size_t max)
{
    unsigned used = 0;
    for (size_t i = 0; i < req_table_len; i++)
        used |= req_table[i].scope;
    size_t n = 0;
    for (unsigned bit = 1; bit && n < max; bit <<= 1)
        if (used & bit)
            order[n++] = bit;
    return n;
}

/* A scope is named after the view that owns it; the table scope lists its views. */
const char *scope_name(unsigned scope)
{
    static char tables[256];
    if (scope == SCOPE_GLOBAL)
        return "Everywhere";
    if (scope == SCOPE_TABLE) {
        size_t o = (size_t)snprintf(tables, sizeof tables, "Tables (");
        for (size_t i = 0; i < ui_nviews && o < sizeof tables; i++)
            if (ui_views[i]->scopes & SCOPE_TABLE)
                o += (size_t)snprintf(tables + o, sizeof tables - o, "%s%s", o > 8 ? ", " : "", ui_views[i]->name);
        if (o < sizeof tables)
            snprintf(tables + o, sizeof tables - o, ")");
        return tables;
    }
    for (size_t i = 0; i < ui_nviews; i++)
        if (ui_views[i]->own_scope == scope)
            return ui_views[i]->name;
    return "?";
}

void keys_print(FILE *out)
{
    unsigned order[32];
    size_t n = scope_order(order, 32);
    for (size_t s = 0; s < n; s++) {
        fprintf(out, "%s%s\n", s ? "\n" : "", scope_name(order[s]));
        for (size_t i = 0; i < req_table_len; i++) {
            const struct req_info *r = &req_table[i];
            if (r->scope != order[s])
                continue;
            char keys[96];
            fprintf(out, "  %-18s %s\n", req_keys_label(r, keys, sizeof keys), req_help(r));
        }
    }
}
