/* config/ranges.h - the valid range of every physical quantity a config file or a command
 * line option gives, in one place (config/'s key tables use them through VD_YKEY_IN, app/'s
 * option parsers for --dt and --duration, config/README.md lists them). Wide enough for any real
 * vehicle, rig or test model, from a 1 g washer to a 100 t truck, so that a value outside is a
 * typing error or a hostile file (a mass of 4e-320 or 2^63 kg, a step of 1e-320 s loaded before and
 * made a run overflow its step count). Each pair is `lo, hi` [unit]; a bound that must be excluded
 * says so at the key. */
#ifndef VD_CONFIG_RANGES_H
#define VD_CONFIG_RANGES_H

/* bodies */
#define VD_RNG_MASS        1e-3, 1e5     /* [kg] a 1 g part .. a 100 t vehicle */
#define VD_RNG_INERTIA     -1e6, 1e6     /* [kg m^2] tensor entries (a heavy truck's yaw ~1e5) */
#define VD_RNG_INERTIA_MIN 1e-10         /* [kg m^2] principal moments: a 1 g, 1 mm part ~4e-10 */
#define VD_RNG_POS         -1e5, 1e5     /* [m] positions: within 100 km of the origin (a course) */
#define VD_RNG_LOCAL       -100.0, 100.0 /* [m] points of a vehicle in its own frame (hardpoints) */
#define VD_RNG_ANGLE       -360.0, 360.0 /* [deg] orientations, headings, phases */
#define VD_RNG_SPEED       -200.0, 200.0 /* [m/s] initial and target speeds (720 km/h) */
#define VD_RNG_OMEGA       -1e4, 1e4     /* [rad/s] angular velocities (engines, wheels ~1e3) */
#define VD_RNG_GRAVITY     -100.0, 100.0 /* [m/s^2] each component (Earth 9.81) */

/* force elements */
#define VD_RNG_STIFF  0.0, 1e10   /* [N/m, N m/rad] bushings, springs, stops, tyres */
#define VD_RNG_DAMP   0.0, 1e8    /* [N s/m, N m s/rad] */
#define VD_RNG_FORCE  -1e7, 1e7   /* [N, N m] preloads, input signal levels, torque limits */
#define VD_RNG_LENGTH 1e-4, 100.0 /* [m] free and stop lengths, obstacle lengths, wheelbase */
#define VD_RNG_GAIN   -1e7, 1e7   /* [per unit of u] actuator gains */

/* time */
#define VD_RNG_DT       1e-6, 0.1 /* [s] integrator step: 1 us .. 100 ms */
#define VD_RNG_DURATION 0.0, 1e7  /* [s] run and scenario lengths (116 days) */
#define VD_RNG_TIME     -1e7, 1e7 /* [s] signal times (steps, ramps, sweeps, schedules) */
#define VD_RNG_FREQ     0.0, 1e5  /* [Hz] signal frequencies */

/* controller gains of the scenario driver */
#define VD_RNG_DRIVER_GAIN 0.0, 1e7 /* [N m s/m, N m/m] */
#define VD_RNG_TORQUE      0.0, 1e6 /* [N m] drive and brake capacities */

#endif /* VD_CONFIG_RANGES_H */
