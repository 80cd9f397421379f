/* A settings file that is no file: a FIFO (opening it for reading would wait for a writer
 * forever) or a link to /dev/zero (endless bytes). The explorer reads neither and runs on;
 * --script drives it without a terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../runner.h"
#include "faults.h"

#define FIXTURE "fixtures/vllm_decode_2rank"

static void settings_special(bool fifo)
{
    if (access(FIXTURE, R_OK))
        SKIP("fixtures missing: make fixtures");
    char dir[256], cfg[300], sub[320], settings[340], script[300], env[340], out[300];
    if (!fault_dir("settings", dir, sizeof dir))
        SKIP("no temporary folder");
    snprintf(cfg, sizeof cfg, "%s/cfg", dir);
    snprintf(sub, sizeof sub, "%s/aptop", cfg);
    snprintf(settings, sizeof settings, "%s/settings", sub);
    snprintf(script, sizeof script, "%s/script", dir);
    snprintf(env, sizeof env, "XDG_CONFIG_HOME=%s", cfg);
    snprintf(out, sizeof out, "%s/out", dir);
    mkdir(cfg, 0700);
    mkdir(sub, 0700);
    CHECK(fifo ? mkfifo(settings, 0600) == 0 : symlink("/dev/zero", settings) == 0);
    FILE *f = fopen(script, "w");
    if (f) {
        /* the Kernels table reads its sort and columns from the settings, > writes them */
        fputs("loaded\nkeys 3\nwait Kernels\nkeys >\ndump\n", f);
        fclose(f);
    }
    struct fault_cmd c = { .args = { "--script", script, FIXTURE }, .env = { env }, .out = out };
    int status = fault_wait(fault_start(&c), 60000, fifo ? "the explorer with a FIFO for settings"
                                                         : "the explorer with /dev/zero for settings");
    fault_check_exit(status, 0);
    char *o = fault_read(out);
    CHECK(strstr(o, "--- screen 1 ---") != NULL);   /* it ran to its end */
    free(o);
    fault_rm(dir);
}

TEST(faults_settings_file_that_is_a_fifo_is_not_waited_for)
{
    settings_special(true);
}

TEST(faults_settings_file_that_is_dev_zero_is_not_read_forever)
{
    settings_special(false);
}
