/* config/tpl.h - internal to config/: the helpers the vehicle templates share (one template
 * instance, hardpoints to global points, bodies, markers, elastic joints, inputs). The
 * templates are one file per family: tpl_suspension.c, tpl_arb.c, tpl_steering.c,
 * tpl_driveline.c; templates.c holds these shared helpers and vd_tpl_load. Init only. */
#ifndef VD_CONFIG_TPL_H
#define VD_CONFIG_TPL_H

#include <stdbool.h>

#include "config/loader.h"
#include "config/ydoc.h"
#include "core/model.h"

#define REQ      VD_YK_REQUIRED
#define LO_OPEN  VD_YK_LO_OPEN
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define NAME_BUF (2 * VD_NAME_MAX) /* composed names; vd_ld_push rejects the too long */

/* ---- one template instance (one side) --------------------------------------------------- */

struct tpl {
    struct loader *L;
    const yaml_node_t *node; /* the template entry: errors without a better place go here */
    char path[VD_YPATH_MAX];
    char pre[VD_NAME_MAX];   /* element name prefix: "front_l", "steering" */
    double side;             /* +1 as given (left), -1 mirrored (right) */
    double loc[3];           /* subsystem origin in the mount body's frame */
    int mount;               /* mount body */
    int connection;          /* 0 bushings, 1 ideal joints (connection: joints) */
    const yaml_node_t *conn; /* the connection value: where errors about its joints point */
    double R0[9], o0[3];     /* mount body's reference frame at t0: axes, origin (global) */
    int nerr0;
};

/* body spec: {mass, inertia (mount axes: 3 or 6 numbers), com (left side, subsystem frame)} */
struct bspec {
    double mass, I[9], com[3];
    bool has_com;
};

/* joint spec: x = axial, y z = radial, rx = torsional, ry rz = conical; damping as a time
 * constant: c = tau k (slope at 0 for tables) */
struct jspec {
    struct vd_curve axial, radial, torsional, conical;
    double tau; /* [s] */
};

/* axes and origin of body b's reference frame at t0 */
void vd_tpl_body_frame(const struct loader *L, int b, double R[9], double o[3]);
/* a left-side point of the subsystem frame -> global (mirrored for the right side) */
void vd_tpl_gpt(const struct tpl *t, const double hp[3], double g[3]);
/* a left-side direction of the subsystem frame -> global (mirrored) */
void vd_tpl_gdir(const struct tpl *t, const double d[3], double g[3]);
/* axes (columns) with x along dir (any length), y as close to hint as possible */
void vd_tpl_axes_x(double R[9], const double dir[3], const double hint[3]);
/* out = "<pre>.<e>" (NAME_BUF bytes) */
void vd_tpl_name(char *out, const struct tpl *t, const char *e);
/* the value of key in a mapping node, or NULL */
yaml_node_t *vd_tpl_map_get(struct loader *L, const yaml_node_t *map, const char *key);
int vd_tpl_read_bspec(struct tpl *t, const yaml_node_t *node, const char *parent, const char *key,
                      struct bspec *b);
/* a body named <pre>.<e> at global CoM com_g, axes Rrel in the mount's axes (NULL: same) */
int vd_tpl_body(struct tpl *t, const char *e, const struct bspec *s, const double com_g[3],
                const double Rrel[9]);
/* a marker named <pre>.<e> on body b at global point p with global axes Rg (NULL: body's) */
int vd_tpl_marker(struct tpl *t, const char *e, int b, const double p[3], const double Rg[9]);
/* a linear curve of slope k in the model's pool */
struct vd_curve vd_tpl_lin(struct loader *L, double k);
/* joint spec: the defaults, then the keys given in node (a mapping; NULL: defaults only) */
void vd_tpl_read_jspec(struct tpl *t, const yaml_node_t *node, const char *parent, const char *key,
                       double radial, double axial, double tors, double con, double tau,
                       struct jspec *j);
/* a bushing <pre>.<e> joining body bi to body bj at global point p, axes Rg (x = the joint's
 * axis); returns the bushing index */
int vd_tpl_joint(struct tpl *t, const char *e, int bi, int bj, const double p[3],
                 const double Rg[9], const struct jspec *s, int rot_mode);
/* an actuator input <pre>.<e> (zero until a scenario or the CAN mapping drives it) */
int vd_tpl_input(struct tpl *t, const char *e);
/* bushing component comp actuated by input (mode VD_ACT_*, gain) */
void vd_tpl_act(struct tpl *t, int bush, int comp, int mode, int input, double gain);
/* the hardpoints mapping: every name in names[] required unless optional[k], into hp[k] */
void vd_tpl_read_points(struct tpl *t, const yaml_node_t *node, const char *const *names, int n,
                        const bool *optional, double (*hp)[3], bool *given);
/* the mount body (by name) and its frame */
int vd_tpl_read_mount(struct tpl *t, const yaml_node_t *node, const char *key);

/* axes of a body spinning about dir (global), in the mount's axes (x along dir; the mount's
 * axes when dir is within 30 deg of the vertical) */
void vd_tpl_rel_axes(const struct tpl *t, const double dir[3], double Rrel[9]);

/* body e with spec s at the centroid of the hardpoints hp[idx[0..n-1]] (n <= 6), unless the
 * spec gives its CoM; its index or -EINVAL */
int vd_tpl_body_at_points(struct tpl *t, const char *e, const struct bspec *s,
                          const double (*hp)[3], const int *idx, int n);
/* an ideal joint <pre>.<e> (enum vd_joint_type) joining body bi (marker e.i) to body bj
 * (marker e.j) at global point p; the markers' z axis along axis (global; NULL: the mount's
 * axes); returns the joint index */
int vd_tpl_ideal(struct tpl *t, const char *e, int type, int bi, int bj, const double p[3],
                 const double axis[3]);
/* the same with the markers' axes given (global, columns x y z) */
int vd_tpl_ideal_axes(struct tpl *t, const char *e, int type, int bi, int bj, const double p[3],
                      const double R[9]);
/* a universal joint as a Cardan joint between shaft bi (axis ai, global) and shaft bj (axis aj)
 * at p: the cross pins normal to the plane of the shafts (on bi) and in it (on bj) */
int vd_tpl_cardan(struct tpl *t, const char *e, int bi, int bj, const double p[3],
                  const double ai[3], const double aj[3]);
/* a bushing <pre>.<e> without rates but component comp (stiffness k, damping tau k'(0); comp
 * < 0: none) beside an ideal joint that holds the bodies: it carries an actuator, a
 * coupler's coordinate or end stops under the bushing model's name */
int vd_tpl_coord(struct tpl *t, const char *e, int bi, int bj, const double p[3],
                 const double Rg[9], int comp, const struct vd_curve *k, double tau);
/* the `connection` key (k, its value node; NULL: bushings): t->connection and t->conn */
void vd_tpl_read_connection(struct tpl *t, yaml_node_t *node, const struct vd_ykey *k);
/* an arm or link e between the hardpoints hp[idx[..]], its spec from bodies.<e> */
int vd_tpl_arm(struct tpl *t, const char *e, const yaml_node_t *bodies, const char *bpath,
               const double (*hp)[3], const int *idx, int n);
/* a ball joint (elastic bushing) between bodies bi and bj at hardpoint hp, mount's axes */
int vd_tpl_ball(struct tpl *t, const char *e, int bi, int bj, const double hp[3],
                const struct jspec *s);

/* the template families, one file each: an entry of `suspensions` (tpl_suspension.c), of
 * `antiroll_bars` (tpl_arb.c), the `steering` (tpl_steering.c) and `driveline`
 * (tpl_driveline.c) sections; 0 or -EINVAL (diagnostics recorded) */
int vd_tpl_suspension(struct loader *L, yaml_node_t *node, const char *path);
int vd_tpl_arb(struct loader *L, yaml_node_t *node, const char *path);
int vd_tpl_steering(struct loader *L, yaml_node_t *node, const char *path);
int vd_tpl_driveline(struct loader *L, yaml_node_t *node, const char *path);

#endif
