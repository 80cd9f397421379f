/* Where an export goes, asked the same way for every export of the explorer (a table's CSV,
 * a timeline range's Chrome trace): a prompt offers a file in the export folder (the working
 * folder, or $TMPDIR, else /tmp, when that folder lies inside the capture); a name inside
 * the capture is refused, a folder too, and an existing file is overwritten only after a
 * "y". The file is then opened and handed to the export's write function, which closes it. */
#ifndef APTOP_UI_EXPORT_PROMPT_H
#define APTOP_UI_EXPORT_PROMPT_H
#include <stdio.h>

#include "ui/shell/view.h"

/* Writes the export to f (opened for writing at path) and closes it; ctx as given. */
typedef void (*export_write_fn)(struct ui *ui, struct view *v, const char *path, FILE *f, void *ctx);

/* The folder exports are offered in, into dir. */
void ui_export_folder(struct ui *ui, char *dir, size_t size);
/* Opens the prompt `label` ("export CSV to: ") with name offered; write runs once a file is
 * chosen and opened. One export prompt at a time (prompts are modal); ctx must live until
 * write ran or the prompt was cancelled. */
void ui_export_prompt(struct ui *ui, struct view *v, const char *label, const char *name, export_write_fn write,
                      void *ctx);

#endif
