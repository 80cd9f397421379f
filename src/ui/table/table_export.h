/* CSV export of a table's visible rows, through a file-name prompt (see table_export.c). */
#ifndef APTOP_UI_TABLE_EXPORT_H
#define APTOP_UI_TABLE_EXPORT_H

#include "ui/table/view_table.h"

/* Opens the "export CSV to:" prompt for t (what is visible when the name is accepted). */
void vt_export_start(struct ui *ui, struct view *v, struct vtable *t);

#endif
