/* config/model_yaml.h - raw model YAML -> struct vd_model, with located errors.
 * Owns nothing once loaded: the model goes to the caller, the input signals too.
 * init only: allocates, reads files, prints diagnostics. (The signals it returns are evaluated
 * by core/source.c, RT-safe.)
 *
 * Schema (units and ranges per key in the tables of model_yaml.c and config/templates.c; the
 * user's reference is config/README.md): top-level keys model, solver, bodies, markers,
 * bushings, p2p, inputs, tires, couplers, road, and the templates suspensions,
 * antiroll_bars, steering, driveline (config/templates.c), which add bodies, markers,
 * bushings, p2p elements, couplers, tyres and inputs. Angles in the file are degrees
 * (Cardan z-y'-x''), converted to radians; angular velocities are rad/s. Unknown keys,
 * missing required keys, duplicate keys, wrong types and values out of range are errors,
 * reported as compiler errors:
 *   path:LINE:COL: error: bodies[1].mass: -3 must be > 0
 *     mass: -3
 *           ^
 * Details that the schema leaves open:
 * - solver.stage2: linearized | nonlinear (enum vd_stage2, default linearized), as the CLI's
 *   --stage2; not in the original schema, added with the core option.
 * - solver.linear: dense | structured (enum vd_linear, default structured): LAPACK LU of the
 *   whole iteration matrix, or the block-sparse LU along the topology (core/blocklu.h);
 *   solver.root: the body the structured solve eliminates last (default: the body named
 *   chassis, else the one with the most neighbours); it must name a body.
 * - model.name defaults to the file name without directory and extension; gravity to
 *   [0, 0, -9.81]. inputs[].type is required, inputs[].frame defaults to global.
 * - element names (bodies, markers, bushings, p2p, inputs) match [A-Za-z0-9_.-]+, at most
 *   VD_NAME_MAX - 1 characters; "ground" is reserved for the inertial frame.
 * - inertia with 6 numbers is ixx iyy izz ixy ixz iyz, the tensor entries as written
 *   (I = [ixx ixy ixz; ixy iyy iyz; ixz iyz izz]).
 * - input directions are normalized to unit length, so u[j] is the force [N] / torque [N m].
 * - a bushing component override (x, y, z, rx, ry, rz) replaces the default's stiffness
 *   and/or damping key by key; `interp` applies to the tables of the mapping it is in.
 * - stop stiffness may also be a number (linear in the penetration).
 * - sine: value = offset + amplitude sin(2 pi frequency (t - start) + phase) for t >= start.
 * - signal tables need >= 2 points. */
#ifndef VD_CONFIG_MODEL_YAML_H
#define VD_CONFIG_MODEL_YAML_H

#include <stddef.h>
#include <stdio.h>

#include "core/model.h"
#include "core/source.h" /* one time-signal per model input (`inputs[j].signal`) */

/* init-time (may allocate) */
/* Load and finalize a model. On error prints every diagnostic found (at most 20, in source
 * order) to errf (may be NULL) in the form
 *   path:LINE:COL: error: MESSAGE
 *     <the source line>
 *     <spaces>^
 * and returns NULL. *src (src may be NULL) receives the input signals (free with
 * vd_source_free; evaluated by vd_source_eval), NULL on error. */
struct vd_model *vd_cfg_load_model(const char *path, struct vd_source **src, FILE *errf);
/* same from a memory buffer text[0, len); `name` is used as the path in messages */
struct vd_model *vd_cfg_load_model_mem(const char *name, const char *text, size_t len,
                                       struct vd_source **src, FILE *errf);

#endif /* VD_CONFIG_MODEL_YAML_H */
