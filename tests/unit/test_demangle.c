/* Display names of C++ symbols (util/demangle): known mangled names give their demangled
 * form, other names and invalid "_Z" text stay as written (the same pointer), the real
 * kernels of a Kineto capture agree with binutils' c++filt (a demangler written apart from
 * libstdc++'s), searches match either form, and without the library names stay as written. */
#include "util/demangle.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runner.h"

#define CK_KERNEL "_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassINS_27Rmsnorm2dFwdPipelineProblemIDF16bDF16bfDF16bDF16bDF16bffNS_19Generic2dBlockShapeINS_8sequenceIJLi1ELi3072EEEENS5_IJLi1ELi128EEEENS5_IJLi1ELi8EEEEEENS_18Rmsnorm2dFwdTraitsILb1ELb0ELb0ELb0ELNS_21Rmsnorm2dFusedAddEnumE0ELNS_23Rmsnorm2dFusedQuantEnumE0ELNS_22Rmsnorm2dSensitiveEnumE0EEEEENS_33Rmsnorm2dFwdPipelineDefaultPolicyEEENS_17Default2DEpilogueINS_24Default2DEpilogueProblemIfDF16bLb0ELb1ELb0EEEvEEEEJNSM_5KargsEEEEvDpT1_"

TEST(demangle_known_names)
{
    if (!demangle_available())
        SKIP("libstdc++.so.6 not found: names stay as written");
    CHECK_STR(demangle_shown("_ZN3foo3barEv"), "foo::bar()");
    CHECK_STR(demangle_shown("_Z3addIiET_S0_S0_"), "int add<int>(int, int)");
    CHECK_STR(demangle_shown("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_"),
              "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
              "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)");
    /* asked again: the cached text, the same pointer */
    const char *a = demangle_shown("_ZN3foo3barEv");
    CHECK(a == demangle_shown("_ZN3foo3barEv"));
    CHECK(demangle_differs(CK_KERNEL));
    CHECK(!strncmp(demangle_shown(CK_KERNEL), "void ck_tile::kentry<1, ck_tile::Rmsnorm2dFwd<", 46));
}

TEST(demangle_leaves_other_names)
{
    static const char *const names[] = {
        "aclnnMatmul_MatMulCommon_MatMulV2", "Memcpy HtoD (Pageable -> Device)", "_Z", "_Zjunk!!",
        "_ZN3foo", "_ZZZ", "", "ampere_sgemm_128x64_nn", "_z3addii",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        CHECK(demangle_shown(names[i]) == names[i]);
        CHECK(!demangle_differs(names[i]));
    }
    CHECK(demangle_shown(NULL) == NULL);
}

TEST(demangle_search_matches_both_forms)
{
    if (!demangle_available())
        SKIP("libstdc++.so.6 not found: names stay as written");
    regex_t re;
    CHECK(regcomp(&re, "ck_tile::kentry", REG_EXTENDED | REG_NOSUB) == 0);
    CHECK(demangle_regmatch(&re, CK_KERNEL));
    regfree(&re);
    CHECK(regcomp(&re, "Rmsnorm2dFwdINS_27", REG_EXTENDED | REG_NOSUB) == 0);
    CHECK(demangle_regmatch(&re, CK_KERNEL));
    CHECK(!demangle_regmatch(&re, "aclnnMatmul"));
    CHECK(!demangle_regmatch(&re, NULL));
    regfree(&re);
}

TEST(demangle_without_library_keeps_names)
{
    demangle_enable(false);
    const char *n = "_ZN7without7libraryEv";
    CHECK(demangle_shown(n) == n);
    demangle_enable(true);
    if (demangle_available())
        CHECK_STR(demangle_shown("_ZN4with7libraryEv"), "with::library()");
}

/* Every distinct "_Z" kernel name of a real ROCm capture, demangled here and by c++filt. */
TEST(demangle_real_kernels_agree_with_cxxfilt)
{
    REAL_OR_SKIP(path, "TraceLens/tests/traces/inference/vllm_prefilldecode_piecewise/graph_execution.json.gz");
    if (!demangle_available())
        SKIP("libstdc++.so.6 not found: names stay as written");
    int st;
    char *probe = test_run("c++filt _ZN3foo3barEv 2>/dev/null", &st);
    bool have = probe && st == 0 && !strcmp(probe, "foo::bar()\n");
    free(probe);
    if (!have)
        SKIP("c++filt (binutils) not found");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "zcat '%s' | grep -o '\"name\": *\"_Z[A-Za-z0-9_]*' | sed 's/.*\"//' | sort -u", path);
    char *names = test_run(cmd, &st);
    CHECK(names && *names);
    int n = 0;
    for (char *line = names ? strtok(names, "\n") : NULL; line; line = strtok(NULL, "\n")) {
        snprintf(cmd, sizeof cmd, "c++filt '%s'", line);
        char *want = test_run(cmd, &st);
        if (want && *want)
            want[strlen(want) - 1] = '\0';
        CHECK_STR(demangle_shown(line), want);
        CHECK(demangle_differs(line));
        free(want);
        n++;
    }
    CHECK(n >= 2);
    free(names);
}
