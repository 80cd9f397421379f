/* The explorer's exit status: 0 after a load that found something, 1 when the load finished
 * with nothing loadable (the problems are still shown on screen first). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner.h"
#include "tmux.h"

TEST(exit_ui_nothing_loaded_is_1)
{
    if (!tmux_available())
        SKIP("tmux not installed");
    char dir[] = "/tmp/aptop-exit-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], args[300];
    snprintf(path, sizeof path, "%s/trace_view.json", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("[{\"ph\":\"X\",\"name\"", f);   /* cut inside the first event */
        fclose(f);
    }
    snprintf(args, sizeof args, "'%s'", dir);
    struct tmux t = { 0 };
    if (!tmux_start(&t, args, 120, 30)) {
        test_fail(__FILE__, __LINE__, "tmux did not start");
    } else {
        CHECK(tmux_wait(&t, "diagnostic", 10000) >= 0);
        tmux_keys(&t, "q", NULL);
        CHECK(tmux_wait(&t, "APTOP-EXIT=1", 3000) >= 0);
        tmux_kill(&t);
    }
    unlink(path);
    rmdir(dir);
}
