/* C++ kernel names of a real ROCm Kineto capture (mangled "_ZN7ck_tile6kentry...") are shown
 * demangled at 80x24 in the Kernels view, and found by a fragment of either form (/ search,
 * & filter); the Timeline's detail pane shows the whole demangled name and the mangled one.
 * Headless (--script). Skipped without binutils' libbfd (see libbfd_there). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runner.h"

#define GRAPH "TraceLens/tests/traces/inference/vllm_prefilldecode_piecewise/graph_execution.json.gz"

/* The screens of a script run at a size on the capture; NULL (and a failure) when it fails. */
static char *run_script(const char *script, const char *size, const char *capture)
{
    char path[64];
    const char *f = test_temp_file("demangle", script, path, sizeof path);
    if (!f)
        return NULL;
    int st;
    char *out = test_aptop(&st, "--script '%s' --size %s '%s' 2>&1", f, size, capture);
    unlink(f);
    if (st != 0)
        test_fail(__FILE__, __LINE__, "script failed (%d): %s", st, out ? out : "");
    return out;
}

/* Whether binutils' shared libbfd is installed: the libstdc++ of Debian 12 cannot read these
 * names (their bfloat16 type), so without it they rightly stay as written. */
static bool libbfd_there(void)
{
    int st;
    char *out = test_run("ls /usr/lib/*-linux-gnu*/libbfd-*.so /usr/lib64/libbfd-*.so /usr/lib/libbfd-*.so 2>/dev/null",
                         &st);
    bool there = out && *out;
    free(out);
    return there;
}

TEST(demangle_ui_kernels_shown_and_searched_at_80x24)
{
    REAL_OR_SKIP(p, GRAPH);
    if (!libbfd_there())
        SKIP("binutils' libbfd not installed: these names stay as written");
    char *out = run_script("loaded\nkeys 3\nwait [3]Kernels\ndump\n"
                           /* a demangled fragment: / moves to the rows, & keeps them */
                           "keys /\ntext ck_tile::kentry<1\nkeys Enter\nwait match 1/2\ndump\n"
                           "keys &\ntext Rmsnorm2dFwdPipelineOnePass<ck_tile\nkeys Enter\nwait rows match\ndump\n",
                           "80x24", p);
    char *s1 = out ? test_screen(out, 1) : NULL;
    CHECK(s1 && !strstr(s1, "_ZN7ck_"));
    /* both kernels of the family, demangled, each row once */
    CHECK(s1 && strstr(s1, "\xe2\x96\xb8 _matmul_ogs"));
    const char *a = s1 ? strstr(s1, "void ck") : NULL;
    CHECK(a && strstr(a + 1, "void ck"));
    CHECK(s1 && strstr(s1, "(ck_tile::Rmsno"));
    char *s2 = out ? test_screen(out, 2) : NULL;
    CHECK(s2 && strstr(s2, "/ck_tile::kentry<1/ match 1/2"));
    CHECK(s2 && strstr(s2, "\xe2\x96\xb8 void ck"));   /* the cursor on the first of them */
    char *s3 = out ? test_screen(out, 3) : NULL;
    CHECK(s3 && strstr(s3, "2 of 24 rows match /Rmsnorm2dFwdPipelineOnePass<ck_tile/"));
    free(s1);
    free(s2);
    free(s3);
    free(out);
    /* the mangled text finds the same rows */
    out = run_script("loaded\nkeys 3\nwait [3]Kernels\nkeys &\ntext NS_27Rmsnorm2dFwdPipelineProblemIDF16b\n"
                     "keys Enter\nwait rows match\ndump\n", "80x24", p);
    s1 = out ? test_screen(out, 1) : NULL;
    CHECK(s1 && strstr(s1, "2 of 24 rows match"));
    CHECK(s1 && strstr(s1, "void ck"));
    free(s1);
    free(out);
}

TEST(demangle_ui_detail_pane_shows_both_forms)
{
    REAL_OR_SKIP(p, GRAPH);
    if (!libbfd_there())
        SKIP("binutils' libbfd not installed: these names stay as written");
    char *out = run_script("loaded\nkeys 2\nwait [2]Timeline\nkeys /\ntext ck_tile::kentry<1\nkeys Enter\n"
                           "wait 1/49\nkeys Enter\nwait Detail\ndump\n", "200x50", p);
    char *s = out ? test_screen(out, 1) : NULL;
    /* the name whole over several lines: its start, its last part, then the mangled text */
    CHECK(s && strstr(s, " void ck_tile::kentry<1, ck_tile::Rmsnorm2dFwd<"));
    CHECK(s && strstr(s, "::Kargs)\n"));
    CHECK(s && strstr(s, " Mangled   _ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwd"));
    CHECK(s && strstr(s, "KargsEEEEvDpT1_"));
    CHECK(s && strstr(s, " Lane      GPU 2"));
    free(s);
    free(out);
}
