/* config/tmeasy.h - Chrono's TMeasy tyre files (JSON with // comments, Template
 * "TMeasyTire") -> struct vd_tm_params (core/tire_tmeasy.h), with compiler-style located
 * errors. Owns nothing once loaded. init only: reads files, allocates, prints diagnostics.
 *
 * Keys read (as Chrono's TMeasyTire.cpp): "Design" {"Unloaded Radius [m]", "Mass [kg]",
 * "Width [m]", "Rim Radius [m]"} (required), "Coefficient of Friction" (required),
 * "Rolling Resistance Coefficient" (one value) or "Rolling Resistance Coefficients" ([at pn,
 * at 2 pn]: the first is used), and one of three specifications, in Chrono's priority:
 * 1. "Parameters": the full set ("Tire Load", "Tire Stiffness", "Tire Damping",
 *    "Longitudinal", "Lateral", "Aligning"; key names as TMeasyTire.cpp). The vertical
 *    spring is taken linear with the stiffness at pn (the first of "Vertical [N/m]").
 * 2. "Load Index" with "Vehicle Type" "Passenger" or "Truck" (and optional "Inflation
 *    Pressure Design [Pa]", "Inflation Pressure Use [Pa]"): Chrono's parameter estimation
 *    ChTMeasyTire::GuessPassCar70Par / GuessTruck80Par (after G. Rill, "An Engineer's Guess
 *    on Tyre Model Parameters Made Possible with TMeasy", 2015): pn = 0.5 Fmax(LI)
 *    (p_use/p_li)^0.8, Fmax from the ETRTO load index table (kg x 9.81 m/s^2), pn_max =
 *    3.5 pn, cz = pn / (0.16 h) with the section height h = r0 - rim radius, dz = 0.05
 *    sqrt(cz m_tyre), cx = 0.9 cz, cy = 0.8 cz, and the curve parameters as fixed multiples
 *    of pn (values in config/tmeasy.c, copied from ChTMeasyTire.cpp).
 * 3. "Maximum Bearing Capacity [N]": the same estimation with Fmax given (vehicle type from
 *    "Vehicle Type"; Chrono compares "Name" with "truck" there, which looks like a slip).
 * The fictitious velocity vN of the bore and camber slips has no key (Chrono's m_vnum is fixed
 * too): VD_TM_VN. Unknown keys are ignored ("Name", "Type", "Visualization", "Inertia [kg.m2]",
 * ...). Errors: `name:LINE:COL: error: MESSAGE` for syntax, wrong types, missing required keys (at
 * the end of the file), a template other than TMeasyTire, values failing vd_tm_check. */
#ifndef VD_CONFIG_TMEASY_H
#define VD_CONFIG_TMEASY_H

#include <stddef.h>
#include <stdio.h>

#include "core/tire_tmeasy.h"

/* init-time (may allocate) */
/* read a TMeasy JSON file into *p; 0, -EINVAL (errors printed to errf, may be NULL), or
 * -errno if the file cannot be read */
int vd_tmeasy_load(const char *path, struct vd_tm_params *p, FILE *errf);
/* from a memory buffer text[0, len); `name` is the path in messages */
int vd_tmeasy_parse(const char *name, const char *text, size_t len, struct vd_tm_params *p,
                    FILE *errf);
/* [N] the largest load of ETRTO load index li (0..279), 0 outside */
double vd_tmeasy_load_index(int li);

#endif /* VD_CONFIG_TMEASY_H */
