/* config/vfs.c - disk or embedded config files behind one fopen. */
#include "vfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* fopen for reading a disk file: a regular file within the size limit. Opened non-blocking
 * first, so that a FIFO without a writer is refused instead of waited for */
FILE *vd_cfg_fopen_regular(const char *path, const char *mode, unsigned long long max_bytes)
{
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    FILE *f;
    int e = 0;

    if (fd < 0)
        return NULL;
    if (fstat(fd, &st))
        e = errno;
    else if (S_ISDIR(st.st_mode))
        e = EISDIR;
    else if (!S_ISREG(st.st_mode))
        e = ENODEV;
    else if ((unsigned long long)st.st_size > max_bytes)
        e = EFBIG;
    else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
        e = errno;
    if (e || !(f = fdopen(fd, mode))) {
        if (!e)
            e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    return f;
}

FILE *vd_cfg_fopen(const char *path, const char *mode)
{
    const struct vd_cfg_file *f;
    char norm[4096];

    if (!vd_cfg_is_embedded(path))
        return mode[0] == 'r' && !strchr(mode, '+')
                   ? vd_cfg_fopen_regular(path, mode, VD_CFG_MAX_FILE)
                   : fopen(path, mode);
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

int vd_cfg_read(const char *path, char **text, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1), *p;
    FILE *f;
    int rc = 0;

    if (!buf)
        return -ENOMEM;
    f = vd_cfg_fopen(path, "rb");
    if (!f) {
        rc = -errno;
        goto out_free_buf;
    }
    for (;;) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        /* one byte past the limit tells a file that grew since it was checked */
        if (cap > VD_CFG_MAX_FILE) {
            rc = -EFBIG;
            goto out_close_file;
        }
        p = realloc(buf, 2 * cap + 1);
        if (!p) {
            rc = -ENOMEM;
            goto out_close_file;
        }
        buf = p;
        cap *= 2;
    }
    if (ferror(f))
        rc = -EIO;
    else if (n > VD_CFG_MAX_FILE)
        rc = -EFBIG;
out_close_file:
    fclose(f);
    if (rc)
        goto out_free_buf;
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;

out_free_buf:
    free(buf);
    return rc;
}

int vd_cfg_read_or_say(const char *path, char **text, size_t *len, FILE *errf)
{
    const int rc = vd_cfg_read(path, text, len);

    if (rc && errf)
        fprintf(errf, "%s: error: cannot read: %s\n", path, vd_cfg_strerror(rc));
    return rc;
}

const char *vd_cfg_dirname(char *dir, size_t size, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;

    if (!size)
        return NULL;
    if (n >= size)
        n = size - 1;
    memcpy(dir, path, n);
    dir[n] = '\0';
    return slash ? dir : NULL;
}

const char *vd_cfg_strerror(int rc)
{
    switch (-rc) {
    case EISDIR:
        return "is a directory";
    case ENODEV:
        return "is not a regular file (a device, FIFO or socket)";
    case EFBIG:
        return "is larger than 64 MiB (VD_CFG_MAX_FILE)";
    default:
        return strerror(-rc);
    }
}
