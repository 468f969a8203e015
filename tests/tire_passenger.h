/* tests/tire_passenger.h - the passenger 185/80 R14 PAC2002 tyre
 * (config/tires/passenger_185_80R14_pac2002.tir): the subset of its coefficients that the
 * tyre and reference tests check against (tests/core/test_tire.c, tests/app/test_cvode.c),
 * as numbers so that those tests do not depend on the .tir parser. Include in one
 * translation unit. */
#ifndef VD_TESTS_TIRE_PASSENGER_H
#define VD_TESTS_TIRE_PASSENGER_H

#include "core/tire_mf.h"

static inline void passenger(struct vd_mf_params *p)
{
    vd_mf_params_default(p);
    p->flags = VD_MF_HAS_FX | VD_MF_HAS_FY | VD_MF_HAS_MZ | VD_MF_HAS_COMBINED | VD_MF_HAS_MY |
               VD_MF_HAS_RELAX;
    p->fnomin = 3800;
    p->unloaded_radius = 0.376;
    p->longvl = 16.7;
    p->vxlow = 1.0;
    p->vertical_stiffness = 2e5;
    p->pcx1 = 1.5587, p->pdx1 = 1.09, p->pdx2 = -0.079328, p->pex1 = 0.27403;
    p->pkx1 = 19.733, p->pkx2 = 0.093405, p->pkx3 = 0.12433, p->phx1 = -0.001779;
    p->rbx1 = 14.927, p->rbx2 = -10.534, p->rcx1 = 1.1288;
    p->ptx1 = 1.9021, p->ptx2 = -0.0014739, p->ptx3 = 0.03631;
    p->pcy1 = 1.4675, p->pdy1 = 0.94002, p->pdy2 = -0.17669, p->pdy3 = -0.69602;
    p->pey1 = 0.0040023, p->pky1 = -12.536, p->pky2 = 1.3856, p->pky3 = -0.93342;
    p->phy1 = 0.0024749, p->pvy1 = 0.031255;
    p->rby1 = 5.5228, p->rby2 = 2.7966, p->rcy1 = 1.0783;
    p->pty1 = 1.8473, p->pty2 = 1.9465;
    p->qsy1 = 0.01;
    p->qbz1 = 9.2824, p->qcz1 = 1.1119, p->qdz1 = 0.14332, p->qdz6 = -0.0073867;
    p->qez1 = -2.9203, p->qhz1 = 0.0019422, p->ssz1 = 0.026243;
}

#endif /* VD_TESTS_TIRE_PASSENGER_H */
