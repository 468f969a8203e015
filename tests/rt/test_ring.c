/* tests/rt/test_ring.c - the SPSC ring: order, capacity, exact drop counts (single thread),
 * then a producer and a consumer thread at different rates over >= 2^20 records: every
 * record arrives whole and in order, and received + dropped = pushed exactly. Runs under
 * ThreadSanitizer in CI (deploy/test.sh). */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "rt/ring.h"

#define STRESS_N (1u << 20)

struct rec {
    uint64_t seq;
    uint64_t payload[5]; /* seq * k: a torn record would not match */
    uint64_t check;
};

static void fill(struct rec *r, uint64_t seq)
{
    r->seq = seq;
    r->check = seq;
    for (int k = 0; k < 5; k++) {
        r->payload[k] = seq * (uint64_t)(k + 3) + 11u;
        r->check ^= r->payload[k];
    }
}

static int intact(const struct rec *r)
{
    uint64_t c = r->seq;

    for (int k = 0; k < 5; k++) {
        if (r->payload[k] != r->seq * (uint64_t)(k + 3) + 11u)
            return 0;
        c ^= r->payload[k];
    }
    return c == r->check;
}

static void unit(void)
{
    struct vd_ring r;
    struct rec a, b;
    int ok = 1;

    CHECK(vd_ring_init(&r, sizeof(struct rec), 0) == -22, "order 0 refused");
    CHECK(vd_ring_init(&r, sizeof(struct rec), 3) == 0, "init");
    CHECK(r.cap == 8, "capacity %llu", (unsigned long long)r.cap);
    CHECK(!vd_ring_pop(&r, &b), "empty ring pops nothing");
    for (uint64_t i = 0; i < 8; i++) {
        fill(&a, i);
        ok &= vd_ring_push(&r, &a);
    }
    CHECK(ok, "8 pushes into a ring of 8");
    fill(&a, 99);
    CHECK(!vd_ring_push(&r, &a) && !vd_ring_push(&r, &a), "full ring refuses");
    CHECK(vd_ring_dropped(&r) == 2 && vd_ring_pushed(&r) == 8, "dropped %llu pushed %llu",
          (unsigned long long)vd_ring_dropped(&r), (unsigned long long)vd_ring_pushed(&r));
    CHECK(vd_ring_count(&r) == 8, "count");
    for (uint64_t i = 0; i < 3; i++)
        ok &= vd_ring_pop(&r, &b) && b.seq == i && intact(&b);
    CHECK(ok, "FIFO order");
    /* wrap around the buffer many times */
    for (uint64_t i = 8; i < 1000; i++) {
        fill(&a, i);
        ok &= vd_ring_push(&r, &a);
        ok &= vd_ring_pop(&r, &b) && b.seq == i - 5 && intact(&b);
    }
    CHECK(ok, "order across wrap-around");
    CHECK(vd_ring_count(&r) == 5 && vd_ring_dropped(&r) == 2, "count after wrap");
    vd_ring_free(&r);
}

struct stress {
    struct vd_ring r;
    uint64_t n;         /* records the producer offers */
    int producer_pause; /* pause every 2^k pushes */
    int consumer_pause;
    /* consumer results */
    uint64_t received, gaps, torn, disorder;
};

static void pause_us(long us)
{
    struct timespec ts = {0, us * 1000};

    nanosleep(&ts, NULL);
}

static void *producer(void *arg)
{
    struct stress *s = arg;
    struct rec a;

    for (uint64_t i = 0; i < s->n; i++) {
        fill(&a, i);
        vd_ring_push(&s->r, &a);
        if (s->producer_pause && (i & ((1u << s->producer_pause) - 1)) == 0)
            pause_us(20);
    }
    return NULL;
}

static void run_stress(int producer_pause, int consumer_pause, const char *what)
{
    struct stress s = {
        .n = STRESS_N, .producer_pause = producer_pause, .consumer_pause = consumer_pause};
    pthread_t t;
    struct rec b;
    uint64_t next = 0;
    int done = 0;

    CHECK(vd_ring_init(&s.r, sizeof(struct rec), 10) == 0, "init");
    pthread_create(&t, NULL, producer, &s);
    /* consume until the producer is finished and the ring is empty */
    for (;;) {
        int got = vd_ring_pop(&s.r, &b);

        if (got) {
            s.received++;
            if (!intact(&b))
                s.torn++;
            if (b.seq < next)
                s.disorder++;
            else
                s.gaps += b.seq - next;
            next = b.seq + 1;
            if (s.consumer_pause && (s.received & ((1u << s.consumer_pause) - 1)) == 0)
                pause_us(50);
            continue;
        }
        if (done)
            break;
        if (vd_ring_pushed(&s.r) + vd_ring_dropped(&s.r) == s.n) {
            pthread_join(t, NULL);
            done = 1; /* one more pass: drain what is left */
        }
    }
    printf("%-28s %llu offered, %llu received, %llu dropped (ring of %llu)\n", what,
           (unsigned long long)s.n, (unsigned long long)s.received,
           (unsigned long long)vd_ring_dropped(&s.r), (unsigned long long)s.r.cap);
    CHECK(s.torn == 0, "%s: %llu torn records", what, (unsigned long long)s.torn);
    CHECK(s.disorder == 0, "%s: %llu out of order", what, (unsigned long long)s.disorder);
    CHECK(s.received + vd_ring_dropped(&s.r) == s.n, "%s: received %llu + dropped %llu != %llu",
          what, (unsigned long long)s.received, (unsigned long long)vd_ring_dropped(&s.r),
          (unsigned long long)s.n);
    CHECK(vd_ring_pushed(&s.r) == s.received, "%s: pushed %llu, received %llu", what,
          (unsigned long long)vd_ring_pushed(&s.r), (unsigned long long)s.received);
    /* every missing sequence number is a counted drop (only the tail can hide one) */
    CHECK(s.gaps + (s.n - next) == vd_ring_dropped(&s.r), "%s: gaps %llu + tail %llu != dropped",
          what, (unsigned long long)s.gaps, (unsigned long long)(s.n - next));
    vd_ring_free(&s.r);
}

int main(void)
{
    unit();
    run_stress(0, 6, "slow consumer"); /* drops expected */
    run_stress(8, 0, "slow producer"); /* consumer keeps up */
    run_stress(10, 10, "both pausing");
    return vt_report("test_ring");
}
