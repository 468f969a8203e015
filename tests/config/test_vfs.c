/* tests/config/test_vfs.c - config/vfs.h and the embedded file table (app/embed.cmake):
 * every embedded file equals the file on disk byte for byte and every file of the embedded
 * folders is in the table (so no build ships stale or partial config); path normalization;
 * vd_cfg_fopen on disk and embedded paths, its errors. Runs in the source tree. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "config/vfs.h"

#ifndef VD_EMBED_DIRS
#error "VD_EMBED_DIRS (the embedded folders under config/, space-separated) must be defined"
#endif

/* whole file into a malloc'ed buffer from f (closed); NULL on error */
static unsigned char *slurp(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);

    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        buf = realloc(buf, cap);
    }
    fclose(f);
    *len = n;
    return buf;
}

static void test_table_matches_disk(void)
{
    const size_t pre = strlen(VD_CFG_EMBEDDED);
    int same = 0;

    CHECK(vd_embedded_nfiles > 0, "the table has files");
    for (int i = 0; i < vd_embedded_nfiles; i++) {
        const struct vd_cfg_file *e = &vd_embedded_files[i];
        char norm[1024];
        unsigned char *disk;
        size_t len = 0;
        FILE *f;

        CHECK(!strncmp(e->path, VD_CFG_EMBEDDED "config/", pre + 7), "%s under config/", e->path);
        CHECK(vd_cfg_path_normalize(norm, sizeof(norm), e->path) == 0 && !strcmp(norm, e->path),
              "%s is normalized", e->path);
        CHECK(i == 0 || strcmp(vd_embedded_files[i - 1].path, e->path) < 0, "sorted, unique: %s",
              e->path);
        f = fopen(e->path + pre, "rb");
        CHECK(f != NULL, "%s: on disk as %s: %s", e->path, e->path + pre, strerror(errno));
        if (!f)
            continue;
        disk = slurp(f, &len);
        if (disk && len == e->len && !memcmp(disk, e->data, len))
            same++;
        else
            CHECK(0, "%s: the embedded bytes (%zu) differ from the file on disk (%zu): rebuild",
                  e->path, e->len, len);
        free(disk);
    }
    printf("%d embedded files equal their files on disk\n", same);
}

/* every file of the embedded folders (scripts excepted, as app/CMakeLists.txt) is embedded */
static void test_folders_complete(void)
{
    char dirs[] = VD_EMBED_DIRS, *save = NULL;
    int n = 0;

    for (char *d = strtok_r(dirs, " ;", &save); d; d = strtok_r(NULL, " ;", &save)) {
        char path[512];
        DIR *dp;
        struct dirent *de;

        snprintf(path, sizeof(path), "config/%s", d);
        dp = opendir(path);
        CHECK(dp != NULL, "folder %s", path);
        while (dp && (de = readdir(dp))) {
            char file[1024], emb[1100];
            struct stat st;
            const size_t l = strlen(de->d_name);

            snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
            if (stat(file, &st) || !S_ISREG(st.st_mode) ||
                (l > 3 && !strcmp(de->d_name + l - 3, ".py")))
                continue;
            snprintf(emb, sizeof(emb), VD_CFG_EMBEDDED "%s", file);
            CHECK(vd_cfg_vfs_find(emb) != NULL,
                  "%s is not embedded: rebuild (cmake globs "
                  "the folders)",
                  file);
            n++;
        }
        if (dp)
            closedir(dp);
    }
    CHECK(n == vd_embedded_nfiles, "%d files on disk, %d embedded", n, vd_embedded_nfiles);
}

static void norm_is(const char *in, const char *want)
{
    char out[256];
    int rc = vd_cfg_path_normalize(out, sizeof(out), in);

    CHECK(rc == 0 && !strcmp(out, want), "normalize '%s': '%s', want '%s'", in, rc ? "" : out,
          want);
}

static void test_normalize(void)
{
    char small[8];

    norm_is("<embedded>/config/runs/../scenarios/x.yaml", "<embedded>/config/scenarios/x.yaml");
    norm_is("<embedded>/config/./runs//a.yaml", "<embedded>/config/runs/a.yaml");
    norm_is("<embedded>/config/scenarios/../../config/vehicles/../tires/t.tir",
            "<embedded>/config/tires/t.tir");
    norm_is("<embedded>/../x", "<embedded>/../x"); /* nothing to remove: kept, never found */
    norm_is("a/b/../../c", "c");
    norm_is("../a/./b/", "../a/b");
    norm_is("/x/../../y", "/y");
    norm_is("a/..", ".");
    CHECK(vd_cfg_path_normalize(small, sizeof(small), "<embedded>/abc") == -ENAMETOOLONG,
          "too long");
    CHECK(vd_cfg_is_embedded("<embedded>/x") && !vd_cfg_is_embedded("config/x") &&
              !vd_cfg_is_embedded("<embedded>x"),
          "embedded paths");
}

/* the directory a loader resolves relative includes against */
static void test_dirname(void)
{
    char dir[16], tiny[4];

    CHECK(vd_cfg_dirname(dir, sizeof(dir), "a/b/c.yaml") == dir && !strcmp(dir, "a/b"),
          "dirname a/b/c.yaml: '%s'", dir);
    CHECK(vd_cfg_dirname(dir, sizeof(dir), "/x.yaml") == dir && !strcmp(dir, ""),
          "dirname /x.yaml: '%s'", dir);
    CHECK(vd_cfg_dirname(dir, sizeof(dir), "x.yaml") == NULL && !strcmp(dir, ""),
          "dirname x.yaml: none");
    /* the last '/' of the path, not of a copy cut to the buffer */
    CHECK(vd_cfg_dirname(tiny, sizeof(tiny), "abcdef/g.yaml") == tiny && !strcmp(tiny, "abc"),
          "dirname cut to fit: '%s'", tiny);
    CHECK(vd_cfg_dirname(dir, 0, "a/b") == NULL, "dirname into no room");
}

static void test_fopen(void)
{
    const struct vd_cfg_file *e = vd_cfg_vfs_find("<embedded>/config/runs/default.yaml");
    unsigned char *buf;
    size_t len = 0;
    FILE *f;

    CHECK(e != NULL, "the default run file is embedded");
    if (!e)
        return;
    /* through "dir/../" and "./" */
    f = vd_cfg_fopen("<embedded>/config/scenarios/.././runs/default.yaml", "rb");
    CHECK(f != NULL, "embedded fopen");
    if (f) {
        buf = slurp(f, &len);
        CHECK(buf && len == e->len && !memcmp(buf, e->data, len), "its bytes");
        free(buf);
    }
    errno = 0;
    CHECK(!vd_cfg_fopen("<embedded>/config/runs/nosuch.yaml", "r") && errno == ENOENT,
          "missing embedded file: ENOENT");
    errno = 0;
    CHECK(!vd_cfg_fopen("<embedded>/config/runs/default.yaml", "w") && errno == EROFS,
          "embedded files are read-only: EROFS");
    errno = 0;
    CHECK(!vd_cfg_fopen("<embedded>/config/runs/default.yaml", "r+") && errno == EROFS,
          "r+: EROFS");
    /* disk paths are fopen's */
    f = vd_cfg_fopen("config/runs/default.yaml", "r");
    CHECK(f != NULL, "disk fopen");
    if (f) {
        buf = slurp(f, &len);
        CHECK(buf && len == e->len, "disk bytes");
        free(buf);
    }
    errno = 0;
    CHECK(!vd_cfg_fopen("config/runs/nosuch.yaml", "r") && errno == ENOENT, "disk ENOENT");
    /* without a table nothing is embedded */
    vd_cfg_vfs_register(NULL, 0);
    errno = 0;
    CHECK(!vd_cfg_fopen("<embedded>/config/runs/default.yaml", "r") && errno == ENOENT,
          "no table: ENOENT");
    vd_cfg_vfs_register(vd_embedded_files, vd_embedded_nfiles);
}

/* vd_cfg_read: files in full, NUL-terminated; what is not a regular file within
 * VD_CFG_MAX_FILE is refused before anything is read (a directory said to be one; /dev/zero
 * and a FIFO without a writer, which were read until memory ran out or waited for forever;
 * a sparse file just over the limit) */
static void test_read(void)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char fifo[256], big[256], *text = NULL;
    size_t len = 0;
    FILE *f;

    CHECK(vd_cfg_read("config/models/quarter_car.yaml", &text, &len) == 0 && len > 1000 &&
              text[len] == '\0' && strlen(text) == len,
          "read a disk file: %zu bytes", len);
    free(text);
    CHECK(vd_cfg_read("<embedded>/config/models/quarter_car.yaml", &text, &len) == 0 && len > 1000,
          "read an embedded file");
    free(text);
    CHECK(vd_cfg_read("config", &text, &len) == -EISDIR, "a directory");
    CHECK(!strcmp(vd_cfg_strerror(-EISDIR), "is a directory"), "EISDIR text");
    CHECK(vd_cfg_read("/dev/zero", &text, &len) == -ENODEV, "/dev/zero");
    CHECK(strstr(vd_cfg_strerror(-ENODEV), "not a regular file") != NULL, "ENODEV text");
    CHECK(vd_cfg_fopen("/dev/zero", "r") == NULL && errno == ENODEV, "fopen /dev/zero");
    snprintf(fifo, sizeof(fifo), "%s/rtvd-test-vfs-%d.fifo", dir, (int)getpid());
    unlink(fifo);
    if (mkfifo(fifo, 0600) == 0) {
        CHECK(vd_cfg_read(fifo, &text, &len) == -ENODEV, "a FIFO without a writer");
        unlink(fifo);
    }
    snprintf(big, sizeof(big), "%s/rtvd-test-vfs-%d.big", dir, (int)getpid());
    f = fopen(big, "w");
    if (f) {
        const int fd = fileno(f);

        CHECK(ftruncate(fd, (off_t)VD_CFG_MAX_FILE + 1) == 0, "sparse file");
        fclose(f);
        CHECK(vd_cfg_read(big, &text, &len) == -EFBIG, "a file over VD_CFG_MAX_FILE");
        CHECK(strstr(vd_cfg_strerror(-EFBIG), "larger than 64 MiB") != NULL, "EFBIG text");
        f = fopen(big, "w");
        if (f) {
            CHECK(ftruncate(fileno(f), (off_t)VD_CFG_MAX_FILE) == 0, "sparse file");
            fclose(f);
            CHECK(vd_cfg_read(big, &text, &len) == 0 && len == VD_CFG_MAX_FILE,
                  "a file of VD_CFG_MAX_FILE bytes reads");
            free(text);
        }
        unlink(big);
    }
    CHECK(vd_cfg_read("no/such/file.yaml", &text, &len) == -ENOENT, "missing file");
}

int main(void)
{
    vd_cfg_vfs_register(vd_embedded_files, vd_embedded_nfiles);
    test_table_matches_disk();
    test_folders_complete();
    test_normalize();
    test_dirname();
    test_fopen();
    test_read();
    return vt_report("test_vfs");
}
