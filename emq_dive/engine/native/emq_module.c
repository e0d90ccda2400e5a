/*
 * emq_module.c: the EchoMQ native twin, EMQ.EXTEND and EMQ.EXTENDS, as a
 * Redis/Valkey server module.
 *
 *   EMQ.EXTENDS 2 <queue>active <queue> lease_ms [id token]...
 *       re-scores every live lease to now + lease_ms under one clock read and
 *       replies the ids it could not extend, in input order.
 *   EMQ.EXTEND 2 <queue>active <queue>job:<id> lease_ms id token
 *       re-scores one lease and replies 1, or the error of the check that
 *       refused it.
 *
 * Its semantics, check order, reply shapes and error texts are those of
 * emq_dive/echo_mq/native.py; the trailing @markers name the same steps.
 *
 * The module API is reached the documented way: the first word of the
 * context handed to RedisModule_OnLoad is the server's GetApi function, which
 * resolves each "RedisModule_<Name>" to a function pointer. Only the handful
 * of functions and constants used here are declared, from the public module
 * API reference; Valkey registers the same names, so one binary loads in both.
 */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef EMQ_SCRATCH_LIBC
#include <stdlib.h>
#endif

/* ---- the slice of the module API this file uses ------------------------ */

typedef struct RedisModuleCtx RedisModuleCtx;
typedef struct RedisModuleString RedisModuleString;
typedef struct RedisModuleKey RedisModuleKey;
typedef struct RedisModuleCallReply RedisModuleCallReply;
typedef struct RedisModuleUser RedisModuleUser;
typedef struct RedisModuleServerInfoData RedisModuleServerInfoData;
typedef int (*RedisModuleCmdFunc)(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

enum {
    RM_OK = 0,
    RM_APIVER_1 = 1,
    RM_READ = 1 << 0,
    RM_KEYTYPE_EMPTY = 0,
    RM_KEYTYPE_HASH = 3,
    RM_KEYTYPE_ZSET = 5,
    RM_REPLY_ERROR = 1,
    RM_HASH_NONE = 0,
    RM_CTX_FLAGS_LUA = 1 << 0,
};

static struct {
    void (*SetModuleAttribs)(RedisModuleCtx *, const char *, int, int);
    int (*IsModuleNameBusy)(const char *);
    int (*CreateCommand)(RedisModuleCtx *, const char *, RedisModuleCmdFunc, const char *, int, int, int);
    void *(*Alloc)(size_t);
    void (*Free)(void *);
    int (*ReplyWithError)(RedisModuleCtx *, const char *);
    int (*ReplyWithArray)(RedisModuleCtx *, long);
    int (*ReplyWithString)(RedisModuleCtx *, RedisModuleString *);
    int (*ReplyWithLongLong)(RedisModuleCtx *, long long);
    const char *(*StringPtrLen)(const RedisModuleString *, size_t *);
    RedisModuleString *(*CreateString)(RedisModuleCtx *, const char *, size_t);
    void (*FreeString)(RedisModuleCtx *, RedisModuleString *);
    RedisModuleKey *(*OpenKey)(RedisModuleCtx *, RedisModuleString *, int);
    void (*CloseKey)(RedisModuleKey *);
    int (*KeyType)(RedisModuleKey *);
    int (*HashGet)(RedisModuleKey *, int, ...);
    int (*ZsetScore)(RedisModuleKey *, RedisModuleString *, double *);
    RedisModuleCallReply *(*Call)(RedisModuleCtx *, const char *, const char *, ...);
    int (*CallReplyType)(RedisModuleCallReply *);
    void (*FreeCallReply)(RedisModuleCallReply *);
    long long (*Milliseconds)(void);
    long long (*CachedMicroseconds)(void); /* Redis 7.2+ and Valkey; absent in 7.0 */
    RedisModuleServerInfoData *(*GetServerInfo)(RedisModuleCtx *, const char *);
    const char *(*ServerInfoGetFieldC)(RedisModuleServerInfoData *, const char *);
    void (*FreeServerInfo)(RedisModuleCtx *, RedisModuleServerInfoData *);
    unsigned long long (*GetClientId)(RedisModuleCtx *);
    RedisModuleString *(*GetClientUserNameById)(RedisModuleCtx *, uint64_t);
    RedisModuleString *(*GetCurrentUserName)(RedisModuleCtx *);
    int (*GetContextFlags)(RedisModuleCtx *);
    RedisModuleUser *(*GetModuleUserFromUserName)(RedisModuleString *);
    int (*ACLCheckCommandPermissions)(RedisModuleUser *, RedisModuleString **, int); /* Redis 7.0+ */
    int (*FreeModuleUser)(RedisModuleUser *);
} rm;

#define API(name) {"RedisModule_" #name, &rm.name}

static const struct {
    const char *name;
    void *slot;
} required_api[] = {
    API(SetModuleAttribs), API(CreateCommand), API(Alloc), API(Free),
    API(ReplyWithError), API(ReplyWithArray), API(ReplyWithString), API(ReplyWithLongLong),
    API(StringPtrLen), API(CreateString), API(FreeString),
    API(OpenKey), API(CloseKey), API(KeyType), API(HashGet), API(ZsetScore),
    API(Call), API(CallReplyType), API(FreeCallReply), API(Milliseconds),
    API(GetServerInfo), API(ServerInfoGetFieldC), API(FreeServerInfo),
    API(GetClientId), API(GetClientUserNameById), API(GetCurrentUserName), API(GetContextFlags),
    API(GetModuleUserFromUserName), API(ACLCheckCommandPermissions), API(FreeModuleUser),
};

/* The module's own scratch memory goes through the server allocator so it is
 * counted in used_memory; a sanitizer build swaps in libc so AddressSanitizer
 * can see the bounds and the lifetime of every buffer this file allocates. */
#ifdef EMQ_SCRATCH_LIBC
#define scratch_alloc(n) malloc(n)
#define scratch_free(p) free(p)
#else
#define scratch_alloc(n) rm.Alloc(n)
#define scratch_free(p) rm.Free(p)
#endif

/* ---- shared state -------------------------------------------------------- */

#define WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"
#define ACTIVE_SUFFIX "active"
#define ROW_INFIX "job:"

static RedisModuleString *attempts_field; /* "attempts", made once at load */
/* The rest of the commands the permission checks ask about, made once at load. */
static RedisModuleString *hget_name, *hset_name, *epoch_field, *probe_value;
static char run_id[64];                   /* the server's run_id, fixed for the process */
static size_t run_id_len;

/* ---- small helpers ------------------------------------------------------- */

typedef struct {
    const char *ptr;
    size_t len;
} bytes;

static bytes arg(RedisModuleString *s) {
    bytes b;
    b.ptr = rm.StringPtrLen(s, &b.len);
    return b;
}

static int bytes_eq(bytes a, bytes b) {
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

static int reply_error(RedisModuleCtx *ctx, const char *verb, const char *what) {
    char text[128];
    snprintf(text, sizeof text, "ERR %s %s", verb, what);
    return rm.ReplyWithError(ctx, text);
}

static int reply_noperm(RedisModuleCtx *ctx, const char *verb, int write) {
    char text[128];
    snprintf(text, sizeof text, "NOPERM %s may not %s a job row", verb, write ? "write" : "read");
    return rm.ReplyWithError(ctx, text);
}

/* Exactly [1-9][0-9]* with a value that fits int64; anything else is refused. */
static int parse_lease(bytes b, long long *out) {
    if (b.len == 0 || b.ptr[0] < '1' || b.ptr[0] > '9') return 0;
    unsigned long long value = 0;
    for (size_t i = 0; i < b.len; i++) {
        if (b.ptr[i] < '0' || b.ptr[i] > '9') return 0;
        unsigned digit = (unsigned)(b.ptr[i] - '0');
        if (value > ((unsigned long long)INT64_MAX - digit) / 10) return 0;
        value = value * 10 + digit;
    }
    *out = (long long)value;
    return 1;
}

/* One read of the server clock for the whole command. Redis 7.0 has no
 * cached-time API, so there the single read is Milliseconds(). */
static long long now_ms(void) {
    if (rm.CachedMicroseconds) return rm.CachedMicroseconds() / 1000;
    return rm.Milliseconds();
}

/* Fetches the run_id once: it is fixed for the life of the server process. */
static int load_run_id(void) {
    if (run_id_len) return 1;
    RedisModuleServerInfoData *info = rm.GetServerInfo(NULL, "server");
    if (!info) return 0;
    const char *value = rm.ServerInfoGetFieldC(info, "run_id");
    if (value && strlen(value) < sizeof run_id) {
        run_id_len = strlen(value);
        memcpy(run_id, value, run_id_len + 1);
    }
    rm.FreeServerInfo(NULL, info);
    return run_id_len != 0;
}

/* ---- the caller's ACL user ----------------------------------------------- */

typedef struct {
    int root;              /* a client without an ACL user: Redis grants it everything */
    RedisModuleUser *user; /* NULL with root == 0: the user is gone, deny */
} caller;

/* Resolves the calling user once per command. GetCurrentUserName dereferences
 * the client's user, which is NULL on Redis's root clients, so the user is
 * first asked for by client id, which answers for every connected client and
 * reports a userless one (the master link) instead of crashing. */
static caller caller_resolve(RedisModuleCtx *ctx) {
    caller who = {0, NULL};
    errno = 0;
    RedisModuleString *name = rm.GetClientUserNameById(ctx, rm.GetClientId(ctx));
    if (!name) {
        if (errno == ENOTSUP || !(rm.GetContextFlags(ctx) & RM_CTX_FLAGS_LUA)) {
            /* The master link, the AOF loader, another module's RM_Call:
             * clients without an ACL user, which Redis itself never checks. */
            who.root = 1;
            return who;
        }
        /* A script's own client, which carries the user of the script's caller. */
        name = rm.GetCurrentUserName(ctx);
    }
    who.user = rm.GetModuleUserFromUserName(name);
    rm.FreeString(ctx, name);
    return who;
}

/* Asks whether the caller may run HGET <row> attempts (a read) or HSET <row>
 * lease_epoch x (a write): the command and then its key, the question the
 * stepped twin puts to ACL DRYRUN, so a user denied -hget or -hset is refused
 * here exactly as the stepped twin predicts. */
static int caller_may(const caller *who, RedisModuleString *key, int write) {
    if (who->root) return 1;
    if (!who->user) return 0;
    RedisModuleString *probe[4] = {hget_name, key, attempts_field, NULL};
    if (write) {
        probe[0] = hset_name;
        probe[2] = epoch_field;
        probe[3] = probe_value;
    }
    return rm.ACLCheckCommandPermissions(who->user, probe, write ? 4 : 3) == RM_OK;
}

static void caller_release(caller *who) {
    if (who->user) rm.FreeModuleUser(who->user);
    who->user = NULL;
}

/* ---- shape checks, shared by both verbs ----------------------------------- */

typedef struct {
    bytes first;      /* KEYS[1]: the active set */
    bytes second;     /* KEYS[2]: the queue base (batch) or the job row (single) */
    long long lease;  /* lease_ms */
    int npairs;
} shape;

/* Validates the arguments in native.py's order; replies the error and
 * returns 0 when the call is refused. */
static int check_shape(RedisModuleCtx *ctx, const char *verb, RedisModuleString **argv, int argc,
                       int single, shape *out) {
    int nargs = argc - 1;
    if (nargs < 1 || !bytes_eq(arg(argv[1]), (bytes){"2", 1}))
        return reply_error(ctx, verb, "numkeys must be 2"), 0;
    if (nargs < 4 || (nargs - 4) % 2 || (single && nargs != 6))
        return reply_error(ctx, verb, "wrong number of arguments"), 0;
    bytes first = arg(argv[2]), second = arg(argv[3]);
    const size_t sfx = sizeof ACTIVE_SUFFIX - 1, infix = sizeof ROW_INFIX - 1;
    int fits;
    if (single) {
        bytes id = arg(argv[5]);
        fits = first.len >= sfx && memcmp(first.ptr + first.len - sfx, ACTIVE_SUFFIX, sfx) == 0;
        size_t stem = first.len - sfx;
        fits = fits && second.len == stem + infix + id.len
            && memcmp(second.ptr, first.ptr, stem) == 0
            && memcmp(second.ptr + stem, ROW_INFIX, infix) == 0
            && (id.len == 0 || memcmp(second.ptr + stem + infix, id.ptr, id.len) == 0);
    } else {
        fits = first.len == second.len + sfx
            && (second.len == 0 || memcmp(first.ptr, second.ptr, second.len) == 0)
            && memcmp(first.ptr + second.len, ACTIVE_SUFFIX, sfx) == 0;
    }
    if (!fits) return reply_error(ctx, verb, "keys do not match the queue layout"), 0;
    if (!parse_lease(arg(argv[4]), &out->lease))
        return reply_error(ctx, verb, "lease_ms must be a positive integer"), 0;
    out->first = first;
    out->second = second;
    out->npairs = (nargs - 4) / 2;
    return 1;
}

/* The deadline now + lease_ms; replies the error and returns 0 when it does
 * not fit in int64. */
static int deadline(RedisModuleCtx *ctx, const char *verb, long long now, long long lease, long long *at) {
    if (now < 0 || lease > INT64_MAX - now)
        return reply_error(ctx, verb, "lease_ms is out of range"), 0;
    *at = now + lease;
    return 1;
}

/* ---- the three checks on one member --------------------------------------- */

typedef enum { V_LIVE, V_GONE, V_STALE, V_NOT_ACTIVE, V_WRONGTYPE } verdict;

/* The script's checks in the script's order, stopping at the first that
 * fails; the row's other fields (its lane's group among them) are not read. */
static verdict check_member(RedisModuleCtx *ctx, RedisModuleString *active, RedisModuleString *row,
                            RedisModuleString *id, RedisModuleString *token) {
    RedisModuleKey *key = rm.OpenKey(ctx, row, RM_READ);
    int type = rm.KeyType(key);
    RedisModuleString *attempts = NULL;
    if (type == RM_KEYTYPE_HASH)
        rm.HashGet(key, RM_HASH_NONE, attempts_field, &attempts, NULL); /* @check-row */
    rm.CloseKey(key);
    if (type != RM_KEYTYPE_EMPTY && type != RM_KEYTYPE_HASH) return V_WRONGTYPE;
    if (!attempts) return V_GONE;
    int same = bytes_eq(arg(attempts), arg(token)); /* @check-token */
    rm.FreeString(ctx, attempts);
    if (!same) return V_STALE;

    key = rm.OpenKey(ctx, active, RM_READ);
    type = rm.KeyType(key);
    double score;
    int member = type == RM_KEYTYPE_ZSET && rm.ZsetScore(key, id, &score) == RM_OK; /* @check-active */
    rm.CloseKey(key);
    if (type != RM_KEYTYPE_EMPTY && type != RM_KEYTYPE_ZSET) return V_WRONGTYPE;
    return member ? V_LIVE : V_NOT_ACTIVE;
}

/* ---- the writes ------------------------------------------------------------ */

/* Writes go through RedisModule_Call with "!" rather than the low-level key
 * API plus ReplicateVerbatim: each ZADD and HSET then runs as the server's own
 * command (keyspace events, WATCH, dirty count, stats) and reaches replicas and
 * the AOF as those literal commands with the absolute deadline, wrapped in one
 * MULTI/EXEC with the rest of this call. Replicating the EMQ verb verbatim
 * instead would re-read the clock on every replica and need the module there. */
static int call_ok(RedisModuleCallReply *r) {
    int ok = r && rm.CallReplyType(r) != RM_REPLY_ERROR;
    if (r) rm.FreeCallReply(r);
    return ok;
}

/* ---- EMQ.EXTENDS ------------------------------------------------------------ */

/* Builds base .. "job:" .. id in the caller's scratch buffer and returns it as
 * a server string; the buffer is sized once for the longest id. */
static RedisModuleString *row_key(RedisModuleCtx *ctx, char *buf, bytes base, bytes id) {
    const size_t infix = sizeof ROW_INFIX - 1;
    memcpy(buf, base.ptr, base.len);
    memcpy(buf + base.len, ROW_INFIX, infix);
    if (id.len) memcpy(buf + base.len + infix, id.ptr, id.len);
    return rm.CreateString(ctx, buf, base.len + infix + id.len);
}

static int extends_command(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    const char *verb = "EMQ.EXTENDS";
    shape s;
    long long at;
    if (!check_shape(ctx, verb, argv, argc, 0, &s)) return RM_OK; /* @shape */
    long long now = now_ms(); /* @clock */
    if (!deadline(ctx, verb, now, s.lease, &at)) return RM_OK;
    RedisModuleString *active = argv[2], **pairs = argv + 5;
    if (s.npairs == 0) return rm.ReplyWithArray(ctx, 0), RM_OK;

    size_t longest = 0;
    for (int i = 0; i < s.npairs; i++) {
        size_t len = arg(pairs[2 * i]).len;
        if (len > longest) longest = len;
    }
    char *buf = scratch_alloc(s.second.len + sizeof ROW_INFIX + longest);
    /* rows[i] holds the row of a live pair and stays NULL for a failed one. */
    RedisModuleString **rows = scratch_alloc(sizeof *rows * (size_t)s.npairs);
    memset(rows, 0, sizeof *rows * (size_t)s.npairs);
    caller who = caller_resolve(ctx);
    int nfailed = 0, nlive = 0, refused = 0;

    for (int i = 0; i < s.npairs && !refused; i++) { /* @read-pass */
        RedisModuleString *id = pairs[2 * i], *token = pairs[2 * i + 1];
        RedisModuleString *row = row_key(ctx, buf, s.second, arg(id));
        if (!caller_may(&who, row, 0)) { /* @read-acl */
            reply_noperm(ctx, verb, 0);
            rm.FreeString(ctx, row);
            refused = 1;
            break;
        }
        verdict v = check_member(ctx, active, row, id, token); /* @read-verdict */
        if (v == V_WRONGTYPE) {
            rm.ReplyWithError(ctx, WRONGTYPE);
            rm.FreeString(ctx, row);
            refused = 1;
        } else if (v == V_LIVE) {
            rows[i] = row; /* @read-live */
            nlive++;
        } else {
            rm.FreeString(ctx, row);
            nfailed++; /* @read-fail */
        }
    }

    if (!refused && nlive) {
        for (int i = 0; i < s.npairs; i++) { /* @write-pass */
            if (rows[i] && !caller_may(&who, rows[i], 1)) { /* @write-acl */
                reply_noperm(ctx, verb, 1);
                refused = 1;
                break;
            }
        }
        if (!refused && !load_run_id()) { /* @epoch */
            reply_error(ctx, verb, "cannot read the server run_id");
            refused = 1;
        }
        for (int i = 0; i < s.npairs && !refused; i++) {
            if (!rows[i]) continue;
            if (!call_ok(rm.Call(ctx, "ZADD", "!sls", active, at, pairs[2 * i])) /* @write-rescore */
                || !call_ok(rm.Call(ctx, "HSET", "!scc", rows[i], "lease_epoch", run_id))) { /* @write-epoch */
                reply_error(ctx, verb, "a write was refused by the server");
                refused = 1;
            }
        }
    }

    if (!refused) {
        rm.ReplyWithArray(ctx, nfailed); /* @reply */
        for (int i = 0; i < s.npairs; i++)
            if (!rows[i]) rm.ReplyWithString(ctx, pairs[2 * i]);
    }

    for (int i = 0; i < s.npairs; i++)
        if (rows[i]) rm.FreeString(ctx, rows[i]);
    scratch_free(rows);
    scratch_free(buf);
    caller_release(&who);
    return RM_OK;
}

/* ---- EMQ.EXTEND ------------------------------------------------------------- */

static int extend_command(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    const char *verb = "EMQ.EXTEND";
    shape s;
    long long at;
    if (!check_shape(ctx, verb, argv, argc, 1, &s)) return RM_OK; /* @one-shape */
    long long now = now_ms(); /* @one-clock */
    if (!deadline(ctx, verb, now, s.lease, &at)) return RM_OK;
    RedisModuleString *active = argv[2], *row = argv[3], *id = argv[5], *token = argv[6];
    caller who = caller_resolve(ctx);
    if (!caller_may(&who, row, 0)) { /* @one-read-acl */
        reply_noperm(ctx, verb, 0);
        goto done;
    }
    switch (check_member(ctx, active, row, id, token)) { /* @one-verdict */
    case V_WRONGTYPE:
        rm.ReplyWithError(ctx, WRONGTYPE);
        goto done;
    case V_GONE:
        rm.ReplyWithError(ctx, "EMQGONE job row does not exist");
        goto done;
    case V_STALE:
        rm.ReplyWithError(ctx, "EMQSTALE token does not match attempts");
        goto done;
    case V_NOT_ACTIVE:
        rm.ReplyWithError(ctx, "EMQNOTACTIVE job is not in active");
        goto done;
    case V_LIVE:
        break;
    }
    if (!caller_may(&who, row, 1)) { /* @one-write-acl */
        reply_noperm(ctx, verb, 1);
        goto done;
    }
    if (!load_run_id()) {
        reply_error(ctx, verb, "cannot read the server run_id");
        goto done;
    }
    if (!call_ok(rm.Call(ctx, "ZADD", "!sls", active, at, id)) /* @one-rescore */
        || !call_ok(rm.Call(ctx, "HSET", "!scc", row, "lease_epoch", run_id))) { /* @one-epoch */
        reply_error(ctx, verb, "a write was refused by the server");
        goto done;
    }
    rm.ReplyWithLongLong(ctx, 1); /* @one-reply */
done:
    caller_release(&who);
    return RM_OK;
}

/* ---- loading --------------------------------------------------------------- */

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    int (*get_api)(const char *, void *);
    memcpy(&get_api, (void *)ctx, sizeof get_api); /* the context's first word */
    for (size_t i = 0; i < sizeof required_api / sizeof required_api[0]; i++)
        if (get_api(required_api[i].name, required_api[i].slot) != RM_OK) return 1;
    get_api("RedisModule_CachedMicroseconds", &rm.CachedMicroseconds);
    get_api("RedisModule_IsModuleNameBusy", &rm.IsModuleNameBusy);
    if (rm.IsModuleNameBusy && rm.IsModuleNameBusy("emq")) return 1;
    rm.SetModuleAttribs(ctx, "emq", 1, RM_APIVER_1);

    if (!attempts_field) {
        attempts_field = rm.CreateString(NULL, "attempts", 8);
        hget_name = rm.CreateString(NULL, "HGET", 4);
        hset_name = rm.CreateString(NULL, "HSET", 4);
        epoch_field = rm.CreateString(NULL, "lease_epoch", 11);
        probe_value = rm.CreateString(NULL, "x", 1);
    }
    /* firstkey 2, lastkey 3: the server itself routes and ACL-checks KEYS[1]
     * and KEYS[2]; the job rows are derived and checked above. */
    if (rm.CreateCommand(ctx, "EMQ.EXTENDS", extends_command, "write deny-oom", 2, 3, 1) != RM_OK) return 1;
    if (rm.CreateCommand(ctx, "EMQ.EXTEND", extend_command, "write deny-oom", 2, 3, 1) != RM_OK) return 1;
    return RM_OK;
}
