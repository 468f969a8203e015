/* config/tir.h - TYDEX / ADAMS tyre property files (.tir) of the MF 5.2 / PAC2002 family and
 * MF 6.1 / 6.2 (FILE_VERSION 3.0, FITTYP 61 / 62) -> struct vd_mf_params (core/tire_mf.h), with
 * compiler-style located errors. Owns nothing once loaded. init only: reads files, allocates,
 * prints diagnostics.
 *
 * Syntax: `[SECTION]` headers, `KEY = value` lines, comments from `$` or `!` to the end of
 * the line (whole lines or trailing), values are numbers or quoted strings ('..' or ".."),
 * keys and section names are case-insensitive. Sections read: MDI_HEADER, UNITS, MODEL,
 * DIMENSION, VERTICAL, the four *_RANGE sections, SCALING_COEFFICIENTS, LONGITUDINAL_,
 * OVERTURNING_, LATERAL_, ROLLING_ and ALIGNING_COEFFICIENTS, and for MF 6.x
 * OPERATING_CONDITIONS (INFLPRES, NOMPRES), STRUCTURAL (LONGITUDINAL_/LATERAL_STIFFNESS,
 * PCFX1..3, PCFY1..3) and INFLATION_PRESSURE_RANGE. Other sections ([SHAPE]
 * tables, [TIRE_CONDITIONS], [TURNSLIP_COEFFICIENTS], ...) are skipped with a note.
 *
 * Checks:
 * - errors, each as `name:LINE:COL: error: MESSAGE` + the source line and a caret, then
 *   -EINVAL: syntax (no `=`, unterminated quote or header, text after the value, a key
 *   before any section), a non-numeric or non-finite value for a numeric key, a value out
 *   of range (FNOMIN, UNLOADED_RADIUS, LFZO, LMUX, LMUY, LONGVL > 0; WIDTH, VXLOW,
 *   VERTICAL_* and the other scaling factors >= 0), a duplicate key, FILE_TYPE other than
 *   'tir', units other than SI (meter, newton, radian, kg, second, pascal: no conversion),
 *   a model family other than MF 5.2 / PAC2002 (PROPERTY_FILE_FORMAT 'PAC2002', 'MF_05',
 *   'MF_52', 'MF5.2' or FITTYP 5, 6, 21, 52) or MF 6.1 / 6.2 (FITTYP 61, 62, or 'MF_61' ..;
 *   these need NOMPRES and LONGITUDINAL_/LATERAL_STIFFNESS; INFLPRES defaults to NOMPRES), TYRESIDE
 *   other than LEFT / RIGHT, and (at `name: error:`) a missing FNOMIN or UNLOADED_RADIUS
 *   or no model family at all.
 * - notes (`name: note: ...`, printed only when the file loads, and by vd_tir_load only once
 *   per file and only where vd_tir_notes_to says): unknown keys in known
 *   sections (ignored, counted, listed), skipped sections, coefficients missing from a
 *   section that is present (defaulted to 0, the MF convention; scaling factors to 1),
 *   absent sections (their terms are 0; no combined-slip coefficients -> the friction-
 *   ellipse fallback of vd_mf_eval), a missing [UNITS] section (SI assumed), LONGVL and
 *   VXLOW defaults (16.7 m/s, 1 m/s, as MFeval), MF 6.x keys in an MF 5.2 file (read, not
 *   used), and for MF 6.x the pressure it runs at, turn slip off and the vertical model. */
#ifndef VD_CONFIG_TIR_H
#define VD_CONFIG_TIR_H

#include <stddef.h>
#include <stdio.h>

#include "core/tire_mf.h"

/* init-time (may allocate) */
/* Read a .tir file into *p (fully overwritten, also on error). 0, -EINVAL (errors printed to
 * errf, which may be NULL), or -errno if the file cannot be read. Its notes go to the
 * stream of vd_tir_notes_to, the first time a path is loaded in this process only. */
int vd_tir_load(const char *path, struct vd_mf_params *p, FILE *errf);
/* where vd_tir_load's notes go: NULL (the default) for nowhere, e.g. stderr when the user
 * asked for them (rtvd sim/run/bench --verbose) */
void vd_tir_notes_to(FILE *f);
/* from a memory buffer text[0, len), errors and notes to errf; `name` is used as the path
 * in messages */
int vd_tir_parse(const char *name, const char *text, size_t len, struct vd_mf_params *p,
                 FILE *errf);

#endif /* VD_CONFIG_TIR_H */
