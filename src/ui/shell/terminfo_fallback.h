/* Terminfo entries carried beside a copied binary (see terminfo_fallback.c). */
#ifndef APTOP_UI_TERMINFO_FALLBACK_H
#define APTOP_UI_TERMINFO_FALLBACK_H

/* Adds <binary's folder>/terminfo to TERMINFO_DIRS, after the usual places, when it exists. */
void terminfo_add_fallback(void);

#endif
