/* config/vfs.c - disk or embedded config files behind one fopen. */
#include "vfs.h"

#include <errno.h>
#include <string.h>

#define MAX_COMPONENTS 128

static const struct vd_cfg_file *g_files; /* (g_nfiles) the registered table */
static int g_nfiles;

void vd_cfg_vfs_register(const struct vd_cfg_file *files, int n)
{
    g_files = n > 0 ? files : NULL;
    g_nfiles = n > 0 ? n : 0;
}

bool vd_cfg_is_embedded(const char *path)
{
    return path && !strncmp(path, VD_CFG_EMBEDDED, strlen(VD_CFG_EMBEDDED));
}

int vd_cfg_path_normalize(char *out, size_t size, const char *path)
{
    const char *comp[MAX_COMPONENTS], *p;
    size_t clen[MAX_COMPONENTS], pre = 0, at;
    int k = 0;

    if (vd_cfg_is_embedded(path))
        pre = strlen(VD_CFG_EMBEDDED);
    else if (path[0] == '/')
        pre = 1;
    /* split the rest into components, resolving "." and ".." on the way */
    for (p = path + pre; *p;) {
        const char *e = strchr(p, '/');
        const size_t n = e ? (size_t)(e - p) : strlen(p);

        if (n == 0 || (n == 1 && p[0] == '.')) {
            /* nothing */
        } else if (n == 2 && p[0] == '.' && p[1] == '.' && k > 0 &&
                   !(clen[k - 1] == 2 && !memcmp(comp[k - 1], "..", 2))) {
            k--;
        } else if (n == 2 && p[0] == '.' && p[1] == '.' && pre == 1) {
            /* "/.." is "/" */
        } else {
            if (k == MAX_COMPONENTS)
                return -ENAMETOOLONG;
            comp[k] = p;
            clen[k] = n;
            k++;
        }
        p += n;
        if (*p == '/')
            p++;
    }
    /* prefix, then the components joined by '/' */
    if (pre + 1 > size)
        return -ENAMETOOLONG;
    memcpy(out, path, pre);
    at = pre;
    for (int i = 0; i < k; i++) {
        if (at + (i > 0) + clen[i] + 1 > size)
            return -ENAMETOOLONG;
        if (i > 0)
            out[at++] = '/';
        memcpy(out + at, comp[i], clen[i]);
        at += clen[i];
    }
    if (at == 0) {
        if (size < 2)
            return -ENAMETOOLONG;
        out[at++] = '.';
    }
    out[at] = '\0';
    return 0;
}

const struct vd_cfg_file *vd_cfg_vfs_find(const char *path)
{
    char norm[4096];

    if (!vd_cfg_is_embedded(path) || vd_cfg_path_normalize(norm, sizeof(norm), path))
        return NULL;
    for (int i = 0; i < g_nfiles; i++)
        if (!strcmp(g_files[i].path, norm))
            return &g_files[i];
    return NULL;
}

FILE *vd_cfg_fopen(const char *path, const char *mode)
{
    const struct vd_cfg_file *f;
    char norm[4096];

    if (!vd_cfg_is_embedded(path))
        return fopen(path, mode);
    if (vd_cfg_path_normalize(norm, sizeof(norm), path)) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    if (mode[0] != 'r' || strchr(mode, '+')) {
        errno = EROFS;
        return NULL;
    }
    f = vd_cfg_vfs_find(norm);
    if (!f) {
        errno = ENOENT;
        return NULL;
    }
    /* read-only: fmemopen never writes to the buffer in mode "r" */
    return fmemopen((void *)f->data, f->len, "r");
}
