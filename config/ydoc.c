/* config/ydoc.c - YAML document, located diagnostics and typed node readers. */
#include "ydoc.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct vd_ydoc *vd_ydoc_new(const char *name, const char *text, size_t len)
{
    struct vd_ydoc *y = calloc(1, sizeof(*y));

    if (!y)
        return NULL;
    y->name = name;
    y->text = text;
    y->len = len;
    return y;
}

void vd_ydoc_free(struct vd_ydoc *y)
{
    if (!y)
        return;
    if (y->loaded)
        yaml_document_delete(&y->doc);
    free(y);
}

static void verror(struct vd_ydoc *y, yaml_mark_t at, const char *fmt, va_list ap)
{
    struct vd_ydiag *dg;

    if (y->nerr++ >= VD_YDOC_MAX_ERR)
        return;
    dg = &y->diag[y->nerr - 1];
    dg->line = at.line;
    dg->col = at.column;
    vsnprintf(dg->msg, sizeof(dg->msg), fmt, ap);
}

void vd_ydoc_error_mark(struct vd_ydoc *y, yaml_mark_t at, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    verror(y, at, fmt, ap);
    va_end(ap);
}

void vd_ydoc_error(struct vd_ydoc *y, const yaml_node_t *at, const char *fmt, ...)
{
    yaml_mark_t mark = {0, 0, 0};
    va_list ap;

    if (at)
        mark = at->start_mark;
    va_start(ap, fmt);
    verror(y, mark, fmt, ap);
    va_end(ap);
}

int vd_ydoc_errors(const struct vd_ydoc *y)
{
    return y->nerr;
}

/* length of the line break at text[i], 0 if none ("\r\n" is one break, as in YAML) */
static size_t line_break(const char *text, size_t len, size_t i)
{
    if (text[i] == '\n')
        return 1;
    if (text[i] == '\r')
        return i + 1 < len && text[i + 1] == '\n' ? 2 : 1;
    return 0;
}

/* mark of a byte offset (libyaml's reader errors carry only the offset) */
static yaml_mark_t mark_of_offset(const struct vd_ydoc *y, size_t off)
{
    yaml_mark_t mk = {0, 0, 0};
    size_t i = 0;

    while (i < off && i < y->len) {
        size_t br = line_break(y->text, y->len, i);

        if (br) {
            mk.line++;
            mk.column = 0;
            i += br;
        } else {
            /* columns count characters: skip UTF-8 continuation bytes */
            if (((unsigned char)y->text[i] & 0xC0) != 0x80)
                mk.column++;
            i++;
        }
    }
    mk.index = off;
    return mk;
}

static int syntax_error(struct vd_ydoc *y, const yaml_parser_t *p)
{
    yaml_mark_t at = p->problem_mark;
    const char *problem = p->problem ? p->problem : "syntax error";

    switch (p->error) {
    case YAML_MEMORY_ERROR:
        return -ENOMEM;
    case YAML_READER_ERROR:
        at = mark_of_offset(y, p->problem_offset);
        if (p->problem_value != -1)
            vd_ydoc_error_mark(y, at, "%s (byte 0x%02x)", problem, (unsigned)p->problem_value);
        else
            vd_ydoc_error_mark(y, at, "%s", problem);
        return -EINVAL;
    default:
        if (p->context)
            vd_ydoc_error_mark(y, at, "%s (%s at line %lu)", problem, p->context,
                               (unsigned long)p->context_mark.line + 1);
        else
            vd_ydoc_error_mark(y, at, "%s", problem);
        return -EINVAL;
    }
}

/* the nesting of the collections on libyaml's event stream: 0, -EINVAL (too deep or a
 * syntax error, recorded) or -ENOMEM. Stopping at VD_YDOC_MAX_DEPTH bounds the scanner's
 * per-token work, so this pass is linear too */
static int check_depth(struct vd_ydoc *y)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    int depth = 0, rc = 0;
    bool done = false;

    if (!yaml_parser_initialize(&parser))
        return -ENOMEM;
    yaml_parser_set_input_string(&parser, (const unsigned char *)y->text, y->len);
    while (!done) {
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = syntax_error(y, &parser);
            break;
        }
        switch (ev.type) {
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (++depth > VD_YDOC_MAX_DEPTH) {
                vd_ydoc_error_mark(y, ev.start_mark,
                                   "collections nested deeper than %d levels (a config file "
                                   "needs a handful)",
                                   VD_YDOC_MAX_DEPTH);
                rc = -EINVAL;
                done = true;
            }
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return rc;
}

int vd_ydoc_parse(struct vd_ydoc *y)
{
    yaml_parser_t parser;
    yaml_document_t extra;
    yaml_node_t *root;
    int rc;

    rc = check_depth(y);
    if (rc)
        return rc;
    if (!yaml_parser_initialize(&parser))
        return -ENOMEM;
    yaml_parser_set_input_string(&parser, (const unsigned char *)y->text, y->len);
    if (!yaml_parser_load(&parser, &y->doc)) {
        rc = syntax_error(y, &parser);
        goto out_delete_parser;
    }
    y->loaded = true;
    root = yaml_document_get_root_node(&y->doc);
    if (!root) {
        vd_ydoc_error_mark(y, y->doc.start_mark, "empty document");
        rc = -EINVAL;
        goto out_delete_parser;
    }
    /* one document per file: a second one is an error, not silently ignored */
    if (!yaml_parser_load(&parser, &extra)) {
        rc = syntax_error(y, &parser);
        goto out_delete_parser;
    }
    if (yaml_document_get_root_node(&extra)) {
        vd_ydoc_error_mark(y, extra.start_mark, "a second YAML document (one per file)");
        rc = -EINVAL;
    }
    yaml_document_delete(&extra);
out_delete_parser:
    yaml_parser_delete(&parser);
    return rc;
}

yaml_node_t *vd_ydoc_root(struct vd_ydoc *y)
{
    return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;
}

/* print text line `line` (0-based) and a caret under character `col`; nothing past the end */
static void print_source(const struct vd_ydoc *y, FILE *f, unsigned long line, unsigned long col)
{
    size_t i = 0, end;
    unsigned long l = 0, c = 0;

    while (l < line && i < y->len) {
        size_t br = line_break(y->text, y->len, i);

        i += br ? br : 1;
        l += br ? 1 : 0;
    }
    if (l < line)
        return; /* past the end; a mark just after the last line break shows an empty line */
    if (line == 0 && y->len >= 3 && !memcmp(y->text, "\xEF\xBB\xBF", 3))
        i = 3; /* libyaml does not count the byte-order mark as a column */
    end = i;
    while (end < y->len && !line_break(y->text, y->len, end))
        end++;
    /* a long line: a window of VD_YDOC_CONTEXT characters around the column, at character
     * boundaries, "..." where it is cut (an error on a 20 MB line prints 100 characters) */
    {
        size_t from = i, to = end, k, nchar = 0;
        unsigned long first = 0; /* characters before from */
        bool cut_left = false, cut_right = false;

        for (k = i; k < end; k++)
            nchar += ((unsigned char)y->text[k] & 0xC0) != 0x80;
        if (nchar > VD_YDOC_CONTEXT) {
            const unsigned long half = VD_YDOC_CONTEXT / 2;

            first = col > half ? col - half : 0;
            if (first + VD_YDOC_CONTEXT > nchar)
                first = (unsigned long)(nchar - VD_YDOC_CONTEXT);
            /* from: the start of character `first`; to: VD_YDOC_CONTEXT characters on */
            for (k = i, c = 0; k < end; k++) {
                if (((unsigned char)y->text[k] & 0xC0) == 0x80)
                    continue;
                if (c == first)
                    break;
                c++;
            }
            from = k;
            for (c = 0; k < end; k++) {
                if (((unsigned char)y->text[k] & 0xC0) == 0x80)
                    continue;
                if (c == VD_YDOC_CONTEXT)
                    break;
                c++;
            }
            to = k;
            cut_left = from > i;
            cut_right = to < end;
        }
        fprintf(f, "  %s%.*s%s\n  %s", cut_left ? "..." : "", (int)(to - from), y->text + from,
                cut_right ? "..." : "", cut_left ? "   " : "");
        /* one space per character before the caret; tabs kept so the caret lines up */
        c = first;
        for (k = from; k < to && c < col; k++) {
            if (((unsigned char)y->text[k] & 0xC0) == 0x80)
                continue;
            fputc(y->text[k] == '\t' ? '\t' : ' ', f);
            c++;
        }
        for (; c < col; c++)
            fputc(' ', f);
        fputs("^\n", f);
    }
}

void vd_ydoc_print(const struct vd_ydoc *y, FILE *f)
{
    int n = y->nerr < VD_YDOC_MAX_ERR ? y->nerr : VD_YDOC_MAX_ERR;
    int order[VD_YDOC_MAX_ERR];

    /* source order; stable insertion sort keeps discovery order on one position */
    for (int i = 0; i < n; i++) {
        int j = i;
        const struct vd_ydiag *d = &y->diag[i];

        while (j > 0 &&
               (y->diag[order[j - 1]].line > d->line ||
                (y->diag[order[j - 1]].line == d->line && y->diag[order[j - 1]].col > d->col))) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    for (int i = 0; i < n; i++) {
        const struct vd_ydiag *d = &y->diag[order[i]];

        fprintf(f, "%s:%lu:%lu: error: %s\n", y->name, d->line + 1, d->col + 1, d->msg);
        print_source(y, f, d->line, d->col);
    }
    if (y->nerr > n)
        fprintf(f, "%s: note: %d more errors not shown\n", y->name, y->nerr - n);
}

/* a path cut at VD_YPATH_MAX ends in "..." */
static void mark_truncated(char buf[VD_YPATH_MAX], int n)
{
    if (n >= VD_YPATH_MAX)
        memcpy(buf + VD_YPATH_MAX - 4, "...", 4);
}

void vd_ypath(char buf[VD_YPATH_MAX], const char *parent, const char *key)
{
    int n;

    if (!key || !*key)
        n = snprintf(buf, VD_YPATH_MAX, "%s", parent ? parent : "");
    else if (parent && *parent)
        n = snprintf(buf, VD_YPATH_MAX, "%s.%s", parent, key);
    else
        n = snprintf(buf, VD_YPATH_MAX, "%s", key);
    mark_truncated(buf, n);
}

void vd_ypath_index(char buf[VD_YPATH_MAX], const char *parent, int i)
{
    mark_truncated(buf, snprintf(buf, VD_YPATH_MAX, "%s[%d]", parent, i));
}

static const char *scalar_text(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

static bool is_null(const yaml_node_t *n)
{
    const char *s = scalar_text(n);

    return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
            !strcmp(s, "NULL"));
}

/* what a node is, for "expected X, got Y" */
static const char *describe(const yaml_node_t *n, char *buf, size_t size)
{
    switch (n->type) {
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a sequence";
    case YAML_SCALAR_NODE:
        if (is_null(n))
            return "null";
        if (n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
            n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE)
            snprintf(buf, size, "the string \"%.40s%s\"", scalar_text(n),
                     n->data.scalar.length > 40 ? "..." : "");
        else
            snprintf(buf, size, "'%.40s%s'", scalar_text(n),
                     n->data.scalar.length > 40 ? "..." : "");
        return buf;
    default:
        return "nothing";
    }
}

static const char *key_of(const struct vd_ykey *k)
{
    return k ? k->key : "";
}

/* " in PATH" or " at the top level" */
static void where(char *buf, size_t size, const char *path)
{
    if (path && *path)
        snprintf(buf, size, " in %s", path);
    else
        snprintf(buf, size, " at the top level");
}

int vd_ydoc_map(struct vd_ydoc *y, const yaml_node_t *node, const char *path,
                const struct vd_ykey *keys, int nkeys, yaml_node_t **vals)
{
    const yaml_node_t *keynode[VD_YMAP_MAX];
    char desc[64], in[VD_YPATH_MAX + 24];
    int e0 = y->nerr;

    for (int k = 0; k < nkeys; k++)
        vals[k] = NULL;
    for (int k = 0; k < VD_YMAP_MAX; k++)
        keynode[k] = NULL;
    where(in, sizeof(in), path);
    if (nkeys > VD_YMAP_MAX) {
        vd_ydoc_error(y, node, "%s: internal: key table larger than VD_YMAP_MAX", path);
        return -EINVAL;
    }
    if (node->type != YAML_MAPPING_NODE) {
        vd_ydoc_error(y, node, "%s: expected a mapping, got %s", *path ? path : "document",
                      describe(node, desc, sizeof(desc)));
        return -EINVAL;
    }
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
         p++) {
        yaml_node_t *kn = yaml_document_get_node(&y->doc, p->key);
        int k;

        if (kn->type != YAML_SCALAR_NODE) {
            vd_ydoc_error(y, kn, "expected a plain key%s, got %s", in,
                          describe(kn, desc, sizeof(desc)));
            continue;
        }
        for (k = 0; k < nkeys; k++)
            if (!strcmp(keys[k].key, scalar_text(kn)))
                break;
        if (k == nkeys) {
            char list[VD_YDOC_MSG_MAX / 2];
            size_t used = 0;

            list[0] = '\0';
            for (int j = 0; j < nkeys && used < sizeof(list); j++)
                used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", j ? ", " : "",
                                         keys[j].key);
            vd_ydoc_error(y, kn, "unknown key '%s'%s (expected one of: %s)", scalar_text(kn), in,
                          list);
            continue;
        }
        if (keynode[k]) {
            vd_ydoc_error(y, kn, "%s%sduplicate key '%s' (first at line %lu)", path,
                          *path ? ": " : "", keys[k].key,
                          (unsigned long)keynode[k]->start_mark.line + 1);
            continue;
        }
        keynode[k] = kn;
        vals[k] = yaml_document_get_node(&y->doc, p->value);
    }
    for (int k = 0; k < nkeys; k++)
        if ((keys[k].flags & VD_YK_REQUIRED) && !vals[k])
            vd_ydoc_error(y, node, "missing required key '%s'%s", keys[k].key, in);
    return y->nerr == e0 ? 0 : -EINVAL;
}

int vd_ydoc_seq(struct vd_ydoc *y, const yaml_node_t *node, const char *path, int min, int *n)
{
    char desc[64];

    *n = 0;
    if (node->type != YAML_SEQUENCE_NODE) {
        vd_ydoc_error(y, node, "%s: expected a sequence, got %s", path,
                      describe(node, desc, sizeof(desc)));
        return -EINVAL;
    }
    *n = (int)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (*n < min) {
        vd_ydoc_error(y, node, "%s: expected at least %d item%s, got %d", path, min,
                      min == 1 ? "" : "s", *n);
        return -EINVAL;
    }
    return 0;
}

yaml_node_t *vd_ydoc_item(struct vd_ydoc *y, const yaml_node_t *seq, int i)
{
    return yaml_document_get_node(&y->doc, seq->data.sequence.items.start[i]);
}

/* YAML 1.2 core-schema ints and floats, plus exponents without a dot (1e7) */
bool vd_ydoc_scalar_number(const yaml_node_t *node, double *out)
{
    const char *s, *p;
    int nd = 0;

    if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    s = p = scalar_text(node);
    if (*p == '+' || *p == '-')
        p++;
    if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF")) {
        *out = *s == '-' ? -INFINITY : INFINITY;
        return true;
    }
    if (p == s && (!strcmp(p, ".nan") || !strcmp(p, ".NaN") || !strcmp(p, ".NAN"))) {
        *out = NAN;
        return true;
    }
    for (; *p >= '0' && *p <= '9'; p++)
        nd++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            nd++;
    if (!nd)
        return false;
    if (*p == 'e' || *p == 'E') {
        int ne = 0;

        p++;
        if (*p == '+' || *p == '-')
            p++;
        for (; *p >= '0' && *p <= '9'; p++)
            ne++;
        if (!ne)
            return false;
    }
    if (*p)
        return false;
    *out = strtod(s, NULL);
    return true;
}

static void range_text(char *buf, size_t size, const struct vd_ykey *k)
{
    bool lo = isfinite(k->lo), hi = isfinite(k->hi);
    bool lo_open = k->flags & VD_YK_LO_OPEN, hi_open = k->flags & VD_YK_HI_OPEN;

    if (lo && hi)
        snprintf(buf, size, "out of range %c%g, %g%c", lo_open ? '(' : '[', k->lo, k->hi,
                 hi_open ? ')' : ']');
    else if (lo)
        snprintf(buf, size, "must be %s %g", lo_open ? ">" : ">=", k->lo);
    else
        snprintf(buf, size, "must be %s %g", hi_open ? "<" : "<=", k->hi);
}

/* the text of a number for a message: at most 40 characters, "..." where it is cut (a
 * number of hundreds of digits cut the message off before its reason) */
static const char *number_text(const yaml_node_t *n, char *buf, size_t size)
{
    snprintf(buf, size, "%.40s%s", scalar_text(n), n->data.scalar.length > 40 ? "..." : "");
    return buf;
}

/* read one number at full path `path`, range-checked against k (may be NULL) */
static int number_at(struct vd_ydoc *y, const yaml_node_t *node, const char *path,
                     const struct vd_ykey *k, double *out)
{
    char desc[64], range[64], num[48];
    double v;

    if (!vd_ydoc_scalar_number(node, &v)) {
        vd_ydoc_error(y, node, "%s: expected a number, got %s", path,
                      describe(node, desc, sizeof(desc)));
        return -EINVAL;
    }
    if (!isfinite(v)) {
        vd_ydoc_error(y, node, "%s: %s is not finite%s", path, number_text(node, num, sizeof(num)),
                      node->data.scalar.length > 40 ? " (beyond the range of a double)" : "");
        return -EINVAL;
    }
    if (k && ((k->flags & VD_YK_LO_OPEN ? !(v > k->lo) : !(v >= k->lo)) ||
              (k->flags & VD_YK_HI_OPEN ? !(v < k->hi) : !(v <= k->hi)))) {
        range_text(range, sizeof(range), k);
        vd_ydoc_error(y, node, "%s: %s %s%s%s", path, number_text(node, num, sizeof(num)), range,
                      k->unit && *k->unit && strcmp(k->unit, "-") ? " " : "",
                      k->unit && *k->unit && strcmp(k->unit, "-") ? k->unit : "");
        return -EINVAL;
    }
    *out = v;
    return 0;
}

int vd_ydoc_number(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                   const struct vd_ykey *k, double *out)
{
    char path[VD_YPATH_MAX];

    if (!node)
        return 0;
    vd_ypath(path, parent, key_of(k));
    return number_at(y, node, path, k, out);
}

int vd_ydoc_int(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                const struct vd_ykey *k, int *out)
{
    char path[VD_YPATH_MAX], desc[64];
    const char *s;
    char *end;
    long v;

    if (!node)
        return 0;
    vd_ypath(path, parent, key_of(k));
    s = node->type == YAML_SCALAR_NODE ? scalar_text(node) : "";
    errno = 0;
    v = strtol(s, &end, 10);
    if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        !*s || *end || s[0] == ' ' || errno || v < INT_MIN || v > INT_MAX) {
        vd_ydoc_error(y, node, "%s: expected an integer, got %s", path,
                      describe(node, desc, sizeof(desc)));
        return -EINVAL;
    }
    if (number_at(y, node, path, k, &(double){0}))
        return -EINVAL;
    *out = (int)v;
    return 0;
}

int vd_ydoc_vec(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                const struct vd_ykey *k, int nmin, int nmax, double *out, int *n)
{
    char path[VD_YPATH_MAX], ipath[VD_YPATH_MAX], desc[64];
    int cnt, e0 = y->nerr;

    if (!node)
        return 0;
    vd_ypath(path, parent, key_of(k));
    if (node->type != YAML_SEQUENCE_NODE) {
        vd_ydoc_error(y, node, "%s: expected a sequence of %d numbers, got %s", path, nmin,
                      describe(node, desc, sizeof(desc)));
        return -EINVAL;
    }
    cnt = (int)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (cnt < nmin || cnt > nmax) {
        if (nmin == nmax)
            vd_ydoc_error(y, node, "%s: expected %d numbers, got %d", path, nmin, cnt);
        else
            vd_ydoc_error(y, node, "%s: expected %d to %d numbers, got %d", path, nmin, nmax, cnt);
        return -EINVAL;
    }
    for (int i = 0; i < cnt; i++) {
        vd_ypath_index(ipath, path, i);
        number_at(y, vd_ydoc_item(y, node, i), ipath, k, &out[i]);
    }
    if (n)
        *n = cnt;
    return y->nerr == e0 ? 0 : -EINVAL;
}

int vd_ydoc_string(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                   const struct vd_ykey *k, char *buf, size_t size)
{
    char path[VD_YPATH_MAX], desc[64];

    if (!node)
        return 0;
    vd_ypath(path, parent, key_of(k));
    if (node->type != YAML_SCALAR_NODE || is_null(node)) {
        vd_ydoc_error(y, node, "%s: expected a string, got %s", path,
                      describe(node, desc, sizeof(desc)));
        return -EINVAL;
    }
    if (node->data.scalar.length >= size) {
        vd_ydoc_error(y, node, "%s: '%.40s...' is too long (at most %zu characters)", path,
                      scalar_text(node), size - 1);
        return -EINVAL;
    }
    memcpy(buf, scalar_text(node), node->data.scalar.length + 1);
    return 0;
}

int vd_ydoc_enum(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                 const struct vd_ykey *k, const char *const *names, int n, int *out)
{
    char path[VD_YPATH_MAX], desc[64], list[VD_YDOC_MSG_MAX / 2];
    size_t used = 0;

    if (!node)
        return 0;
    vd_ypath(path, parent, key_of(k));
    if (node->type == YAML_SCALAR_NODE) {
        for (int i = 0; i < n; i++) {
            if (!strcmp(scalar_text(node), names[i])) {
                *out = i;
                return 0;
            }
        }
    }
    list[0] = '\0';
    for (int i = 0; i < n && used < sizeof(list); i++)
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? ", " : "", names[i]);
    vd_ydoc_error(y, node, "%s: %s %s (expected one of: %s)", path,
                  node->type == YAML_SCALAR_NODE ? "unknown value" : "expected a name, got",
                  describe(node, desc, sizeof(desc)), list);
    return -EINVAL;
}

/* a table's x and y are of different quantities (deflection and force, time and speed):
 * they get a magnitude bound in SI units here, the callers the physical ranges they know */
static const struct vd_ykey table_value = VD_YKEY_RANGE("", 0, NULL, -1e12, 1e12);

int vd_ydoc_table(struct vd_ydoc *y, const yaml_node_t *node, const char *parent,
                  const struct vd_ykey *k, int nmin, double **x, double **yv, int *n)
{
    char path[VD_YPATH_MAX], ipath[VD_YPATH_MAX];
    int cnt, e0 = y->nerr;

    *x = *yv = NULL;
    *n = 0;
    vd_ypath(path, parent, key_of(k));
    if (node->type != YAML_SEQUENCE_NODE) {
        char desc[64];

        vd_ydoc_error(y, node, "%s: expected a table [[x, y], ...], got %s", path,
                      describe(node, desc, sizeof(desc)));
        return -EINVAL;
    }
    cnt = (int)(node->data.sequence.items.top - node->data.sequence.items.start);
    if (cnt < nmin) {
        vd_ydoc_error(y, node, "%s: table needs at least %d points, got %d", path, nmin, cnt);
        return -EINVAL;
    }
    *x = calloc((size_t)cnt, sizeof(double));
    *yv = calloc((size_t)cnt, sizeof(double));
    if (!*x || !*yv) {
        vd_ydoc_error(y, node, "%s: out of memory", path);
        return -ENOMEM;
    }
    for (int i = 0; i < cnt; i++) {
        const yaml_node_t *pt = vd_ydoc_item(y, node, i);
        double xy[2];

        vd_ypath_index(ipath, path, i);
        if (pt->type != YAML_SEQUENCE_NODE ||
            pt->data.sequence.items.top - pt->data.sequence.items.start != 2) {
            vd_ydoc_error(y, pt, "%s: expected a point [x, y]", ipath);
            continue;
        }
        for (int c = 0; c < 2; c++) {
            char cpath[VD_YPATH_MAX];

            vd_ypath_index(cpath, ipath, c);
            if (number_at(y, vd_ydoc_item(y, pt, c), cpath, &table_value, &xy[c]))
                xy[c] = 0.0;
        }
        (*x)[i] = xy[0];
        (*yv)[i] = xy[1];
    }
    if (y->nerr != e0)
        return -EINVAL;
    for (int i = 1; i < cnt; i++) {
        if (!((*x)[i] > (*x)[i - 1])) {
            vd_ydoc_error(y, node, "%s: table x not strictly increasing at point %d (%g after %g)",
                          path, i, (*x)[i], (*x)[i - 1]);
            return -EINVAL;
        }
    }
    *n = cnt;
    return 0;
}
