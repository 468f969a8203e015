/* tests/app/test_motion_start.c - the motion feed's start-up handshake with a Moog MBC
 * (app/motionlink.h app_motion_start_engage), datagram by datagram as send_one calls it: NULL
 * before the MBC's first status and before the loop's first cues, then ENGAGE with neutral cues
 * in every datagram until the state machine takes the cues. The case CI caught under ASan: the
 * MBC reports ENGAGED in a send period without new cues (the loop a little late); the feed sent
 * one NULL there, between its ENGAGEs, before the fade-in. The same start-ups through the feed
 * itself, slot by slot over real sockets: test_motion_feed.c; the thread and the emulated MBC
 * end to end: tests/app/moog_status_test.sh and motion_control_test.sh. */
#include <stdbool.h>
#include <stdint.h>

#include "app/motionlink.h"
#include "check.h"
#include "motion_startups.h"

/* one start-up: per send period whether a status has come (st: 0 none yet, 1 STANDBY, 2
 * ENGAGED) and whether the loop's cues came (have); the state machine takes the cues in the
 * first period with cues once the MBC reported ENGAGED (send_one's in.cue). want: per period 'N'
 * NULL, 'E' ENGAGE (the handshake), 'S' the state machine's own (it has taken the cues) */
static void run(const char *what, const int *st, const bool *have, const char *want, int n)
{
    uint64_t engage_tries = 0;
    int sm = VD_MST_OFF;

    for (int i = 0; i < n; i++) {
        const bool engaged = st[i] == 2;
        char got;

        if (sm == VD_MST_OFF && engaged && have[i])
            sm = VD_MST_ENGAGING; /* vd_motion_sm_step: the first good cues */
        if (app_motion_start_engage(true, sm, st[i] > 0, engaged, have[i], engage_tries)) {
            got = 'E';
            engage_tries++;
        } else {
            got = sm == VD_MST_OFF ? 'N' : 'S';
        }
        CHECK(got == want[i], "%s: period %d: %c, want %c", what, i, got, want[i]);
    }
}

int main(void)
{
    for (int c = 0; c < VT_NSTARTUP; c++)
        run(vt_startups[c].what, vt_startups[c].st, vt_startups[c].have, vt_startups[c].want,
            vt_startups[c].n);
    /* outside the start-up handshake the function never commands: no handshake (the status
     * not watched), the state machine on, or no status yet */
    for (int sm = VD_MST_OFF; sm < VD_MST_COUNT; sm++)
        for (int m = 0; m < 16; m++) {
            const bool hs = m & 1, any = m & 2, eng = m & 4, have = m & 8;

            for (uint64_t w = 0; w < 3; w++) {
                const bool e = app_motion_start_engage(hs, sm, any, eng, have, w);

                if (!hs || sm != VD_MST_OFF || !any)
                    CHECK(!e, "handshake %d state %d status %d: ENGAGE", hs, sm, any);
                else if (w > 0) /* once begun: to the end of the handshake */
                    CHECK(e, "ENGAGE %d sent, ENGAGED %d, cues %d: not ENGAGE", (int)w, eng, have);
                else /* the first ENGAGE: with the loop's cues, to an MBC not yet ENGAGED */
                    CHECK(e == (have && !eng), "none sent, ENGAGED %d, cues %d: ENGAGE %d", eng,
                          have, e);
            }
        }
    return vt_report("test_motion_start");
}
