/* Writes a large Class A memory_record.csv for the memory benchmark (a C program: a Python
 * generator takes minutes for 1.5 GB on a shared machine).
 *
 * usage: gen_memory OUT.csv SIZE_MB
 *
 * Rows cycle through APP, PTA, PTA+GE and GE with rising timestamps (µs with 3 decimals and
 * the TAB suffix torch_npu writes), sizes in MB that are whole KB written exactly ("1452.0",
 * "954.3701171875"), CRLF line ends. Prints the row count and the expected peaks (bytes) per
 * component on stdout, for the benchmark to compare with what it read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MB text of a whole number of KB, exact, shortest (at least one decimal). */
static int mb_text(char *out, int64_t kb)
{
    int64_t whole = kb / 1024, frac = (kb % 1024) * 9765625;   /* 1/1024 = 0.0009765625 */
    char f[16];
    snprintf(f, sizeof f, "%010lld", (long long)frac);
    int n = 10;
    while (n > 1 && f[n - 1] == '0')
        n--;
    return sprintf(out, "%lld.%.*s", (long long)whole, n, f);
}

static uint64_t rng = 19;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gen_memory OUT.csv SIZE_MB\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    uint64_t target = (uint64_t)(atof(argv[2]) * 1048576.0), written = 0, rows = 0;
    const char *comps[4] = { "PTA", "PTA+GE", "GE", "APP" };
    int64_t peak[4][2] = { { 0 } };
    int64_t t = 1736405443756384100LL, alloc_kb = 900 * 1024;
    written += (uint64_t)fprintf(f, "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),"
                                    "Stream Ptr,Device Type\r\n");
    char line[256], a[48], r[48];
    while (written < target) {
        t += 1000 + (int64_t)(next() % 49000);
        alloc_kb += ((int64_t)(next() % 129) - 64) * 1024 + (int64_t)(next() % 1024);
        if (alloc_kb < 0)
            alloc_kb = 0;
        int64_t resv_kb = (alloc_kb + 512 * 1024) & ~(int64_t)(2 * 1024 - 1);
        int c = (int)(rows % 4);
        int64_t ak = c == 2 ? alloc_kb / 16 : alloc_kb, rk = c == 2 ? resv_kb / 16 : resv_kb;
        mb_text(r, rk);
        int n;
        if (c == 3) {
            n = sprintf(line, "APP,%lld.%03lld\t,,%s,,,NPU:0\r\n", (long long)(t / 1000), (long long)(t % 1000), r);
        } else {
            mb_text(a, ak);
            n = sprintf(line, "%s,%lld.%03lld\t,%s,%s,%s,1431569360,NPU:0\r\n", comps[c], (long long)(t / 1000),
                        (long long)(t % 1000), a, r, a);
            if (ak * 1024 > peak[c][0])
                peak[c][0] = ak * 1024;
        }
        if (rk * 1024 > peak[c][1])
            peak[c][1] = rk * 1024;
        fwrite(line, 1, (size_t)n, f);
        written += (uint64_t)n;
        rows++;
    }
    if (fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    printf("rows=%llu bytes=%llu\n", (unsigned long long)rows, (unsigned long long)written);
    for (int c = 0; c < 4; c++)
        printf("peak %s allocated=%lld reserved=%lld\n", comps[c], (long long)peak[c][0], (long long)peak[c][1]);
    return 0;
}
