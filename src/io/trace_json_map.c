/* Mapped trace files and the SIGBUS guard for files that shrink while mapped: see
 * trace_json_map.h. */
#include "io/trace_json_map.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* mappings alive at once (one per trace being read; several ranks load in parallel) */
#define MAP_SLOTS 64

struct map_slot {
    atomic_bool used;
    _Atomic uintptr_t start;   /* 0 while the slot is being filled or emptied */
    _Atomic size_t len;
    atomic_bool shrank;
};

static struct map_slot slots[MAP_SLOTS];
static struct sigaction prev_bus;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static bool guard_on;
static uintptr_t page_size;

/* Only async-signal-safe calls here: mmap and sigaction are system calls. */
static void on_bus(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    for (int i = 0; i < MAP_SLOTS; i++) {
        uintptr_t s = atomic_load(&slots[i].start);
        size_t n = atomic_load(&slots[i].len);
        if (!s || a < s || a - s >= n)
            continue;
        /* the file lost this page and those after it: zeros from here to the mapping's end */
        uintptr_t from = a & ~(page_size - 1);
        if (mmap((void *)from, s + n - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
            break;
        atomic_store(&slots[i].shrank, true);
        return;
    }
    /* not ours: as before the guard was installed */
    if ((prev_bus.sa_flags & SA_SIGINFO) && prev_bus.sa_sigaction) {
        prev_bus.sa_sigaction(sig, si, uc);
    } else if (prev_bus.sa_handler != SIG_DFL && prev_bus.sa_handler != SIG_IGN) {
        prev_bus.sa_handler(sig);
    } else {
        /* returning repeats the access, which now ends the process as it would have */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(SIGBUS, &dfl, NULL);
    }
}

static void install_guard(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    page_size = ps > 0 ? (uintptr_t)ps : 4096;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_bus;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    guard_on = sigaction(SIGBUS, &sa, &prev_bus) == 0;
}

bool trace_map_open(struct trace_map *m, int fd, size_t len)
{
    if (!len || pthread_once(&guard_once, install_guard) != 0 || !guard_on)
        return false;
    int slot = -1;
    for (int i = 0; i < MAP_SLOTS && slot < 0; i++) {
        bool f = false;
        if (atomic_compare_exchange_strong(&slots[i].used, &f, true))
            slot = i;
    }
    if (slot < 0)
        return false;
    void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        atomic_store(&slots[slot].used, false);
        return false;
    }
#ifdef MADV_WILLNEED
    madvise(p, len, MADV_WILLNEED);   /* a file not in the page cache is read ahead */
#endif
    atomic_store(&slots[slot].shrank, false);
    atomic_store(&slots[slot].len, len);
    atomic_store(&slots[slot].start, (uintptr_t)p);
    m->p = p;
    m->len = len;
    m->slot = slot;
    return true;
}

bool trace_map_shrank(const struct trace_map *m)
{
    return atomic_load(&slots[m->slot].shrank);
}

void trace_map_close(struct trace_map *m)
{
    if (!m->p)
        return;
    atomic_store(&slots[m->slot].start, 0);
    munmap((void *)m->p, m->len);
    atomic_store(&slots[m->slot].len, 0);
    atomic_store(&slots[m->slot].used, false);
    m->p = NULL;
    m->len = 0;
}
