/* Read-only file mappings that survive their file shrinking (see mapped_file.h). */
#include "io/files/mapped_file.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Loads of many ranks run at once, each with a file or two open: more than this are read
 * by pread. */
#define MAX_MAPPINGS 64

/* The registered mappings, read by the signal handler: only lock-free atomics there. */
static struct {
    _Atomic uintptr_t base;   /* 0: a free slot */
    _Atomic uint64_t size;
    _Atomic uint64_t cut_at;  /* the offset from which zeros were put in, or UINT64_MAX */
} mappings[MAX_MAPPINGS];

static pthread_mutex_t claim_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t handler_once = PTHREAD_ONCE_INIT;
static struct sigaction previous_bus;
static bool handler_installed;
static uintptr_t page_size = 4096;

/* SIGBUS at addr inside a registered mapping: the file is shorter than the mapping. Zero
 * pages go over the rest of it (mmap is a plain system call, safe here in practice), and the
 * read that faulted is done again on them. */
static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    /* only a fault (si_code > 0: raised by the kernel) has an address; a SIGBUS sent by kill
     * or raise has none */
    for (int k = 0; k < MAX_MAPPINGS && si->si_code > 0; k++) {
        uintptr_t base = atomic_load(&mappings[k].base);
        uint64_t size = atomic_load(&mappings[k].size);
        if (!base || a < base || a - base >= size)
            continue;
        uintptr_t from = a & ~(page_size - 1);
        void *z = mmap((void *)from, base + size - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (z != MAP_FAILED) {
            uint64_t at = from - base, was = atomic_load(&mappings[k].cut_at);
            while (at < was && !atomic_compare_exchange_weak(&mappings[k].cut_at, &was, at))
                ;   /* the lowest, when two readers fault at once */
            return;
        }
        break;
    }
    /* not ours (or no memory for the zeros): what was there before decides */
    if ((previous_bus.sa_flags & SA_SIGINFO) && previous_bus.sa_sigaction) {
        previous_bus.sa_sigaction(sig, si, ctx);
    } else if (previous_bus.sa_handler != SIG_DFL && previous_bus.sa_handler != SIG_IGN) {
        previous_bus.sa_handler(sig);
    } else {
        /* the default (or ignoring it) put back and the signal raised again: it is delivered
         * on return (a fault that is ignored ends the process all the same) */
        sigaction(SIGBUS, &previous_bus, NULL);
        raise(sig);
    }
}

static void install_handler(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    if (ps > 0)
        page_size = (uintptr_t)ps;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    handler_installed = sigaction(SIGBUS, &sa, &previous_bus) == 0;
}

bool mapped_file_open(struct mapped_file *mf, int fd, uint64_t size)
{
    *mf = (struct mapped_file){ NULL, 0, -1 };
    if (sizeof(void *) < 8 || !size)
        return false;   /* 32-bit address space: a large capture would not fit */
    pthread_once(&handler_once, install_handler);
    if (!handler_installed)
        return false;
    void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED)
        return false;
    pthread_mutex_lock(&claim_lock);
    int slot = -1;
    for (int k = 0; k < MAX_MAPPINGS && slot < 0; k++)
        if (!atomic_load(&mappings[k].base))
            slot = k;
    if (slot >= 0) {
        atomic_store(&mappings[slot].cut_at, UINT64_MAX);
        atomic_store(&mappings[slot].size, size);
        atomic_store(&mappings[slot].base, (uintptr_t)p);
    }
    pthread_mutex_unlock(&claim_lock);
    if (slot < 0) {
        munmap(p, (size_t)size);
        return false;
    }
    *mf = (struct mapped_file){ p, size, slot };
    return true;
}

void mapped_file_release(const struct mapped_file *mf, uint64_t from, uint64_t to)
{
    if (!mf->data || to > mf->size)
        return;
    uint64_t a = (from + page_size - 1) & ~(uint64_t)(page_size - 1), e = to & ~(uint64_t)(page_size - 1);
    if (a < e)
        madvise((char *)mf->data + a, (size_t)(e - a), MADV_DONTNEED);
}

void mapped_file_populate(const struct mapped_file *mf, uint64_t from, uint64_t to)
{
#ifdef MADV_POPULATE_READ
    if (!mf->data || to > mf->size)
        return;
    uint64_t a = from & ~(uint64_t)(page_size - 1);
    if (a < to)
        madvise((char *)mf->data + a, (size_t)(to - a), MADV_POPULATE_READ);
#else
    (void)mf;
    (void)from;
    (void)to;
#endif
}

bool mapped_file_was_cut(const struct mapped_file *mf, uint64_t *at)
{
    if (!mf->data)
        return false;
    *at = atomic_load(&mappings[mf->slot].cut_at);
    return *at != UINT64_MAX;
}

void mapped_file_close(struct mapped_file *mf)
{
    if (!mf->data)
        return;
    /* unregistered first: the address range may be mapped again by anyone once unmapped */
    pthread_mutex_lock(&claim_lock);
    atomic_store(&mappings[mf->slot].base, 0);
    pthread_mutex_unlock(&claim_lock);
    munmap((void *)mf->data, (size_t)mf->size);
    *mf = (struct mapped_file){ NULL, 0, -1 };
}
