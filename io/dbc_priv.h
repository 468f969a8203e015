/* io/dbc_priv.h - internal to io/dbc*.c: the message index the parser builds (io/dbc_parse.c)
 * and vd_dbc_find_id searches (io/dbc.c). */
#ifndef VD_IO_DBC_PRIV_H
#define VD_IO_DBC_PRIV_H

#include <stdint.h>

struct vd_dbc_idx {
    uint32_t key; /* id | ext << 31 */
    int msg;
};

#endif /* VD_IO_DBC_PRIV_H */
