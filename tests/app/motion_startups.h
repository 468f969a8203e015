/* tests/app/motion_startups.h - the start-ups of the Moog handshake that test_motion_start
 * (the decision alone) and test_motion_feed (through the feed, slot by slot) both run: per
 * send period the MBC's status before it (0 none yet, 1 STANDBY, 2 ENGAGED), whether the
 * loop's cues came in it, and the command the MBC must get ('N' NULL, 'E' ENGAGE with neutral
 * cues (the handshake), 'S' the state machine's own once it took the cues). */
#ifndef VD_TESTS_APP_MOTION_STARTUPS_H
#define VD_TESTS_APP_MOTION_STARTUPS_H

#include <stdbool.h>

#define VT_STARTUP_MAX 8

struct vt_startup {
    const char *what;
    int n;                     /* send periods */
    int st[VT_STARTUP_MAX];    /* the MBC's status before period i */
    bool have[VT_STARTUP_MAX]; /* the loop's cues in period i */
    const char *want;          /* n commands */
};

static const struct vt_startup vt_startups[] = {
    /* the usual start: the loop's cues every period, the MBC ENGAGED after two ENGAGEs */
    {"cues every period",
     8,
     {0, 0, 1, 1, 1, 2, 2, 2},
     {true, true, true, true, true, true, true, true},
     "NNEEESSS"},
    /* CI's case: ENGAGED reported in a period without new cues: ENGAGE again, never NULL
     * between the first ENGAGE and the fade-in */
    {"ENGAGED in a period without cues",
     7,
     {1, 1, 1, 2, 2, 2, 2},
     {false, true, true, false, false, true, true},
     "NEEEESS"},
    /* no cues yet: nothing commanded, whatever the MBC says; a period without cues while
     * waiting for ENGAGED: ENGAGE */
    {"cues late", 6, {1, 1, 1, 1, 1, 2}, {false, false, true, false, true, true}, "NNEEES"},
    /* an MBC ENGAGED before anything was sent (a previous host's): NULL until the cues, then
     * the state machine's (its fade-in from neutral) */
    {"ENGAGED at the first status", 3, {2, 2, 2}, {false, false, true}, "NNS"},
};
#define VT_NSTARTUP ((int)(sizeof(vt_startups) / sizeof(vt_startups[0])))

#endif /* VD_TESTS_APP_MOTION_STARTUPS_H */
