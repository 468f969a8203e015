/* io/dbc_parse.c - DBC tokenizer and parser: vd_dbc_load/parse/free (init-time: allocate,
 * read the file, report to a FILE*). The RT-safe lookups and pack/unpack are in io/dbc.c. */
#include "dbc.h"
#include "dbc_priv.h"
#include "core/grow.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- arena: chunks that never move, released together ------------------------------------ */

struct chunk {
    struct chunk *next;
    size_t used, cap;
    max_align_t data[];
};

static void *arena_alloc(struct chunk **head, size_t n)
{
    const size_t a = sizeof(max_align_t);
    struct chunk *c = *head;
    void *p;

    n = (n + a - 1) / a * a;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > 65536 ? n : 65536;

        c = malloc(sizeof(*c) + cap);
        if (!c)
            return NULL;
        c->next = *head;
        c->used = 0;
        c->cap = cap;
        *head = c;
    }
    p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

static void arena_free(struct chunk *c)
{
    while (c) {
        struct chunk *next = c->next;

        free(c);
        c = next;
    }
}

/* ---- tokenizer ------------------------------------------------------------------------------ */

enum tkind { T_EOF, T_ID, T_NUM, T_STR, T_PUNCT };

struct tok {
    int kind;
    const char *s; /* text; strings: contents between the quotes, escapes kept */
    size_t n;
    int line;      /* 1-based */
    int col;       /* 0-based byte column */
    size_t lstart; /* offset of the first byte of the line */
};

/* per-message parse state that does not survive into struct vd_dbc_msg */
struct mextra {
    int sig0;       /* first signal index */
    bool cycle_set; /* BA_ GenMsgCycleTime seen */
    int vff;        /* BA_ VFrameFormat enum index, -1 when not set */
};

#define VFF_MAX 64 /* VFrameFormat enum entries remembered */

struct parser {
    const char *name, *text;
    size_t len, pos, lstart;
    int line;
    FILE *errf;
    unsigned flags; /* VD_DBC_STRICT */
    struct tok t;   /* current token */
    int err;        /* an error was reported */
    struct vd_dbc *db;
    struct chunk *arena;

    struct vd_dbc_msg *msg;
    struct mextra *mx;
    int nmsg, cap_msg, cap_mx;
    struct vd_dbc_sig *sig;
    int *sval0; /* (nsig) first VAL_ entry of each signal */
    int nsig, cap_sig, cap_sval0;
    struct vd_dbc_val *val;
    int nval, cap_val;
    const char **node;
    const char **node_cm; /* (nnode) CM_ BU_ texts */
    int nnode, cap_node, cap_node_cm;
    const char **rx; /* receivers of the SG_ being parsed */
    int cap_rx;
    int cur;    /* message that SG_ lines attach to: index, -1 none, -2 ignored message */
    bool indep; /* VECTOR__INDEPENDENT_SIG_MSG seen and ignored */

    /* attributes */
    bool cyc_def_set;
    double cyc_def;
    unsigned char vff_fd[VFF_MAX]; /* VFrameFormat enum entry names an FD format */
    int vff_n;
    int vff_def;    /* default: enum index, -1 unknown */
    int vff_def_fd; /* default given by name: 0/1, -1 unknown */
};

/* print "name:line: kind: message", the source line and a caret under col */
static void vdiag(struct parser *p, const struct tok *t, const char *kind, const char *fmt,
                  va_list ap)
{
    size_t e;

    if (!p->errf)
        return;
    fprintf(p->errf, "%s:%d: %s: ", p->name, t->line, kind);
    vfprintf(p->errf, fmt, ap);
    fputc('\n', p->errf);
    e = t->lstart;
    while (e < p->len && p->text[e] != '\n' && p->text[e] != '\r' && e - t->lstart < 160)
        e++;
    fprintf(p->errf, " %.*s\n ", (int)(e - t->lstart), p->text + t->lstart);
    for (size_t i = t->lstart; i < t->lstart + (size_t)t->col && i < e; i++)
        fputc(p->text[i] == '\t' ? '\t' : ' ', p->errf);
    fputs("^\n", p->errf);
}

/* report an error at token t; returns -EINVAL */
static int perr(struct parser *p, const struct tok *t, const char *fmt, ...)
{
    va_list ap;

    if (p->err)
        return -EINVAL;
    p->err = 1;
    va_start(ap, fmt);
    vdiag(p, t, "error", fmt, ap);
    va_end(ap);
    return -EINVAL;
}

static void __attribute__((format(printf, 4, 5)))
diag(struct parser *p, const struct tok *t, const char *kind, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vdiag(p, t, kind, fmt, ap);
    va_end(ap);
}

/* a defect that does not change the meaning: a warning and the obvious reading (0), or with
 * VD_DBC_STRICT an error (-EINVAL) */
static int __attribute__((format(printf, 4, 5)))
plenient(struct parser *p, const struct tok *t, const char *reading, const char *fmt, ...)
{
    const bool strict = p->flags & VD_DBC_STRICT;
    char msg[320];
    va_list ap;

    if (strict) {
        if (p->err)
            return -EINVAL;
        p->err = 1;
    } else {
        p->db->nwarn++;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    diag(p, t, strict ? "error" : "warning", strict ? "%s" : "%s (read as %s)", msg, reading);
    return strict ? -EINVAL : 0;
}

static void pnote(struct parser *p, const struct tok *t, const char *fmt, ...)
{
    va_list ap;

    p->db->nnote++;
    va_start(ap, fmt);
    vdiag(p, t, "note", fmt, ap);
    va_end(ap);
}

static int is_idstart(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int is_idchar(int c)
{
    return is_idstart(c) || is_digit(c);
}

/* character at offset i, 0 past the end */
static int at(const struct parser *p, size_t i)
{
    return i < p->len ? (unsigned char)p->text[i] : 0;
}

/* read the next token into p->t; 0 or -EINVAL (reported) */
static int lex(struct parser *p)
{
    struct tok *t = &p->t;
    size_t i = p->pos;
    int c;

    /* whitespace, counting lines */
    for (;;) {
        c = at(p, i);
        if (i >= p->len)
            break;
        if (c == '\n') {
            p->line++;
            p->lstart = i + 1;
        } else if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') {
            break;
        }
        i++;
    }
    t->line = p->line;
    t->lstart = p->lstart;
    t->col = (int)(i - p->lstart);
    t->s = p->text + i;
    t->n = 0;
    if (i >= p->len) {
        t->kind = T_EOF;
        p->pos = i;
        return 0;
    }
    if (is_idstart(c)) {
        size_t j = i;

        while (is_idchar(at(p, j)))
            j++;
        t->kind = T_ID;
        t->n = j - i;
        p->pos = j;
        return 0;
    }
    if (is_digit(c) || (c == '.' && is_digit(at(p, i + 1))) ||
        ((c == '-' || c == '+') &&
         (is_digit(at(p, i + 1)) || (at(p, i + 1) == '.' && is_digit(at(p, i + 2)))))) {
        size_t j = i;

        if (c == '-' || c == '+')
            j++;
        while (is_digit(at(p, j)))
            j++;
        if (at(p, j) == '.') {
            j++;
            while (is_digit(at(p, j)))
                j++;
        }
        if ((at(p, j) == 'e' || at(p, j) == 'E') &&
            (is_digit(at(p, j + 1)) ||
             ((at(p, j + 1) == '-' || at(p, j + 1) == '+') && is_digit(at(p, j + 2))))) {
            j += 2;
            while (is_digit(at(p, j)))
                j++;
        }
        t->kind = T_NUM;
        t->n = j - i;
        p->pos = j;
        if (is_digit(t->s[0]) && is_idchar(at(p, j)) && !is_digit(at(p, j))) {
            /* digits then letters or '_' (a message named 2017_5): a word that starts with a
             * digit; where a name is expected, expect_id says so, where a number is, the
             * number is malformed */
            size_t k = j;

            while (is_idchar(at(p, k)))
                k++;
            t->kind = T_ID;
            t->n = k - i;
            p->pos = k;
            return 0;
        }
        if (is_idchar(at(p, j)) || at(p, j) == '.')
            return perr(p, t, "malformed number '%.*s'", (int)(j - i + 1), t->s);
        return 0;
    }
    if (c == '"') {
        size_t j = i + 1;
        int line = p->line;
        size_t lstart = p->lstart;

        while (j < p->len && p->text[j] != '"') {
            if (p->text[j] == '\\' && j + 1 < p->len)
                j++;
            if (p->text[j] == '\n') {
                line++;
                lstart = j + 1;
            }
            j++;
        }
        if (j >= p->len)
            return perr(p, t, "unterminated string");
        t->kind = T_STR;
        t->s = p->text + i + 1;
        t->n = j - i - 1;
        p->line = line;
        p->lstart = lstart;
        p->pos = j + 1;
        return 0;
    }
    if (strchr(":;|@()[],+-", c)) {
        t->kind = T_PUNCT;
        t->n = 1;
        p->pos = i + 1;
        return 0;
    }
    t->n = 1;
    p->pos = i + 1;
    return perr(p, t, "unexpected character 0x%02X", (unsigned)c);
}

static bool tok_is(const struct tok *t, const char *word)
{
    return t->kind == T_ID && strlen(word) == t->n && !memcmp(t->s, word, t->n);
}

/* string token with exactly this content */
static bool str_is(const struct tok *t, const char *text)
{
    return t->kind == T_STR && strlen(text) == t->n && !memcmp(t->s, text, t->n);
}

static bool tok_punct(const struct tok *t, char c)
{
    return t->kind == T_PUNCT && t->s[0] == c;
}

/* short printable description of a token for messages */
static const char *tok_desc(const struct tok *t, char *buf, size_t n)
{
    if (t->kind == T_EOF)
        return "end of file";
    if (t->kind == T_STR)
        return "a string";
    snprintf(buf, n, "'%.*s'", (int)(t->n > 40 ? 40 : t->n), t->s);
    return buf;
}

static int expected(struct parser *p, const char *what)
{
    char buf[64];

    return perr(p, &p->t, "expected %s, found %s", what, tok_desc(&p->t, buf, sizeof(buf)));
}

static int expect_punct(struct parser *p, char c, const char *what)
{
    if (!tok_punct(&p->t, c))
        return expected(p, what);
    return lex(p);
}

/* copy a NUL-terminated string into the arena; unescape \" and \\ when esc */
static const char *intern(struct parser *p, const char *s, size_t n, bool esc)
{
    char *d = arena_alloc(&p->arena, n + 1);
    size_t k = 0;

    if (!d)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (esc && s[i] == '\\' && i + 1 < n && (s[i + 1] == '"' || s[i + 1] == '\\'))
            i++;
        d[k++] = s[i];
    }
    d[k] = 0;
    return d;
}

static int nomem(struct parser *p)
{
    return perr(p, &p->t, "out of memory");
}

/* identifier into *out (interned); advances */
static int expect_id(struct parser *p, const char *what, const char **out, struct tok *tk)
{
    if (p->t.kind != T_ID)
        return expected(p, what);
    if (is_digit(p->t.s[0]) &&
        plenient(p, &p->t, "that name", "%s '%.*s': a name must not start with a digit", what,
                 (int)p->t.n, p->t.s))
        return -EINVAL;
    if (tk)
        *tk = p->t;
    if (out && !(*out = intern(p, p->t.s, p->t.n, false)))
        return nomem(p);
    return lex(p);
}

static int expect_str(struct parser *p, const char *what, const char **out)
{
    if (p->t.kind != T_STR)
        return expected(p, what);
    if (out && !(*out = intern(p, p->t.s, p->t.n, true)))
        return nomem(p);
    return lex(p);
}

/* unsigned decimal integer <= max */
/* a number was expected: a word that starts with a digit is a malformed one */
static int expected_num(struct parser *p, const char *what)
{
    if (p->t.kind == T_ID && is_digit(p->t.s[0]))
        return perr(p, &p->t, "malformed number '%.*s'", (int)p->t.n, p->t.s);
    return expected(p, what);
}

static int expect_uint(struct parser *p, const char *what, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;

    if (p->t.kind != T_NUM || !is_digit(p->t.s[0]))
        return expected_num(p, what);
    for (size_t i = 0; i < p->t.n; i++) {
        uint64_t d = (uint64_t)(p->t.s[i] - '0');

        if (!is_digit(p->t.s[i]))
            return expected(p, what);
        if (v > max / 10 || v * 10 + d > max)
            return perr(p, &p->t, "%s %.*s out of range [0, %llu]", what, (int)p->t.n, p->t.s,
                        (unsigned long long)max);
        v = v * 10 + d;
    }
    *out = v;
    return lex(p);
}

static int expect_num(struct parser *p, const char *what, double *out)
{
    char buf[80], *end;

    if (p->t.kind != T_NUM)
        return expected_num(p, what);
    if (p->t.n >= sizeof(buf))
        return perr(p, &p->t, "number too long");
    memcpy(buf, p->t.s, p->t.n);
    buf[p->t.n] = 0;
    errno = 0;
    *out = strtod(buf, &end);
    if (*end || !isfinite(*out))
        return perr(p, &p->t, "%s %s is not a finite number", what, buf);
    return lex(p);
}

/* signed 64-bit integer (VAL_ raw values); unsigned values above INT64_MAX keep their bits */
static int expect_int64(struct parser *p, const char *what, int64_t *out)
{
    char buf[80], *end;
    bool neg;

    if (p->t.kind != T_NUM)
        return expected_num(p, what);
    if (p->t.n >= sizeof(buf))
        return perr(p, &p->t, "number too long");
    memcpy(buf, p->t.s, p->t.n);
    buf[p->t.n] = 0;
    neg = buf[0] == '-';
    errno = 0;
    if (neg) {
        long long v = strtoll(buf, &end, 10);

        *out = (int64_t)v;
    } else {
        unsigned long long v = strtoull(buf, &end, 10);

        *out = (int64_t)(uint64_t)v;
    }
    if (*end) {
        /* accept integral decimals such as "3.0" */
        double d = strtod(buf, &end);

        if (*end || d != floor(d) || !(fabs(d) < 0x1p63))
            return perr(p, &p->t, "%s %s is not an integer", what, buf);
        *out = (int64_t)d;
    } else if (errno == ERANGE) {
        return perr(p, &p->t, "%s %s out of range", what, buf);
    }
    return lex(p);
}

/* ---- lookups used while parsing ------------------------------------------------------------ */

static int msg_by_dbc_id(struct parser *p, uint64_t dbcid)
{
    uint32_t id = (uint32_t)(dbcid & 0x1FFFFFFFu);
    bool ext = (dbcid >> 31) & 1;

    for (int i = 0; i < p->nmsg; i++)
        if (p->msg[i].id == id && p->msg[i].ext == ext)
            return i;
    return -1;
}

static int sig_in_msg(struct parser *p, int mi, const char *s, size_t n)
{
    for (int i = p->mx[mi].sig0; i < p->mx[mi].sig0 + p->msg[mi].nsig; i++)
        if (strlen(p->sig[i].name) == n && !memcmp(p->sig[i].name, s, n))
            return i;
    return -1;
}

/* "<id>" reference in CM_/BA_/VAL_/SIG_VALTYPE_ into *mi: 0; 1 when the message does not
 * exist (the ignored VECTOR__INDEPENDENT_SIG_MSG silently, others with a note: real files
 * carry such leftovers) and the caller skips the statement; -EINVAL on syntax errors */
static int ref_msg(struct parser *p, const char *what, int *mi)
{
    uint64_t dbcid;
    struct tok t = p->t;

    if (expect_uint(p, "message id", UINT32_MAX, &dbcid))
        return -EINVAL;
    if (dbcid == 0xC0000000u && p->indep)
        return 1;
    *mi = msg_by_dbc_id(p, dbcid);
    if (*mi >= 0)
        return 0;
    pnote(p, &t, "%s for unknown message id %llu ignored", what, (unsigned long long)dbcid);
    return 1;
}

/* signal name of message mi into *si: 0 (advanced past it); 1 unknown (noted, not advanced) */
static int ref_sig(struct parser *p, const char *what, int mi, int *si)
{
    if (p->t.kind != T_ID)
        return expected(p, "signal name");
    *si = sig_in_msg(p, mi, p->t.s, p->t.n);
    if (*si < 0) {
        pnote(p, &p->t, "%s for unknown signal %.*s of message %s ignored", what, (int)p->t.n,
              p->t.s, p->msg[mi].name);
        return 1;
    }
    return lex(p);
}

/* ---- sections -------------------------------------------------------------------------------- */

static const char *const top_kw[] = {
    "VERSION", "NS_", "BS_", "BU_", "BO_", "SG_", "CM_", "BA_DEF_", "BA_DEF_DEF_", "BA_", "VAL_",
    "SIG_VALTYPE_", "SG_MUL_VAL_", "BO_TX_BU_",
    /* read and ignored */
    "VAL_TABLE_", "BA_DEF_REL_", "BA_REL_", "BA_DEF_DEF_REL_", "BA_DEF_SGTYPE_", "BA_SGTYPE_",
    "EV_", "ENVVAR_DATA_", "SGTYPE_", "SGTYPE_VAL_", "SIG_TYPE_REF_", "SIG_GROUP_",
    "SIGTYPE_VALTYPE_", "CAT_DEF_", "CAT_", "FILTER", "BU_SG_REL_", "BU_EV_REL_", "BU_BO_REL_",
    "NS_DESC_", "EV_DATA_", NULL};

static bool is_top_kw(const struct tok *t)
{
    for (int i = 0; top_kw[i]; i++)
        if (tok_is(t, top_kw[i]))
            return true;
    return false;
}

/* skip a ';'-terminated statement; a keyword in column 0 before the ';' is an error */
static int skip_statement(struct parser *p, const struct tok *kw)
{
    while (!tok_punct(&p->t, ';')) {
        if (p->t.kind == T_EOF || (p->t.col == 0 && is_top_kw(&p->t)))
            return perr(p, &p->t, "expected ';' to end the %.*s started at line %d", (int)kw->n,
                        kw->s, kw->line);
        if (lex(p))
            return -EINVAL;
    }
    return lex(p);
}

/* NS_ : <names in indented lines> */
static int parse_ns(struct parser *p)
{
    if (expect_punct(p, ':', "':' after NS_"))
        return -EINVAL;
    while (p->t.kind == T_ID && p->t.col > 0)
        if (lex(p))
            return -EINVAL;
    return 0;
}

/* BS_: [baudrate : btr1 , btr2] on one line */
static int parse_bs(struct parser *p)
{
    int line = p->t.line;

    if (expect_punct(p, ':', "':' after BS_"))
        return -EINVAL;
    while (p->t.kind != T_EOF && p->t.line == line)
        if (lex(p))
            return -EINVAL;
    return 0;
}

/* BU_: names on the same line or on indented lines */
static int parse_bu(struct parser *p)
{
    int line = p->t.line;

    if (expect_punct(p, ':', "':' after BU_"))
        return -EINVAL;
    while (p->t.kind == T_ID && (p->t.line == line || p->t.col > 0) && !is_top_kw(&p->t)) {
        if (vd_grow((void **)&p->node, &p->cap_node, p->nnode, sizeof(*p->node)) ||
            vd_grow((void **)&p->node_cm, &p->cap_node_cm, p->nnode, sizeof(*p->node_cm)))
            return nomem(p);
        p->node_cm[p->nnode] = NULL;
        if (expect_id(p, "node name", &p->node[p->nnode], NULL))
            return -EINVAL;
        p->nnode++;
    }
    return 0;
}

/* BO_ <id> <name> : <length> <transmitter> */
static int parse_bo(struct parser *p, const struct tok *kw)
{
    struct vd_dbc_msg *m;
    uint64_t dbcid, len;
    struct tok tid = p->t, tname, tlen;
    const char *name, *tx;

    if (expect_uint(p, "message id", UINT32_MAX, &dbcid))
        return -EINVAL;
    if (p->t.kind != T_ID)
        return expected(p, "message name");
    tname = p->t;
    if (expect_id(p, "message name", &name, NULL) || expect_punct(p, ':', "':' after message name"))
        return -EINVAL;
    tlen = p->t;
    if (expect_uint(p, "message length", VD_DBC_MAX_LEN, &len))
        return -EINVAL;
    /* a frame has a CAN (0..8) or CAN FD (12..64) data length: any other is never sent */
    if (len > 8 && len != 12 && len != 16 && len != 20 && len != 24 && len != 32 && len != 48 &&
        len != 64)
        return perr(p, &tlen,
                    "message %s: length %llu is no CAN (0..8) or CAN FD (12, 16, 20, 24, 32, 48, "
                    "64) data length",
                    name, (unsigned long long)len);
    if (p->t.kind != T_ID || p->t.line != kw->line)
        return expected(p, "transmitter node name");
    if (expect_id(p, "transmitter", &tx, NULL))
        return -EINVAL;

    /* the pseudo message of signals not mapped to a frame */
    if (dbcid == 0xC0000000u && !strcmp(name, "VECTOR__INDEPENDENT_SIG_MSG")) {
        pnote(p, kw, "message VECTOR__INDEPENDENT_SIG_MSG (unmapped signals) ignored");
        p->cur = -2;
        p->indep = true;
        return 0;
    }
    if (!(dbcid & 0x80000000u) && dbcid > 0x7FFu && dbcid <= 0x1FFFFFFFu) {
        if (plenient(p, &tid, "a 29-bit id",
                     "message %s: id 0x%llX is above 0x7FF without the extended flag (bit 31)",
                     name, (unsigned long long)dbcid))
            return -EINVAL;
        dbcid |= 0x80000000u;
    }
    if ((dbcid & 0x80000000u) ? (dbcid & 0x60000000u) : dbcid > 0x7FFu)
        return perr(p, &tid, "message %s: id %llu is neither an 11-bit id nor bit 31 + a 29-bit id",
                    name, (unsigned long long)dbcid);
    if (msg_by_dbc_id(p, dbcid) >= 0) {
        int o = msg_by_dbc_id(p, dbcid);

        return perr(p, &tid, "message %s: duplicate id 0x%X%s (message %s, line %d)", name,
                    p->msg[o].id, p->msg[o].ext ? " (extended)" : "", p->msg[o].name,
                    p->msg[o].line);
    }
    for (int i = 0; i < p->nmsg; i++)
        if (!strcmp(p->msg[i].name, name))
            return perr(p, &tname, "duplicate message name %s (first at line %d)", name,
                        p->msg[i].line);
    if (vd_grow((void **)&p->msg, &p->cap_msg, p->nmsg, sizeof(*p->msg)) ||
        vd_grow((void **)&p->mx, &p->cap_mx, p->nmsg, sizeof(*p->mx)))
        return nomem(p);
    m = &p->msg[p->nmsg];
    memset(m, 0, sizeof(*m));
    m->name = name;
    m->transmitter = tx;
    m->ntx = 1;
    m->tx = arena_alloc(&p->arena, sizeof(*m->tx));
    if (!m->tx)
        return nomem(p);
    *(const char **)m->tx = tx;
    m->id = (uint32_t)(dbcid & 0x1FFFFFFFu);
    m->ext = (dbcid >> 31) & 1;
    m->len = (uint8_t)len;
    m->line = kw->line;
    p->mx[p->nmsg].sig0 = p->nsig;
    p->mx[p->nmsg].cycle_set = false;
    p->mx[p->nmsg].vff = -1;
    p->cur = p->nmsg++;
    return 0;
}

/* bit layout of a signal from start/size/order; 0 or error */
static int sig_layout(struct parser *p, const struct tok *t, struct vd_dbc_sig *s, int len)
{
    int first, last; /* Intel: LSB0 linear bits; Motorola: MSB0 linear bits */

    if (s->order == VD_DBC_INTEL) {
        first = s->start;
        last = s->start + s->size - 1;
        s->pos = s->start;
        s->lsb = s->start;
    } else {
        first = s->start / 8 * 8 + 7 - s->start % 8;
        last = first + s->size - 1;
        s->pos = (uint16_t)first;
        s->lsb = (uint16_t)(last / 8 * 8 + 7 - last % 8);
    }
    if (last >= 8 * len)
        return perr(p, t, "signal %s: bits %d..%d (%s) exceed the %d-byte frame", s->name, s->start,
                    s->order == VD_DBC_INTEL ? last : s->lsb,
                    s->order == VD_DBC_INTEL ? "Intel" : "Motorola", len);
    s->byte_lo = (uint8_t)(first / 8);
    s->byte_hi = (uint8_t)(last / 8);
    return 0;
}

/* raw range and range-check slack of an integer signal */
static void sig_ranges(struct vd_dbc_sig *s)
{
    if (s->is_signed) {
        s->raw_lo = -ldexp(1.0, s->size - 1);
        s->raw_hi = ldexp(1.0, s->size - 1);
    } else {
        s->raw_lo = 0.0;
        s->raw_hi = ldexp(1.0, s->size);
    }
    /* min/max are decimals: allow a millionth of a raw step plus double rounding of the
     * magnitudes involved, so raw * factor + offset at a limit is never rejected */
    s->tol = 1e-6 * fabs(s->factor) + 1e-12 * (fabs(s->min) + fabs(s->max) + fabs(s->offset));
}

/* SG_ <name> [M|m<n>|m<n>M] : <start>|<size>@<order><sign> (<factor>,<offset>)
 *     [<min>|<max>] "<unit>" <receiver>{,<receiver>} */
static int parse_sg(struct parser *p, const struct tok *kw)
{
    struct vd_dbc_sig s;
    struct tok tname = p->t, tmux, tsz;
    uint64_t start, size, order;
    int line, nrx = 0;
    const char **rx;

    memset(&s, 0, sizeof(s));
    s.line = kw->line;
    if (p->cur == -1)
        return perr(p, kw, "SG_ outside a message (no BO_ before it)");
    if (expect_id(p, "signal name", &s.name, NULL))
        return -EINVAL;
    if (p->t.kind == T_ID) {
        const char *m = p->t.s;
        size_t n = p->t.n;

        tmux = p->t;
        if (n == 1 && m[0] == 'M') {
            s.mux = VD_DBC_MUX_SWITCH;
        } else if (n >= 2 && m[0] == 'm' && is_digit(m[1])) {
            size_t i = 1;
            uint64_t v = 0;

            while (i < n && is_digit(m[i]) && v <= UINT32_MAX)
                v = v * 10 + (uint64_t)(m[i++] - '0');
            if (v > UINT32_MAX || (i < n && !(i + 1 == n && m[i] == 'M')))
                return perr(p, &tmux, "signal %s: bad multiplexer indicator '%.*s'", s.name, (int)n,
                            m);
            s.mux = VD_DBC_MUXED;
            s.mux_val = (uint32_t)v;
            if (i < n) {
                pnote(p, &tmux,
                      "signal %s: extended multiplexing '%.*s' read as plain 'm%u' (message %s)",
                      s.name, (int)n, m, s.mux_val, p->cur >= 0 ? p->msg[p->cur].name : "-");
                if (p->cur >= 0)
                    p->msg[p->cur].ext_mux = true;
            }
        } else {
            return perr(p, &tmux, "signal %s: bad multiplexer indicator '%.*s'", s.name, (int)n, m);
        }
        if (lex(p))
            return -EINVAL;
    }
    if (expect_punct(p, ':', "':' after signal name") ||
        expect_uint(p, "start bit", 8 * VD_DBC_MAX_LEN - 1, &start) ||
        expect_punct(p, '|', "'|' after start bit"))
        return -EINVAL;
    tsz = p->t;
    if (expect_uint(p, "signal size", 64, &size) || expect_punct(p, '@', "'@' after size"))
        return -EINVAL;
    if (size == 0)
        return perr(p, &tsz, "signal %s: size 0", s.name);
    if (p->t.kind != T_NUM || p->t.n != 1 || (p->t.s[0] != '0' && p->t.s[0] != '1'))
        return expected(p, "byte order 0 (Motorola) or 1 (Intel) after '@'");
    order = (uint64_t)(p->t.s[0] - '0');
    if (lex(p))
        return -EINVAL;
    if (tok_punct(&p->t, '+'))
        s.is_signed = false;
    else if (tok_punct(&p->t, '-'))
        s.is_signed = true;
    else
        return expected(p, "'+' or '-' after byte order");
    if (lex(p) || expect_punct(p, '(', "'(' before factor") || expect_num(p, "factor", &s.factor) ||
        expect_punct(p, ',', "',' after factor") || expect_num(p, "offset", &s.offset) ||
        expect_punct(p, ')', "')' after offset") || expect_punct(p, '[', "'[' before minimum") ||
        expect_num(p, "minimum", &s.min) || expect_punct(p, '|', "'|' after minimum") ||
        expect_num(p, "maximum", &s.max) || expect_punct(p, ']', "']' after maximum"))
        return -EINVAL;
    line = p->t.line;
    if (expect_str(p, "unit string", &s.unit))
        return -EINVAL;

    /* receivers: names on the unit's line, separated by ',' or blanks */
    while ((p->t.kind == T_ID || tok_punct(&p->t, ',')) && p->t.line == line) {
        if (p->t.kind == T_ID) {
            if (vd_grow((void **)&p->rx, &p->cap_rx, nrx, sizeof(*p->rx)))
                return nomem(p);
            if (expect_id(p, "receiver", &p->rx[nrx], NULL))
                return -EINVAL;
            nrx++;
        } else if (lex(p)) {
            return -EINVAL;
        }
    }
    rx = arena_alloc(&p->arena, (size_t)(nrx ? nrx : 1) * sizeof(*rx));
    if (!rx)
        return nomem(p);
    if (nrx)
        memcpy(rx, p->rx, (size_t)nrx * sizeof(*rx));
    s.rx = rx;
    s.nrx = nrx;

    if (p->cur == -2)
        return 0; /* signal of an ignored message */
    s.start = (uint16_t)start;
    s.size = (uint8_t)size;
    s.order = (uint8_t)order;
    s.vtype = VD_DBC_INT;
    if (s.factor == 0.0)
        return perr(p, &tname, "signal %s: factor 0", s.name);
    if (sig_layout(p, &tname, &s, p->msg[p->cur].len))
        return -EINVAL;
    if (sig_in_msg(p, p->cur, s.name, strlen(s.name)) >= 0)
        return perr(p, &tname, "signal %s: duplicate in message %s", s.name, p->msg[p->cur].name);
    sig_ranges(&s);
    if (vd_grow((void **)&p->sig, &p->cap_sig, p->nsig, sizeof(*p->sig)) ||
        vd_grow((void **)&p->sval0, &p->cap_sval0, p->nsig, sizeof(*p->sval0)))
        return nomem(p);
    p->sig[p->nsig] = s;
    p->sval0[p->nsig] = 0;
    p->nsig++;
    p->msg[p->cur].nsig++;
    return 0;
}

/* CM_ [BU_ <node> | BO_ <id> | SG_ <id> <signal> | EV_ <var>] "<text>" ; */
static int parse_cm(struct parser *p, const struct tok *kw)
{
    const char **dst = NULL;
    int mi, si, rc;

    if (tok_is(&p->t, "BO_")) {
        if (lex(p) || (rc = ref_msg(p, "CM_ BO_", &mi)) < 0)
            return -EINVAL;
        if (rc > 0)
            return skip_statement(p, kw);
        dst = &p->msg[mi].comment;
    } else if (tok_is(&p->t, "SG_")) {
        if (lex(p) || (rc = ref_msg(p, "CM_ SG_", &mi)) < 0)
            return -EINVAL;
        if (rc > 0 || (rc = ref_sig(p, "CM_ SG_", mi, &si)) > 0)
            return skip_statement(p, kw);
        if (rc < 0)
            return -EINVAL;
        dst = &p->sig[si].comment;
    } else if (tok_is(&p->t, "BU_")) {
        int ni = -1;

        if (lex(p))
            return -EINVAL;
        if (p->t.kind != T_ID)
            return expected(p, "node name");
        for (int i = 0; i < p->nnode; i++)
            if (strlen(p->node[i]) == p->t.n && !memcmp(p->node[i], p->t.s, p->t.n))
                ni = i;
        if (ni < 0) {
            pnote(p, &p->t, "CM_ BU_ for unknown node %.*s ignored", (int)p->t.n, p->t.s);
            return skip_statement(p, kw);
        }
        dst = &p->node_cm[ni];
        if (lex(p))
            return -EINVAL;
    } else if (tok_is(&p->t, "EV_")) {
        /* environment-variable comments are counted, not kept */
        if (lex(p) || expect_id(p, "name", NULL, NULL))
            return -EINVAL;
    } else if (p->t.kind != T_STR) {
        return expected(p, "BU_, BO_, SG_, EV_ or a string after CM_");
    } else {
        dst = &p->db->comment;
    }
    if (expect_str(p, "comment string", dst))
        return -EINVAL;
    /* a comment the next statement follows without its ';' (on a later line) */
    if (!tok_punct(&p->t, ';') && (p->t.kind == T_EOF || is_top_kw(&p->t)) &&
        p->t.line > kw->line) {
        if (plenient(p, kw, "ending at its closing quote", "CM_ without ';' at its end"))
            return -EINVAL;
    } else if (expect_punct(p, ';', "';' after comment")) {
        return -EINVAL;
    }
    p->db->ncomment++;
    return 0;
}

/* BA_DEF_ [BU_|BO_|SG_|EV_] "<name>" <type> ... ; GenMsgCycleTime and VFrameFormat kept */
static int parse_ba_def(struct parser *p, const struct tok *kw)
{
    bool bo = tok_is(&p->t, "BO_");
    struct tok tn;

    if (tok_is(&p->t, "BU_") || bo || tok_is(&p->t, "SG_") || tok_is(&p->t, "EV_"))
        if (lex(p))
            return -EINVAL;
    if (p->t.kind != T_STR)
        return expected(p, "attribute name string");
    tn = p->t;
    if (lex(p))
        return -EINVAL;
    if (bo && str_is(&tn, "VFrameFormat") && tok_is(&p->t, "ENUM")) {
        p->vff_n = 0;
        if (lex(p))
            return -EINVAL;
        while (p->t.kind == T_STR) {
            if (p->vff_n < VFF_MAX)
                p->vff_fd[p->vff_n++] = p->t.n >= 3 && !memcmp(p->t.s + p->t.n - 3, "_FD", 3);
            if (lex(p) || (tok_punct(&p->t, ',') && lex(p)))
                return -EINVAL;
        }
    }
    return skip_statement(p, kw);
}

/* BA_DEF_DEF_ "<name>" <value> ; */
static int parse_ba_def_def(struct parser *p)
{
    struct tok tn;

    if (p->t.kind != T_STR)
        return expected(p, "attribute name string");
    tn = p->t;
    if (lex(p))
        return -EINVAL;
    if (str_is(&tn, "GenMsgCycleTime")) {
        struct tok tv = p->t;

        if (expect_num(p, "GenMsgCycleTime default", &p->cyc_def))
            return -EINVAL;
        if (p->cyc_def < 0 || p->cyc_def > INT32_MAX)
            return perr(p, &tv, "GenMsgCycleTime default %g out of range", p->cyc_def);
        p->cyc_def_set = true;
    } else if (str_is(&tn, "VFrameFormat")) {
        if (p->t.kind == T_STR) {
            p->vff_def_fd = p->t.n >= 3 && !memcmp(p->t.s + p->t.n - 3, "_FD", 3);
            if (lex(p))
                return -EINVAL;
        } else {
            uint64_t v;

            if (expect_uint(p, "VFrameFormat default", VFF_MAX - 1, &v))
                return -EINVAL;
            p->vff_def = (int)v;
        }
    } else if (p->t.kind == T_NUM || p->t.kind == T_STR) {
        if (lex(p))
            return -EINVAL;
    } else {
        return expected(p, "attribute default value");
    }
    return expect_punct(p, ';', "';' after attribute default");
}

/* BA_ "<name>" [BU_ <node> | BO_ <id> | SG_ <id> <sig> | EV_ <var>] <value> ; */
static int parse_ba(struct parser *p, const struct tok *kw)
{
    struct tok tn, tv;
    int mi, rc;

    if (p->t.kind != T_STR)
        return expected(p, "attribute name string");
    tn = p->t;
    if (lex(p))
        return -EINVAL;
    if (!tok_is(&p->t, "BO_") || !(str_is(&tn, "GenMsgCycleTime") || str_is(&tn, "VFrameFormat")))
        return skip_statement(p, kw);
    if (lex(p) || (rc = ref_msg(p, "BA_", &mi)) < 0)
        return -EINVAL;
    if (rc > 0)
        return skip_statement(p, kw);
    tv = p->t;
    if (str_is(&tn, "GenMsgCycleTime")) {
        double v;

        if (expect_num(p, "GenMsgCycleTime", &v))
            return -EINVAL;
        if (v < 0 || v > INT32_MAX)
            return perr(p, &tv, "message %s: GenMsgCycleTime %g out of range", p->msg[mi].name, v);
        p->msg[mi].cycle_ms = (int32_t)lround(v);
        p->mx[mi].cycle_set = true;
    } else {
        uint64_t v;

        if (expect_uint(p, "VFrameFormat", VFF_MAX - 1, &v))
            return -EINVAL;
        p->mx[mi].vff = (int)v;
    }
    return expect_punct(p, ';', "';' after attribute value");
}

/* VAL_ <id> <signal> {<raw> "<text>"} ; (VAL_ <env-var> ... ; is ignored) */
static int parse_val(struct parser *p, const struct tok *kw)
{
    int mi, si, rc, v0 = p->nval;

    if (p->t.kind == T_ID) {
        pnote(p, kw, "value table of environment variable %.*s ignored", (int)p->t.n, p->t.s);
        return skip_statement(p, kw);
    }
    if ((rc = ref_msg(p, "VAL_", &mi)) < 0)
        return -EINVAL;
    if (rc > 0 || (rc = ref_sig(p, "VAL_", mi, &si)) > 0)
        return skip_statement(p, kw);
    if (rc < 0)
        return -EINVAL;
    if (p->sig[si].nval)
        return perr(p, kw, "VAL_: second value table for signal %s of message %s", p->sig[si].name,
                    p->msg[mi].name);
    while (p->t.kind == T_NUM) {
        struct vd_dbc_val *v;

        if (vd_grow((void **)&p->val, &p->cap_val, p->nval, sizeof(*p->val)))
            return nomem(p);
        v = &p->val[p->nval];
        if (expect_int64(p, "raw value", &v->raw) || expect_str(p, "value text", &v->text))
            return -EINVAL;
        p->nval++;
    }
    if (expect_punct(p, ';', "raw value or ';' in VAL_"))
        return -EINVAL;
    p->sval0[si] = v0;
    p->sig[si].nval = p->nval - v0;
    return 0;
}

/* BO_TX_BU_ <id> : <node>{,<node>} ; adds transmitters */
static int parse_bo_tx_bu(struct parser *p, const struct tok *kw)
{
    struct vd_dbc_msg *m;
    int mi, rc, n;

    if ((rc = ref_msg(p, "BO_TX_BU_", &mi)) < 0)
        return -EINVAL;
    if (rc > 0)
        return skip_statement(p, kw);
    if (expect_punct(p, ':', "':' after message id"))
        return -EINVAL;
    m = &p->msg[mi];
    n = m->ntx;
    if (vd_grow((void **)&p->rx, &p->cap_rx, n, sizeof(*p->rx)))
        return nomem(p);
    memcpy(p->rx, m->tx, (size_t)n * sizeof(*p->rx));
    while (!tok_punct(&p->t, ';')) {
        bool dup = false;

        if (tok_punct(&p->t, ',')) {
            if (lex(p))
                return -EINVAL;
            continue;
        }
        if (p->t.kind != T_ID)
            return expected(p, "transmitter node name or ';'");
        for (int i = 0; i < n; i++)
            dup |= strlen(p->rx[i]) == p->t.n && !memcmp(p->rx[i], p->t.s, p->t.n);
        if (dup) {
            if (lex(p))
                return -EINVAL;
            continue;
        }
        if (vd_grow((void **)&p->rx, &p->cap_rx, n, sizeof(*p->rx)))
            return nomem(p);
        if (expect_id(p, "transmitter", &p->rx[n], NULL))
            return -EINVAL;
        n++;
    }
    m->tx = arena_alloc(&p->arena, (size_t)n * sizeof(*m->tx));
    if (!m->tx)
        return nomem(p);
    memcpy((void *)m->tx, p->rx, (size_t)n * sizeof(*m->tx));
    m->ntx = n;
    return lex(p);
}

/* SIG_VALTYPE_ <id> <signal> [:] <0|1|2> ; */
static int parse_valtype(struct parser *p, const struct tok *kw)
{
    struct vd_dbc_sig *s;
    struct tok tv;
    uint64_t v;
    int mi, si, rc;

    if ((rc = ref_msg(p, "SIG_VALTYPE_", &mi)) < 0)
        return -EINVAL;
    if (rc > 0 || (rc = ref_sig(p, "SIG_VALTYPE_", mi, &si)) > 0)
        return skip_statement(p, kw);
    if (rc < 0)
        return -EINVAL;
    if (tok_punct(&p->t, ':') && lex(p))
        return -EINVAL;
    tv = p->t;
    if (expect_uint(p, "value type", 2, &v))
        return -EINVAL;
    s = &p->sig[si];
    if ((v == 1 && s->size != 32) || (v == 2 && s->size != 64))
        return perr(p, &tv, "signal %s: value type %d needs size %d, not %d", s->name, (int)v,
                    v == 1 ? 32 : 64, s->size);
    s->vtype = (uint8_t)v;
    return expect_punct(p, ';', "';' after value type");
}

static int parse_top(struct parser *p)
{
    while (p->t.kind != T_EOF) {
        struct tok kw = p->t;
        int rc;

        if (kw.kind != T_ID)
            return expected(p, "a keyword");
        if (lex(p))
            return -EINVAL;
        if (tok_is(&kw, "VERSION"))
            rc = expect_str(p, "version string", &p->db->version);
        else if (tok_is(&kw, "NS_"))
            rc = parse_ns(p);
        else if (tok_is(&kw, "BS_"))
            rc = parse_bs(p);
        else if (tok_is(&kw, "BU_"))
            rc = parse_bu(p);
        else if (tok_is(&kw, "BO_"))
            rc = parse_bo(p, &kw);
        else if (tok_is(&kw, "SG_"))
            rc = parse_sg(p, &kw);
        else if (tok_is(&kw, "CM_"))
            rc = parse_cm(p, &kw);
        else if (tok_is(&kw, "BA_DEF_"))
            rc = parse_ba_def(p, &kw);
        else if (tok_is(&kw, "BA_DEF_DEF_"))
            rc = parse_ba_def_def(p);
        else if (tok_is(&kw, "BA_"))
            rc = parse_ba(p, &kw);
        else if (tok_is(&kw, "VAL_"))
            rc = parse_val(p, &kw);
        else if (tok_is(&kw, "SIG_VALTYPE_"))
            rc = parse_valtype(p, &kw);
        else if (tok_is(&kw, "BO_TX_BU_"))
            rc = parse_bo_tx_bu(p, &kw);
        else if (tok_is(&kw, "SG_MUL_VAL_")) {
            pnote(p, &kw, "extended multiplexing (SG_MUL_VAL_) ignored");
            rc = skip_statement(p, &kw);
        } else if (is_top_kw(&kw)) {
            rc = skip_statement(p, &kw);
        } else {
            return perr(p, &kw, "unknown keyword '%.*s'", (int)kw.n, kw.s);
        }
        if (rc)
            return -EINVAL;
        /* anything but SG_ ends the message that SG_ lines attach to */
        if (!tok_is(&kw, "SG_") && !tok_is(&kw, "BO_"))
            p->cur = -1;
    }
    return 0;
}

/* ---- finalize: multiplexing, attribute defaults, arrays into the database ----------------- */

static int cmp_idx(const void *a, const void *b)
{
    const struct vd_dbc_idx *x = a, *y = b;

    return x->key < y->key ? -1 : x->key > y->key;
}

/* the bits of a signal in a frame of VD_DBC_MAX_LEN bytes */
static void sig_bits(uint8_t *mask, const struct vd_dbc_sig *s)
{
    memset(mask, 0, VD_DBC_MAX_LEN);
    vd_dbc_set_raw(mask, s, s->size >= 64 ? ~0ull : (1ull << s->size) - 1);
}

/* signals of message m (p->sig[s0, s0 + m->nsig), switch sw or -1) that share bits while both
 * are in the frame: a multiplexed signal over its own multiplexor is an error (the switch
 * would no longer select it); any other overlap a warning (VD_DBC_STRICT: an error), both
 * signals marked (overlaps) so that the mapping refuses to send them */
static int check_overlaps(struct parser *p, struct vd_dbc_msg *m, int s0, int sw)
{
    uint8_t a[VD_DBC_MAX_LEN], b[VD_DBC_MAX_LEN];

    for (int k = s0; k < s0 + m->nsig; k++) {
        struct vd_dbc_sig *s = &p->sig[k];

        sig_bits(a, s);
        for (int j = s0; j < k; j++) {
            struct vd_dbc_sig *o = &p->sig[j];
            bool shared = false;

            /* multiplexed signals of different groups are never in one frame */
            if (s->mux == VD_DBC_MUXED && o->mux == VD_DBC_MUXED && s->mux_val != o->mux_val)
                continue;
            sig_bits(b, o);
            for (int x = 0; x < VD_DBC_MAX_LEN; x++)
                shared |= (a[x] & b[x]) != 0;
            if (!shared)
                continue;
            if ((s->mux == VD_DBC_MUXED && j == sw) || (o->mux == VD_DBC_MUXED && k == sw)) {
                const struct vd_dbc_sig *mx = s->mux == VD_DBC_MUXED ? s : o;

                if (p->errf)
                    fprintf(p->errf,
                            "%s:%d: error: signal %s (m%u, %u|%u) overlaps the multiplexor %s "
                            "(%u|%u) of message %s: the switch would no longer select it\n",
                            p->name, mx->line, mx->name, mx->mux_val, mx->start, mx->size,
                            p->sig[sw].name, p->sig[sw].start, p->sig[sw].size, m->name);
                return -EINVAL;
            }
            s->overlaps = o->overlaps = true;
            if (p->errf)
                fprintf(p->errf,
                        "%s:%d: %s: signals %s and %s of message %s share bits: both are read, "
                        "neither can be sent\n",
                        p->name, s->line, p->flags & VD_DBC_STRICT ? "error" : "warning", o->name,
                        s->name, m->name);
            if (p->flags & VD_DBC_STRICT)
                return -EINVAL;
            p->db->nwarn++;
        }
    }
    return 0;
}

static int finalize(struct parser *p)
{
    struct vd_dbc *db = p->db;
    const char **nodes, **node_cm;

    for (int i = 0; i < p->nmsg; i++) {
        struct vd_dbc_msg *m = &p->msg[i];
        int s0 = p->mx[i].sig0, sw = -1;

        /* multiplexor switch: first 'M'; a second one means extended multiplexing */
        for (int k = s0; k < s0 + m->nsig; k++) {
            if (p->sig[k].mux != VD_DBC_MUX_SWITCH)
                continue;
            if (sw < 0) {
                sw = k;
            } else {
                m->ext_mux = true;
                p->sig[k].mux = VD_DBC_PLAIN;
                p->db->nnote++;
                if (p->errf)
                    fprintf(p->errf,
                            "%s:%d: note: signal %s: second multiplexor of message %s read as "
                            "a plain signal\n",
                            p->name, p->sig[k].line, p->sig[k].name, m->name);
            }
        }
        if (sw >= 0 && p->sig[sw].vtype != VD_DBC_INT) {
            if (p->errf)
                fprintf(p->errf, "%s:%d: error: multiplexor %s is a float signal\n", p->name,
                        p->sig[sw].line, p->sig[sw].name);
            return -EINVAL;
        }
        for (int k = s0; k < s0 + m->nsig; k++) {
            struct vd_dbc_sig *s = &p->sig[k];

            if (s->mux != VD_DBC_MUXED)
                continue;
            if (sw < 0 || (p->sig[sw].size < 64 && s->mux_val >> p->sig[sw].size)) {
                if (p->errf)
                    fprintf(p->errf,
                            sw < 0 ? "%s:%d: error: signal %s: multiplexed (m%u) but message "
                                     "%s has no multiplexor (M)\n"
                                   : "%s:%d: error: signal %s: multiplexer value %u does not "
                                     "fit the switch of message %s\n",
                            p->name, s->line, s->name, s->mux_val, m->name);
                return -EINVAL;
            }
        }

        if (check_overlaps(p, m, s0, sw))
            return -EINVAL;

        /* attribute defaults */
        if (!p->mx[i].cycle_set && p->cyc_def_set)
            m->cycle_ms = (int32_t)lround(p->cyc_def);
        if (p->mx[i].vff >= 0)
            m->fd = p->mx[i].vff < p->vff_n && p->vff_fd[p->mx[i].vff];
        else if (p->vff_def_fd >= 0)
            m->fd = p->vff_def_fd;
        else if (p->vff_def >= 0)
            m->fd = p->vff_def < p->vff_n && p->vff_fd[p->vff_def];
        if (m->len > 8)
            m->fd = true;
        m->sigs = m->nsig ? p->sig + s0 : NULL;
        m->mux = sw >= 0 ? &p->sig[sw] : NULL;
    }
    for (int k = 0; k < p->nsig; k++)
        p->sig[k].vals = p->sig[k].nval ? p->val + p->sval0[k] : NULL;

    nodes = arena_alloc(&p->arena, (size_t)(p->nnode ? p->nnode : 1) * sizeof(*nodes));
    node_cm = arena_alloc(&p->arena, (size_t)(p->nnode ? p->nnode : 1) * sizeof(*node_cm));
    db->idx_ = malloc((size_t)(p->nmsg ? p->nmsg : 1) * sizeof(*db->idx_));
    if (!nodes || !node_cm || !db->idx_)
        return -ENOMEM;
    if (p->nnode) {
        memcpy(nodes, p->node, (size_t)p->nnode * sizeof(*nodes));
        memcpy(node_cm, p->node_cm, (size_t)p->nnode * sizeof(*node_cm));
    }
    for (int i = 0; i < p->nmsg; i++) {
        db->idx_[i].key = p->msg[i].id | (uint32_t)p->msg[i].ext << 31;
        db->idx_[i].msg = i;
    }
    qsort(db->idx_, (size_t)p->nmsg, sizeof(*db->idx_), cmp_idx);

    /* hand the arrays over */
    db->msg_ = p->msg;
    db->sig_ = p->sig;
    db->val_ = p->val;
    db->msgs = p->msg;
    db->nmsg = p->nmsg;
    db->nsig = p->nsig;
    db->nval = p->nval;
    db->nodes = nodes;
    db->node_cm = node_cm;
    db->nnode = p->nnode;
    p->msg = NULL;
    p->sig = NULL;
    p->val = NULL;
    return 0;
}

struct vd_dbc *vd_dbc_parse(const char *name, const char *text, size_t len, FILE *errf)
{
    return vd_dbc_parse_opts(name, text, len, 0, errf);
}

struct vd_dbc *vd_dbc_parse_opts(const char *name, const char *text, size_t len, unsigned flags,
                                 FILE *errf)
{
    struct parser p;
    struct vd_dbc *db = calloc(1, sizeof(*db));
    int rc;

    memset(&p, 0, sizeof(p));
    if (!db)
        return NULL;
    p.name = name ? name : "<dbc>";
    p.text = text;
    p.len = text ? len : 0;
    p.line = 1;
    p.errf = errf;
    p.flags = flags;
    p.db = db;
    p.cur = -1;
    p.vff_def = -1;
    p.vff_def_fd = -1;
    db->version = "";

    /* UTF-8 byte order mark */
    if (p.len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        p.pos = p.lstart = 3;
    if (!(db->name = intern(&p, p.name, strlen(p.name), false)))
        goto out_free;
    if (lex(&p) || parse_top(&p))
        goto out_free;
    rc = finalize(&p);
    if (rc) {
        if (rc == -ENOMEM && errf)
            fprintf(errf, "%s: error: out of memory\n", p.name);
        goto out_free;
    }
    free(p.mx);
    free(p.sval0);
    free(p.node);
    free(p.node_cm);
    free(p.rx);
    db->arena_ = p.arena;
    return db;

out_free:
    free(p.msg);
    free(p.mx);
    free(p.sig);
    free(p.sval0);
    free(p.val);
    free(p.node);
    free(p.node_cm);
    free(p.rx);
    free(db->idx_);
    arena_free(p.arena);
    free(db);
    errno = EINVAL;
    return NULL;
}

struct vd_dbc *vd_dbc_load(const char *path, FILE *errf)
{
    return vd_dbc_load_opts(path, 0, errf);
}

struct vd_dbc *vd_dbc_load_opts(const char *path, unsigned flags, FILE *errf)
{
    struct vd_dbc *db = NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    /* non-blocking open: a FIFO without a writer is refused below, not waited for */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    struct stat st;
    int e;

    if (!f) {
        e = errno;
        if (fd >= 0)
            close(fd);
        if (errf)
            fprintf(errf, "%s: error: %s\n", path, strerror(e));
        errno = e;
        return NULL;
    }
    /* a regular file within the limit: a directory, /dev/zero or a FIFO is refused */
    e = fstat(fileno(f), &st)                              ? errno
        : S_ISDIR(st.st_mode)                              ? EISDIR
        : !S_ISREG(st.st_mode)                             ? ENODEV
        : (unsigned long long)st.st_size > VD_DBC_MAX_FILE ? EFBIG
                                                           : 0;
    if (!e && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
        e = errno;
    if (e) {
        fclose(f);
        if (errf)
            fprintf(errf, "%s: error: %s\n", path,
                    e == EISDIR   ? "is a directory"
                    : e == ENODEV ? "is not a regular file (a device, FIFO or socket)"
                    : e == EFBIG  ? "is larger than 64 MiB (VD_DBC_MAX_FILE)"
                                  : strerror(e));
        errno = e;
        return NULL;
    }
    /* whole file into memory */
    for (;;) {
        size_t got;

        if (cap - n < 65536) {
            char *nb = realloc(buf, cap + 65536 + cap / 2);

            if (!nb) {
                e = ENOMEM;
                goto out_close;
            }
            buf = nb;
            cap += 65536 + cap / 2;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
        if (n > VD_DBC_MAX_FILE) { /* a file that grew since the check */
            e = EFBIG;
            goto out_close;
        }
    }
    if (ferror(f)) {
        e = EIO;
        goto out_close;
    }
    fclose(f);
    db = vd_dbc_parse_opts(path, buf, n, flags, errf);
    e = errno;
    free(buf);
    errno = e;
    return db;

out_close:
    fclose(f);
    free(buf);
    if (errf)
        fprintf(errf, "%s: error: %s\n", path, strerror(e));
    errno = e;
    return NULL;
}

void vd_dbc_free(struct vd_dbc *db)
{
    if (!db)
        return;
    free(db->msg_);
    free(db->sig_);
    free(db->val_);
    free(db->idx_);
    arena_free(db->arena_);
    free(db);
}
