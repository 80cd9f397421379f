/* The demangler reached through dlopen and its cache (see demangle.h). */
#include "util/demangle.h"

#include <dlfcn.h>
#include <glob.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/siphash.h"

/* The bound: enough for every distinct kernel of a large capture; the slots stay at most
 * half full so a probe ends soon. */
#define DEMANGLE_MAX_NAMES 4096
#define DEMANGLE_SLOTS     (DEMANGLE_MAX_NAMES * 2)
#define DEMANGLE_MAX_BYTES ((size_t)16 << 20)

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *n, int *status);
typedef char *(*iberty_demangle_fn)(const char *mangled, int options);
#define IBERTY_PARAMS_ANSI 3   /* DMGL_PARAMS | DMGL_ANSI: arguments and const, as __cxa_demangle */

struct demangle_entry {
    char *mangled;      /* owned; NULL: free slot */
    char *shown;        /* owned; NULL: shown as written (not a valid mangled name) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct demangle_entry slots[DEMANGLE_SLOTS];
static size_t used_names, used_bytes;
static bool looked_up, disabled;
static cxa_demangle_fn cxa_demangle;
static iberty_demangle_fn iberty_demangle;

/* binutils' libiberty, inside its shared libbfd (the library c++filt and gdb demangle
 * with): its soname carries the binutils version, so it is found by pattern. */
static iberty_demangle_fn find_iberty(void)
{
    static const char *const patterns[] = {
        "/usr/lib/*-linux-gnu*/libbfd-*.so", "/usr/lib64/libbfd-*.so", "/usr/lib/libbfd-*.so",
    };
    iberty_demangle_fn fn = NULL;
    for (size_t p = 0; p < sizeof patterns / sizeof *patterns && !fn; p++) {
        glob_t g;
        if (glob(patterns[p], 0, NULL, &g) != 0)
            continue;
        for (size_t i = 0; i < g.gl_pathc && !fn; i++) {
            void *h = dlopen(g.gl_pathv[i], RTLD_NOW | RTLD_LOCAL);
            if (h && !(*(void **)&fn = dlsym(h, "cplus_demangle")))
                dlclose(h);
        }
        globfree(&g);
    }
    return fn;
}

/* Called under the lock. Handles stay open for the run: the functions live in them. */
static bool demangler(void)
{
    if (!looked_up) {
        looked_up = true;
        iberty_demangle = find_iberty();
        void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
        if (h)
            *(void **)&cxa_demangle = dlsym(h, "__cxa_demangle");
    }
    return !disabled && (iberty_demangle || cxa_demangle);
}

/* The demangled text of name (malloc'd), NULL when no demangler reads it. libiberty
 * first when present: libstdc++ 12 (Debian 12) fails on the bfloat16 type (DF16b) of
 * real ROCm kernels and misreads it in short names, binutils 2.40 knows it. */
static char *demangle_new(const char *name)
{
    char *out = iberty_demangle ? iberty_demangle(name, IBERTY_PARAMS_ANSI) : NULL;
    int status = -1;
    if (!out && cxa_demangle && !(out = cxa_demangle(name, NULL, NULL, &status), status == 0)) {
        free(out);
        out = NULL;
    }
    return out;
}

void demangle_enable(bool on)
{
    pthread_mutex_lock(&lock);
    disabled = !on;
    pthread_mutex_unlock(&lock);
}

bool demangle_available(void)
{
    pthread_mutex_lock(&lock);
    bool there = demangler();
    pthread_mutex_unlock(&lock);
    return there;
}

/* The slot that holds name, or the free slot where it would go. */
static struct demangle_entry *find_slot(const char *name, size_t len)
{
    static const uint64_t key[2] = { 0x61707470u, 0x64656d616e676c65u };
    size_t i = (size_t)siphash24(key, name, len) & (DEMANGLE_SLOTS - 1);
    while (slots[i].mangled && strcmp(slots[i].mangled, name) != 0)
        i = (i + 1) & (DEMANGLE_SLOTS - 1);
    return &slots[i];
}

const char *demangle_shown(const char *name)
{
    if (!name || name[0] != '_' || name[1] != 'Z')
        return name;
    size_t len = strlen(name);
    const char *shown = name;
    pthread_mutex_lock(&lock);
    struct demangle_entry *e = find_slot(name, len);
    if (e->mangled) {
        if (e->shown)
            shown = e->shown;
    } else if (used_names < DEMANGLE_MAX_NAMES && used_bytes < DEMANGLE_MAX_BYTES) {
        bool there = demangler();
        char *out = there ? demangle_new(name) : NULL;
        if (out && !strcmp(out, name)) {
            free(out);
            out = NULL;
        }
        /* without a demangler nothing is remembered: the names stay as written anyway */
        if (there && (e->mangled = strdup(name)) != NULL) {
            e->shown = out;
            used_names++;
            used_bytes += len + 1 + (out ? strlen(out) + 1 : 0);
            if (out)
                shown = out;
        } else {
            free(out);
        }
    }
    pthread_mutex_unlock(&lock);
    return shown;
}

bool demangle_differs(const char *name)
{
    return demangle_shown(name) != name;
}

bool demangle_regmatch(const regex_t *re, const char *name)
{
    if (!name)
        return false;
    if (regexec(re, name, 0, NULL, 0) == 0)
        return true;
    const char *shown = demangle_shown(name);
    return shown != name && regexec(re, shown, 0, NULL, 0) == 0;
}
