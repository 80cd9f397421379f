/* The source tree keeps its rules (README "Architecture: where things live"): folders by
 * concern of at most 25 .c files; model includes no io, ui or report header; ui reaches io
 * only through the loader's header; report includes no ui header. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../runner.h"

typedef void (*file_fn)(const char *path, void *ctx);

/* Every .c and .h file under dir, depth first. */
static void walk(const char *dir, file_fn fn, void *ctx)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk(p, fn, ctx);
        } else {
            size_t n = strlen(p);
            if (n > 2 && p[n - 2] == '.' && (p[n - 1] == 'c' || p[n - 1] == 'h'))
                fn(p, ctx);
        }
    }
    closedir(d);
}

struct include_rule {
    const char *forbidden[3];   /* include prefixes not allowed */
    const char *allowed;        /* one exception, or NULL */
    int bad;
};

static void check_includes(const char *path, void *ctx)
{
    struct include_rule *r = ctx;
    char *text = test_read_file(path, NULL);
    if (!text)
        return;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        const char *inc = strstr(line, "#include \"");
        if (inc != line)
            continue;
        inc += strlen("#include \"");
        for (int i = 0; i < 3 && r->forbidden[i]; i++)
            if (!strncmp(inc, r->forbidden[i], strlen(r->forbidden[i])) &&
                !(r->allowed && !strncmp(inc, r->allowed, strlen(r->allowed)))) {
                test_fail(__FILE__, __LINE__, "%s: %s", path, line);
                r->bad++;
            }
    }
    free(text);
}

TEST(layout_layers_include_only_what_they_may)
{
    if (!test_is_dir("src/model"))
        SKIP("not run from the source tree");
    struct include_rule model = { { "io/", "ui/", "report/" }, NULL, 0 };
    walk("src/model", check_includes, &model);
    struct include_rule ui = { { "io/", NULL, NULL }, "io/load/loader.h", 0 };
    walk("src/ui", check_includes, &ui);
    struct include_rule report = { { "ui/", NULL, NULL }, NULL, 0 };
    walk("src/report", check_includes, &report);
    struct include_rule io = { { "ui/", "report/", NULL }, NULL, 0 };
    walk("src/io", check_includes, &io);
    CHECK_INT(model.bad + ui.bad + report.bad + io.bad, 0);
}

static void count_c(const char *path, void *ctx)
{
    size_t n = strlen(path);
    if (path[n - 1] == 'c')
        (*(int *)ctx)++;
}

TEST(layout_folders_hold_at_most_25_c_files)
{
    if (!test_is_dir("src/model"))
        SKIP("not run from the source tree");
    static const char *const top[] = { "src/io", "src/model", "src/ui", "src/report", "src/util" };
    int folders = 0;
    for (size_t t = 0; t < sizeof top / sizeof top[0]; t++) {
        DIR *d = opendir(top[t]);
        CHECK(d != NULL);
        if (!d)
            continue;
        int direct = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            char p[1024];
            struct stat st;
            snprintf(p, sizeof p, "%s/%s", top[t], e->d_name);
            if (e->d_name[0] == '.' || stat(p, &st) != 0)
                continue;
            if (S_ISDIR(st.st_mode)) {
                int n = 0;
                walk(p, count_c, &n);
                if (n > 25)
                    test_fail(__FILE__, __LINE__, "%s holds %d .c files", p, n);
                folders++;
            } else if (strstr(e->d_name, ".c")) {
                direct++;
            }
        }
        closedir(d);
        if (direct > 25)
            test_fail(__FILE__, __LINE__, "%s holds %d .c files", top[t], direct);
    }
    CHECK(folders >= 10);   /* io, model and ui are split by concern */
}
