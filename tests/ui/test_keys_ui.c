/* The one key table as `aptop --keys` prints it: every scope present, no key bound twice in
 * a scope, no view key shadowing a key that works everywhere, and the man page's KEYS
 * section (once generated) listing the same bindings. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"

static char *keys_output(void)
{
    int st;
    char *out = test_aptop(&st, "--keys");
    CHECK_INT(st, 0);
    return out;
}

struct binding { char scope[64]; char key[32]; char help[160]; };

/* Lines are a scope title at column 0, then "  KEYS<spaces>HELP" with keys in a column of
 * 18 characters: keys are separated by single spaces. */
static size_t parse(const char *out, struct binding *b, size_t max)
{
    char scope[64] = "";
    size_t n = 0;
    const char *p = out;
    while (*p && n < max) {
        size_t len = strcspn(p, "\n");
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
        p += len + (p[len] == '\n');
        if (!line[0])
            continue;
        if (line[0] != ' ') {
            snprintf(scope, sizeof scope, "%s", line);
            continue;
        }
        char keys[32], *help = line + 2 + 18;
        if (strlen(line) < 2 + 18)
            continue;
        snprintf(keys, sizeof keys, "%.18s", line + 2);
        while (*help == ' ')
            help++;
        char *save = NULL;
        for (char *k = strtok_r(keys, " ", &save); k && n < max; k = strtok_r(NULL, " ", &save)) {
            snprintf(b[n].scope, sizeof b[n].scope, "%s", scope);
            snprintf(b[n].key, sizeof b[n].key, "%s", k);
            snprintf(b[n].help, sizeof b[n].help, "%s", help);
            n++;
        }
    }
    return n;
}

TEST(keys_table_has_no_conflicts)
{
    char *out = keys_output();
    static struct binding b[512];
    size_t n = parse(out, b, 512);
    CHECK(n > 40);
    CHECK(strstr(out, "Everywhere\n") != NULL);
    CHECK(strstr(out, "Timeline\n") != NULL);
    CHECK(strstr(out, "Tables") != NULL);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) {
            if (strcmp(b[i].key, b[j].key))
                continue;
            bool same_scope = !strcmp(b[i].scope, b[j].scope);
            bool shadows = !strcmp(b[i].scope, "Everywhere") || !strcmp(b[j].scope, "Everywhere");
            if (same_scope || shadows)
                test_fail(__FILE__, __LINE__, "key %s bound in %s (%s) and %s (%s)", b[i].key,
                          b[i].scope, b[i].help, b[j].scope, b[j].help);
        }
    }
    free(out);
}

TEST(keys_man_page_lists_the_key_table)
{
    FILE *f = fopen("man/aptop.1", "r");
    if (!f)
        SKIP("man/aptop.1 not found");
    static char man[1 << 17];
    size_t len = fread(man, 1, sizeof man - 1, f);
    fclose(f);
    man[len] = 0;
    char *a = strstr(man, "KEYS-BEGIN"), *z = strstr(man, "KEYS-END");
    CHECK(a && z && a < z);
    if (!a || !z || a > z)
        return;
    /* the section: the lines between the marker lines */
    while (z > a && z[-1] != '\n')
        z--;
    *z = 0;
    a = strchr(a, '\n');
    if (!a || strspn(a, "\n") == strlen(a))
        SKIP("the man page's KEYS section is not generated yet");
    /* every help text of the table appears in the section */
    char *out = keys_output();
    static struct binding b[512];
    size_t n = parse(out, b, 512);
    for (size_t i = 0; i < n; i++)
        if (!strstr(a, b[i].help))
            test_fail(__FILE__, __LINE__, "man page KEYS lacks \"%s\"", b[i].help);
    free(out);
}
