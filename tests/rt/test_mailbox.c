/* tests/rt/test_mailbox.c - the triple-buffer mailbox: newest-value semantics and counters
 * (single thread), then a writer and a reader thread at different rates over >= 2^20
 * snapshots: never a torn snapshot, sequence numbers never go back, and published = taken +
 * overwritten exactly. Runs under ThreadSanitizer in CI (deploy/test.sh). */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "rt/mailbox.h"

#define STRESS_N (1u << 20)
#define NW       32 /* words per snapshot: 256 bytes, several cache lines */

struct snap {
    uint64_t seq;
    uint64_t w[NW]; /* all = seq * 7 + 1 */
};

static void unit(void)
{
    struct vd_mailbox mb;
    const struct snap *r;
    struct snap *w;
    bool fresh;

    CHECK(vd_mailbox_init(&mb, 0) == -22, "size 0 refused");
    CHECK(vd_mailbox_init(&mb, sizeof(struct snap)) == 0, "init");
    CHECK(vd_mailbox_read(&mb, &fresh) == NULL && !fresh, "nothing published yet");
    for (uint64_t i = 1; i <= 3; i++) {
        w = vd_mailbox_back(&mb);
        w->seq = i;
        vd_mailbox_publish(&mb);
    }
    r = vd_mailbox_read(&mb, &fresh);
    CHECK(r && fresh && r->seq == 3, "newest wins");
    r = vd_mailbox_read(&mb, &fresh);
    CHECK(r && !fresh && r->seq == 3, "read again: same, not fresh");
    CHECK(vd_mailbox_published(&mb) == 3 && vd_mailbox_overwritten(&mb) == 2 &&
              vd_mailbox_taken(&mb) == 1,
          "counters %llu %llu %llu", (unsigned long long)vd_mailbox_published(&mb),
          (unsigned long long)vd_mailbox_overwritten(&mb),
          (unsigned long long)vd_mailbox_taken(&mb));
    /* the reader's snapshot stays put while the writer goes on */
    for (uint64_t i = 4; i <= 10; i++) {
        w = vd_mailbox_back(&mb);
        CHECK((const void *)w != (const void *)r, "writer never gets the reader's slot");
        w->seq = i;
        vd_mailbox_publish(&mb);
    }
    CHECK(r->seq == 3, "held snapshot unchanged");
    r = vd_mailbox_read(&mb, &fresh);
    CHECK(r && fresh && r->seq == 10, "newest after a burst");
    vd_mailbox_free(&mb);
}

struct stress {
    struct vd_mailbox mb;
    uint64_t n;
    int writer_pause, reader_pause;
    atomic_int done;
};

static void pause_us(long us)
{
    struct timespec ts = {0, us * 1000};

    nanosleep(&ts, NULL);
}

static void *writer(void *arg)
{
    struct stress *s = arg;

    for (uint64_t i = 1; i <= s->n; i++) {
        struct snap *w = vd_mailbox_back(&s->mb);

        w->seq = i;
        for (int k = 0; k < NW; k++)
            w->w[k] = i * 7 + 1;
        vd_mailbox_publish(&s->mb);
        if (s->writer_pause && (i & ((1u << s->writer_pause) - 1)) == 0)
            pause_us(20);
    }
    atomic_store_explicit(&s->done, 1, memory_order_release);
    return NULL;
}

static void run_stress(int writer_pause, int reader_pause, const char *what)
{
    struct stress s = {.n = STRESS_N, .writer_pause = writer_pause, .reader_pause = reader_pause};
    uint64_t last = 0, fresh_reads = 0, torn = 0, back = 0, stale_fresh = 0, reads = 0;
    pthread_t t;

    CHECK(vd_mailbox_init(&s.mb, sizeof(struct snap)) == 0, "init");
    atomic_init(&s.done, 0);
    pthread_create(&t, NULL, writer, &s);
    for (;;) {
        const int done = atomic_load_explicit(&s.done, memory_order_acquire);
        bool fresh;
        const struct snap *r = vd_mailbox_read(&s.mb, &fresh);

        reads++;
        if (r) {
            for (int k = 0; k < NW; k++)
                torn += r->w[k] != r->seq * 7 + 1;
            if (r->seq < last)
                back++;
            if (fresh) {
                fresh_reads++;
                stale_fresh += r->seq == last; /* fresh must be newer */
            }
            last = r->seq;
        }
        if (done && !fresh)
            break; /* the writer is finished and the newest is taken */
        if (reader_pause && (reads & ((1u << reader_pause) - 1)) == 0)
            pause_us(50);
    }
    pthread_join(t, NULL);
    printf("%-26s %llu published, %llu taken, %llu overwritten, %llu reads\n", what,
           (unsigned long long)vd_mailbox_published(&s.mb),
           (unsigned long long)vd_mailbox_taken(&s.mb),
           (unsigned long long)vd_mailbox_overwritten(&s.mb), (unsigned long long)reads);
    CHECK(torn == 0, "%s: %llu torn words", what, (unsigned long long)torn);
    CHECK(back == 0, "%s: sequence went back %llu times", what, (unsigned long long)back);
    CHECK(stale_fresh == 0, "%s: %llu fresh reads were not newer", what,
          (unsigned long long)stale_fresh);
    CHECK(last == s.n, "%s: last seen %llu", what, (unsigned long long)last);
    CHECK(vd_mailbox_taken(&s.mb) == fresh_reads, "%s: taken counter", what);
    CHECK(vd_mailbox_published(&s.mb) == s.n, "%s: published", what);
    CHECK(vd_mailbox_taken(&s.mb) + vd_mailbox_overwritten(&s.mb) == s.n,
          "%s: taken %llu + overwritten %llu != published %llu", what,
          (unsigned long long)vd_mailbox_taken(&s.mb),
          (unsigned long long)vd_mailbox_overwritten(&s.mb), (unsigned long long)s.n);
    vd_mailbox_free(&s.mb);
}

int main(void)
{
    unit();
    run_stress(0, 4, "slow reader");  /* most snapshots overwritten */
    run_stress(6, 12, "slow writer"); /* the reader sees most */
    run_stress(8, 8, "both pausing");
    return vt_report("test_mailbox");
}
