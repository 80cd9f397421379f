/* The temporary files in the writing (see temp_files.h). */
#include "util/temp_files.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* Writers at once: one cache file per loading rank and the settings. */
#define MAX_TEMP_FILES 32
#define MAX_TEMP_PATH 4400

/* A slot is claimed under the lock and its path written before `used` is set: the signal
 * handler reads only slots marked used, without the lock. */
static struct {
    _Atomic int used;
    char path[MAX_TEMP_PATH];
} slots[MAX_TEMP_FILES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool claimed[MAX_TEMP_FILES];

int temp_files_add(const char *path)
{
    size_t n = strlen(path);
    if (n >= MAX_TEMP_PATH)
        return -1;
    int slot = -1;
    pthread_mutex_lock(&lock);
    for (int k = 0; k < MAX_TEMP_FILES && slot < 0; k++)
        if (!claimed[k])
            slot = k;
    if (slot >= 0)
        claimed[slot] = true;
    pthread_mutex_unlock(&lock);
    if (slot < 0)
        return -1;
    memcpy(slots[slot].path, path, n + 1);
    atomic_store(&slots[slot].used, 1);
    return slot;
}

void temp_files_forget(int slot)
{
    if (slot < 0 || slot >= MAX_TEMP_FILES)
        return;
    atomic_store(&slots[slot].used, 0);
    pthread_mutex_lock(&lock);
    claimed[slot] = false;
    pthread_mutex_unlock(&lock);
}

void temp_files_remove_all(void)
{
    for (int k = 0; k < MAX_TEMP_FILES; k++)
        if (atomic_exchange(&slots[k].used, 0))
            unlink(slots[k].path);
}
