/* nh_spare_take and nh_spare_give (src/util/spare.h): a block given back
 * is the next one taken for its use where it is as large, each use keeps
 * its own whatever the sizes, the larger of two given back is kept, every
 * block is aligned as malloc's and as large as asked; threads taking and
 * giving at once never share a block. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* (spare.c itself: the test reads a block's header) */
#include "util/spare.c"

static int failed, tried;

static void expect(int ok, const char *what)
{
    tried++;
    if (!ok) {
        failed++;
        fprintf(stderr, "test_spare: %s\n", what);
    }
}

/* A block of bytes; *got: its size, as its header says. */
static char *take_for(nh_spare_use use, size_t bytes, size_t *got)
{
    char *m = nh_spare_take(use, bytes);
    *got = m ? ((head *)m - 1)->b.bytes : 0;
    expect(m && *got >= bytes, "a block as large as asked");
    expect(!m || (uintptr_t)m % _Alignof(max_align_t) == 0, "aligned as malloc's");
    if (m)
        memset(m, 0x5A, bytes);
    return m;
}

static char *take(size_t bytes, size_t *got)
{
    return take_for(NH_SPARE_STATE, bytes, got);
}

enum { THREADS = 4, ROUNDS = 20000 };

static void *hammer(void *arg)
{
    unsigned char me = (unsigned char)(uintptr_t)arg;
    size_t sizes[] = {24, 3000, 70000, 65536, 65537};
    for (int i = 0; i < ROUNDS; i++) {
        size_t n = sizes[(i + me) % 5];
        unsigned char *m = (unsigned char *)nh_spare_take((nh_spare_use)(i % NH_SPARE_USES), n);
        if (!m)
            return (void *)1;
        memset(m, me, n);
        for (size_t k = 0; k < n; k += 97)
            if (m[k] != me) /* another thread wrote into it */
                return (void *)1;
        nh_spare_give((char *)m);
    }
    return NULL;
}

int main(void)
{
    size_t got, got2, got3;
    char *a = take(4000, &got), *b;
    nh_spare_give(a);
    b = take(3000, &got2);
    expect(b == a && got2 == got, "the block given back is taken again");
    nh_spare_give(b);
    b = take(5000, &got2);
    expect(got2 == 5000, "a kept block too small is not handed out");
    nh_spare_give(b);

    /* each use keeps its own: a small state block never takes the large
     * block kept for data */
    char *big = take_for(NH_SPARE_DATA, 1 << 20, &got3);
    nh_spare_give(big);
    a = take(100, &got);
    expect(a == b, "the state's block, not the data's");
    char *large = take(100000, &got2); /* (a state above 64 KiB: many places) */
    expect(large != big, "a large state block is not the data's");
    nh_spare_give(large);
    char *big2 = take_for(NH_SPARE_DATA, 1 << 19, &got3);
    expect(big2 == big && got3 == (size_t)1 << 20, "the data's block kept for data");
    nh_spare_give(big2);

    /* of two given back, the larger is kept */
    char *c = take(8000, &got2); /* (at least 8000: the kept one) */
    nh_spare_give(a);
    nh_spare_give(c);
    a = take(10, &got);
    expect(a == c && got == got2, "the larger of two kept");
    nh_spare_give(a);
    nh_spare_give(NULL);

    nh_spare_fini();
    a = take(10, &got);
    expect(got == 10, "nothing kept after nh_spare_fini");
    nh_spare_give(a);

    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        expect(!pthread_create(&t[i], NULL, hammer, (void *)(uintptr_t)(i + 1)), "a thread");
    for (int i = 0; i < THREADS; i++) {
        void *r = (void *)1;
        pthread_join(t[i], &r);
        expect(!r, "threads never share a block");
    }
    nh_spare_fini();
    printf("test_spare: %d of %d checks passed\n", tried - failed, tried);
    return failed != 0;
}
