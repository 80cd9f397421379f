/* C++ symbol names (the Itanium ABI's "_Z..." names that CUDA, HIP and Ascend kernels carry)
 * in the form a person reads: "_ZN7ck_tile6kentry..." shows as "void ck_tile::kentry<...>".
 * Display only: reports, JSON, CSV and SQL keep names as written.
 *
 * The demangler is binutils' libiberty (in its shared libbfd, as c++filt uses it) or else
 * libstdc++'s __cxa_demangle, both looked up with dlopen at first use, so the program
 * neither links nor builds against them; where neither is there every name stays as
 * written. Results are kept in a bounded cache (mangled text -> shown text) whose
 * entries are never evicted, so a returned pointer stays valid for the whole run; a mutex
 * guards it, so any thread may ask. Past the bound (or when memory runs short) further
 * names are shown as written: display text is never worth ending the program for. */
#ifndef APTOP_UTIL_DEMANGLE_H
#define APTOP_UTIL_DEMANGLE_H
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/* The text to show for name (NUL-terminated): its demangled form when it is a valid
 * mangled C++ name and the demangler is there, else name itself. Never NULL for a
 * non-NULL name; NULL gives NULL. */
const char *demangle_shown(const char *name);

/* Whether name is shown other than as written (demangle_shown(name) != name). */
bool demangle_differs(const char *name);

/* Whether re matches name as written or as shown: searches find a kernel by either form. */
bool demangle_regmatch(const regex_t *re, const char *name);

/* Turns the demangler off (as on a system without libstdc++) or back on, for the tests
 * of the fallback. Takes effect for names not yet in the cache. */
void demangle_enable(bool on);

/* Whether a demangler was found (looks them up). */
bool demangle_available(void);

#endif
