/* core/road.h - the road surface under the tyres: a plane with grade, obstacles across global
 * x, and a measured profile with a left and a right track (struct vd_road in core/model.h).
 * Owns nothing. RT-safe: no allocation, bounded time (a binary search in the profile).
 *
 * Profile tracks: the left track lies at y_l = track_y + track_width/2, the right one at
 * y_r = track_y - track_width/2. Between them the height is linear in y,
 *   z = z_r(x) + (z_l(x) - z_r(x)) (y - y_r) / track_width,  dz/dy = (z_l - z_r) / track_width,
 * and outside it is the nearer track's (a tyre off the measured tracks keeps its own).
 * track_width = 0 keeps the old switch at track_y (y >= track_y: left). Along x each track is
 * linear between its points and held constant outside them. */
#ifndef VD_CORE_ROAD_H
#define VD_CORE_ROAD_H

#include "model.h"

/* RT-safe */
/* road height [m] at (x, y) and its gradient (dz/dx, dz/dy) */
double vd_road_height(const struct vd_model *m, double x, double y, double grad[2]);

#endif /* VD_CORE_ROAD_H */
