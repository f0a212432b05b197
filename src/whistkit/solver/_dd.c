/*
 * whistkit.solver._dd: double-dummy search core for 4-hand whist.
 *
 * Trump / no-trump / misere, any position (mid-trick included), aces high or low.
 *
 * Cards inside the search are bits 16*suit + strength (0..12, higher = stronger);
 * aces-low is a remap at the API boundary. The search answers the boolean question
 * "does NS get at least `target` tricks?" (null window), wrapped in an MTD-style
 * driver over the target. Misere only flips which side maximises.
 *
 * Speed-ups: equivalent-card pruning (touching cards relative to the cards left at
 * the start of the trick are one move), a transposition table at trick starts keyed
 * on the shape plus the owners of each suit's cards in relative-rank order, with
 * partition-search generalisation (only the ranks that won tricks by rank are kept
 * in a stored pattern, the rest are "x"), quick-trick bounds (normal play), move
 * ordering with TT and killer hints.
 *
 * Python API (all coarse: one call per solve or per batch):
 *   solve(hands, trick, leader, trump, misere, aces_low, mode, k)
 *       mode 0: value (int), 1: {card: value} for every legal card, 2: bool for
 *       "side to play takes >= k"; values are tricks of the side to play.
 *   solve_batch(list_of_args_tuples, mode, threads) -> list (GIL released); optional
 *       node and time budgets per job, and the nodes the batch searched.
 */
#ifndef DD_CORE
#define DD_CORE
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

typedef uint64_t u64;
typedef uint32_t u32;

#if defined(__GNUC__) || defined(__clang__)
#define POPC(x) __builtin_popcountll(x)
#define CTZ(x) __builtin_ctzll(x)
#define CLZ(x) __builtin_clzll(x)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#error "a GCC-compatible compiler is needed"
#endif

#define SUIT(s) ((u64)0x1FFF << (16 * (s)))
#define HIBIT(x) (63 - CLZ(x))

/* ------------------------------------------------------------------------ */
/* Transposition table                                                       */

typedef struct {
    u64 code[2]; /* owners (2 bits) of each suit's cards, relative, low card first */
    u64 mask[2]; /* which of those owner bits are significant */
    int8_t lo, hi; /* bounds on NS tricks from this trick start on */
    uint8_t best;  /* a good lead last time (card index), 0xFF if none */
    uint8_t pad[5];
} Entry;

/* one bucket per (shape, leader): its entries lie contiguously in the pool */
typedef struct {
    u64 shape; /* 4 bits per (seat, suit) length */
    u32 epoch;
    int32_t leader;
    int32_t off, n, cap; /* the bucket's entries: pool[off .. off+n) */
    int32_t ring;        /* next entry to overwrite once the bucket is full */
} Slot;

#define BUCKET_MAX 256

#define SLOT_BITS 18
#define NSLOTS (1u << SLOT_BITS)
#define POOL_MAX (1 << 21)
#define POOL_START (1 << 14)

typedef struct {
    /* position */
    u64 h[4];
    int trump; /* -1: no trump */
    int misere;
    int leader;
    int pos;
    int tcard[16][4]; /* cards of the trick with `left` tricks left */
    int wseat, wcard;
    int won;  /* NS tricks since the root */
    int left; /* tricks left, the current one included */
    u64 tall[16]; /* all cards at the start of the trick with `left` tricks left */
    /* table */
    Slot *slots;
    u32 epoch;
    u32 nslots_used;
    Entry *pool;
    u32 *tags; /* per pool entry: owners of each suit's top two cards that it fixes (low
                * 16 bits) and which of those bits it fixes (high 16): a quick filter */
    int32_t npool, cap;
    /* ordering */
    int killer[16][4];
    int8_t ffail[16][4];
    int8_t fref[16][4][2]; /* and the card that refuted each test there (or -1) */ /* misere: the side G for which the forcing tests failed here */
    uint8_t cutcache[1 << 16]; /* last refuting card by hashed (seat, hand, winner) */
    long long nodes;
    long long limit_at; /* give up once `nodes` reaches it (a probe's node budget) */
    long long check_at; /* next budget check: min(limit_at, next time check) */
    double deadline;    /* give up once the clock passes it (0: no time budget) */
    int aborted;        /* the current probe ran out of budget */
    int job_aborted;    /* the job gave up (all-or-nothing budgets) */
    int split;          /* budgets give bounds: share them out among probes */
    long long st_probe, st_hit, st_scan, st_qt, st_store, st_reset, st_lead;
    volatile int *stop; /* two threads on one solve: raised when the probe is moot */
} Ctx;

typedef struct {
    int wseat, wcard, leader, pos, won, left;
} Undo;

/* debugging switches (module-wide, set by tests through set_flags): 1 = no sure-trick
 * bounds (quick tricks, sure losers, misere claim), 2 = exact TT keys (no partition
 * generalisation), 4 = no TT stores, 64 = no one-trick cut inside a misere trick,
 * 128 = no one-trick cut at misere trick starts, 256 = coarse rank winners for the
 * cut inside a trick (all of the led suit and the trumps), 512 = no two-trick cut
 * (misere, at least 3 tricks left),
 * 2048 = the portable core, 8192 = no side claim in misere,
 * 16384 = no trump count in misere (trumps above all of the other side's trumps),
 * 32768 = small-card skip of the lower cards only (not also the higher ones below the
 * suit's lowest rank winner), 65536 = quick tricks keep the whole run of top cards as
 * rank winners, 131072 = no sure trump tricks from two partners' top trumps,
 * 262144 = no wins by length in the greedy cashing line; 1 << 24 and up: misere
 * switches (_dd_misere.h) */
static int g_flags = 0;

typedef struct {
    int card;
    int score;
} Move;

typedef struct {
    u64 h[4]; /* internal card bits */
    int trick[3];
    int ntrick;
    int leader;
    int trump;
    int misere;
    int aces_low;
    long long node_limit; /* 0: none */
    double time_limit;    /* seconds, 0: none */
    int split;            /* 1: a budget gives bounds; 0: an aborted job gives nothing */
} Job;

/* the result of a job: the value of the side to play, proven to lie in [lo, hi], and
 * each legal card's (mode 1; -1 for a card that is not a move) */
typedef struct {
    int lo, hi;
    int clo[64], chi[64];
} Res;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* share (in 1/16) of the remaining budget a probe of a budgeted search may use while
 * other targets remain (tests and tuning change it through set_share) */
static int g_share = 8;
/* share (in 1/16) of a budget for MTD from the first guess, before squeezing */
static int g_first = 12;

#define TIME_CHECK 2048 /* nodes between looks at the clock */

/* the node counter reached check_at: out of nodes, out of time, or the next check */
static void budget_check(Ctx *c, long long at) {
    if (at >= c->limit_at || (c->stop && *c->stop)) {
        c->aborted = 1;
        return;
    }
    if (c->deadline > 0 && now_s() >= c->deadline) {
        c->aborted = 1;
        return;
    }
    c->check_at = at + TIME_CHECK < c->limit_at ? at + TIME_CHECK : c->limit_at;
}

static int ctx_init(Ctx *c) {
    memset(c, 0, sizeof(*c));
    c->slots = (Slot *)calloc(NSLOTS, sizeof(Slot));
    c->cap = POOL_START;
    c->pool = (Entry *)malloc(sizeof(Entry) * (size_t)c->cap);
    c->tags = (u32 *)malloc(sizeof(u32) * (size_t)c->cap);
    if (!c->slots || !c->pool || !c->tags) {
        free(c->slots);
        free(c->pool);
        free(c->tags);
        c->tags = NULL;
        c->slots = NULL;
        c->pool = NULL;
        return -1;
    }
    c->epoch = 1;
    return 0;
}

static void ctx_free(Ctx *c) {
    free(c->slots);
    free(c->pool);
    free(c->tags);
    c->slots = NULL;
    c->pool = NULL;
    c->tags = NULL;
}

/* The search core below is compiled three times: once for any x86-64 (or other) CPU,
 * once with popcnt/lzcnt/bmi instructions and pext/pdep (bmi2), and once with the same
 * but no pext/pdep (for processors where those are slow), chosen at import time. */
#define FN(x) x##_base
#include "_dd.c"
#undef FN
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DD_HAVE_FAST 1
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("popcnt,lzcnt,bmi,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("popcnt,lzcnt,bmi,bmi2")
#endif
#include <immintrin.h>
#define FN(x) x##_fast
#define DD_PEXT 1
#include "_dd.c"
#undef DD_PEXT
#undef FN
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push(__attribute__((target("popcnt,lzcnt,bmi"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("popcnt,lzcnt,bmi")
#endif
#define FN(x) x##_mid
#include "_dd.c"
#undef FN
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

/* which core runs: 0 the portable one, 1 popcnt/lzcnt/bmi with pext, 2 the same without */
static int g_core = 0;

#ifdef DD_HAVE_FAST
#include <cpuid.h>
/* pext/pdep are microcoded on AMD (and Hygon) processors before Zen 3 (family 0x19):
 * hundreds of cycles each, so there the core without them runs (the core with them was
 * 1.45 times slower than even the portable one at 13 cards on a Zen 2 EPYC, family 0x17) */
static int slow_pext(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
    if (b != 0x68747541u /* "Auth"enticAMD */ && b != 0x6f677948u /* "Hygo"nGenuine */)
        return 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    unsigned family = (a >> 8) & 0xf;
    if (family == 0xf) family += (a >> 20) & 0xff;
    return family < 0x19;
}
#endif

/* a call into the build of the core that runs (flag 2048: the portable one) */
#ifdef DD_HAVE_FAST
#define CORE_CALL(fn, ...)                                                                 \
    (g_flags & 2048 ? fn##_base(__VA_ARGS__)                                               \
     : g_core == 1  ? fn##_fast(__VA_ARGS__)                                               \
     : g_core == 2  ? fn##_mid(__VA_ARGS__)                                                \
                    : fn##_base(__VA_ARGS__))
#else
#define CORE_CALL(fn, ...) fn##_base(__VA_ARGS__)
#endif

static int run_job(Ctx *c, const Job *j, int mode, int k, Res *r) {
    return CORE_CALL(run_job, c, j, mode, k, r);
}

/* ------------------------------------------------------------------------ */
/* Python glue                                                               */

static int parse_job(PyObject *hands, PyObject *trick, int leader, int trump, int misere,
                     int aces_low, Job *j) {
    memset(j, 0, sizeof(*j));
    PyObject *hs = PySequence_Fast(hands, "hands must be a sequence of 4 masks");
    if (!hs) return -1;
    if (PySequence_Fast_GET_SIZE(hs) != 4) {
        Py_DECREF(hs);
        PyErr_SetString(PyExc_ValueError, "hands must hold 4 masks");
        return -1;
    }
    u64 seen = 0;
    for (int p = 0; p < 4; p++) {
        unsigned long long m = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(hs, p));
        if (m == (unsigned long long)-1 && PyErr_Occurred()) {
            Py_DECREF(hs);
            return -1;
        }
        if (m >> 52) {
            Py_DECREF(hs);
            PyErr_SetString(PyExc_ValueError, "hand is not a 52-bit mask");
            return -1;
        }
        if (m & seen) {
            Py_DECREF(hs);
            PyErr_SetString(PyExc_ValueError, "hands share cards");
            return -1;
        }
        seen |= m;
        u64 h = 0;
        for (int card = 0; card < 52; card++) {
            if (!((m >> card) & 1)) continue;
            int s = card / 13, r = card % 13;
            int st = aces_low ? (r + 1) % 13 : r;
            h |= 1ull << (16 * s + st);
        }
        j->h[p] = h;
    }
    Py_DECREF(hs);
    PyObject *ts = PySequence_Fast(trick, "trick must be a sequence of cards");
    if (!ts) return -1;
    Py_ssize_t nt = PySequence_Fast_GET_SIZE(ts);
    if (nt > 3) {
        Py_DECREF(ts);
        PyErr_SetString(PyExc_ValueError, "the current trick holds at most 3 cards");
        return -1;
    }
    for (Py_ssize_t i = 0; i < nt; i++) {
        long card = PyLong_AsLong(PySequence_Fast_GET_ITEM(ts, i));
        if (card == -1 && PyErr_Occurred()) {
            Py_DECREF(ts);
            return -1;
        }
        if (card < 0 || card >= 52 || ((seen >> card) & 1)) {
            Py_DECREF(ts);
            PyErr_SetString(PyExc_ValueError, "bad or duplicate card in the trick");
            return -1;
        }
        seen |= 1ull << card;
        int s = (int)card / 13, r = (int)card % 13;
        int st = aces_low ? (r + 1) % 13 : r;
        j->trick[i] = 16 * s + st;
    }
    Py_DECREF(ts);
    j->ntrick = (int)nt;
    if (leader < 0 || leader > 3) {
        PyErr_SetString(PyExc_ValueError, "leader must be 0..3");
        return -1;
    }
    if (trump < -1 || trump > 3) {
        PyErr_SetString(PyExc_ValueError, "trump must be -1..3");
        return -1;
    }
    j->leader = leader;
    j->trump = trump;
    j->misere = misere;
    j->aces_low = aces_low;
    /* hand lengths */
    int seat = (leader + (int)nt) & 3;
    int n = POPC(j->h[seat]);
    for (int i = 0; i < 4; i++) {
        int p = (leader + i) & 3;
        int want = i < nt ? n - 1 : n;
        if (POPC(j->h[p]) != want) {
            PyErr_SetString(PyExc_ValueError, "hand lengths do not fit the trick state");
            return -1;
        }
    }
    if (nt > 0 && n == 0) {
        PyErr_SetString(PyExc_ValueError, "no card left to complete the trick");
        return -1;
    }
    return 0;
}

static int ext_card(const Job *j, int internal) {
    int s = internal >> 4, st = internal & 15;
    int r = j->aces_low ? (st + 12) % 13 : st;
    return s * 13 + r;
}

/* {card: value}, or with `hi` {card: (lo, hi)} */
static PyObject *cards_dict(const Job *j, const int out[64], const int *hi) {
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (int i = 0; i < 64; i++) {
        if (out[i] < 0) continue;
        PyObject *k = PyLong_FromLong(ext_card(j, i));
        PyObject *v = hi ? Py_BuildValue("(ii)", out[i], hi[i]) : PyLong_FromLong(out[i]);
        if (!k || !v || PyDict_SetItem(d, k, v) < 0) {
            Py_XDECREF(k);
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(k);
        Py_DECREF(v);
    }
    return d;
}

/* search contexts (each holds a transposition table) are kept for reuse: taken by a
 * solve or a batch worker, given back afterwards */
#define CTX_KEEP 4
static Ctx *g_keep[CTX_KEEP];
static int g_nkeep = 0;
static pthread_mutex_t g_keep_mu = PTHREAD_MUTEX_INITIALIZER;
static Ctx *g_last = NULL; /* the context of the last single solve (statistics) */

static Ctx *ctx_take(void) {
    Ctx *c = NULL;
    pthread_mutex_lock(&g_keep_mu);
    if (g_nkeep > 0) c = g_keep[--g_nkeep];
    pthread_mutex_unlock(&g_keep_mu);
    if (c) return c;
    c = (Ctx *)malloc(sizeof(Ctx));
    if (c && ctx_init(c) < 0) {
        free(c);
        c = NULL;
    }
    return c;
}

static void ctx_give(Ctx *c) {
    pthread_mutex_lock(&g_keep_mu);
    if (g_nkeep < CTX_KEEP) {
        g_keep[g_nkeep++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&g_keep_mu);
    if (c) {
        if (c == g_last) g_last = NULL;
        ctx_free(c);
        free(c);
    }
}


static PyObject *py_solve(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *hands, *trick;
    int leader, trump, misere, aces_low, mode, k;
    if (!PyArg_ParseTuple(args, "OOiippii", &hands, &trick, &leader, &trump, &misere,
                          &aces_low, &mode, &k))
        return NULL;
    Job j;
    if (parse_job(hands, trick, leader, trump, misere, aces_low, &j) < 0) return NULL;
    Ctx *c = NULL;
    Res *res = (Res *)malloc(sizeof(Res));
    if (!res) return PyErr_NoMemory();
    int r = 0;
    Py_BEGIN_ALLOW_THREADS
    c = ctx_take();
    if (c) {
        r = run_job(c, &j, mode, k, res);
        g_last = c;
        ctx_give(c);
    }
    Py_END_ALLOW_THREADS
    if (!c) {
        free(res);
        return PyErr_NoMemory();
    }
    PyObject *o;
    if (mode == 0) o = PyLong_FromLong(r);
    else if (mode == 2) o = PyBool_FromLong(r);
    else o = cards_dict(&j, res->clo, NULL);
    free(res);
    return o;
}

typedef struct {
    const Job *jobs;
    Res *res;
    int njobs;
    int mode;
    char *aborted; /* per job: over its node budget */
    int next; /* atomic work counter */
    int failed;
    long long spent; /* atomic: nodes searched by all the batch's jobs */
    long long stop_at; /* > 0: the jobs not started once `spent` passes it are skipped */
} Batch;

static void *worker(void *arg) {
    Batch *b = (Batch *)arg;
    Ctx *c = ctx_take();
    if (!c) {
        __atomic_store_n(&b->failed, 1, __ATOMIC_SEQ_CST);
        return NULL;
    }
    for (;;) {
        int i = __atomic_fetch_add(&b->next, 1, __ATOMIC_SEQ_CST);
        if (i >= b->njobs) break;
        if (b->stop_at > 0 && __atomic_load_n(&b->spent, __ATOMIC_RELAXED) > b->stop_at) {
            b->aborted[i] = 1; /* the batch is over its budget: not searched */
            continue;
        }
        long long n0 = c->nodes;
        run_job(c, &b->jobs[i], b->mode, 0, &b->res[i]);
        b->aborted[i] = (char)c->job_aborted;
        __atomic_add_fetch(&b->spent, c->nodes - n0, __ATOMIC_RELAXED);
    }
    if (b->njobs == 1) g_last = c; /* statistics of a single budgeted solve */
    ctx_give(c);
    return NULL;
}

static PyObject *py_solve_batch(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *list;
    int mode, threads, split = 0, count = 0;
    long long node_limit = 0, stop_at = 0;
    double time_limit = 0;
    if (!PyArg_ParseTuple(args, "Oii|LdppL", &list, &mode, &threads, &node_limit, &time_limit,
                          &split, &count, &stop_at))
        return NULL;
    if (mode != 0 && mode != 1) {
        PyErr_SetString(PyExc_ValueError, "batch mode must be 0 or 1");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(list, "positions must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    Job *jobs = (Job *)calloc((size_t)(n ? n : 1), sizeof(Job));
    Res *values = (Res *)calloc((size_t)(n ? n : 1), sizeof(Res));
    char *aborted = (char *)calloc((size_t)(n ? n : 1), 1);
    if (!jobs || !values || !aborted) {
        free(jobs);
        free(values);
        free(aborted);
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *hands, *trick;
        int leader, trump, misere, aces_low;
        PyObject *t = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyArg_ParseTuple(t, "OOiipp", &hands, &trick, &leader, &trump, &misere,
                              &aces_low) ||
            parse_job(hands, trick, leader, trump, misere, aces_low, &jobs[i]) < 0) {
            free(jobs);
            free(values);
            free(aborted);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    if (threads > n) threads = (int)(n ? n : 1);
    for (Py_ssize_t i = 0; i < n; i++) {
        jobs[i].node_limit = node_limit > 0 ? node_limit : 0;
        jobs[i].time_limit = time_limit > 0 ? time_limit : 0;
        jobs[i].split = split;
    }
    Batch b = {jobs, values, (int)n, mode, aborted, 0, 0, 0, stop_at > 0 ? stop_at : 0};
    Py_BEGIN_ALLOW_THREADS
    if (threads == 1) {
        worker(&b);
    } else {
        pthread_t tid[64];
        int started = 0;
        for (int t = 0; t < threads - 1; t++) {
            if (pthread_create(&tid[t], NULL, worker, &b) == 0) started++;
            else break;
        }
        worker(&b);
        for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    }
    Py_END_ALLOW_THREADS
    if (b.failed && b.next < (int)n) {
        free(jobs);
        free(values);
        free(aborted);
        return PyErr_NoMemory();
    }
    PyObject *res = PyList_New(n);
    if (!res) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o;
        const Res *r = &values[i];
        if (aborted[i]) {
            o = Py_None;
            Py_INCREF(o);
        } else if (split) {
            /* bounds: (lo, hi), or (lo, hi, {card: (lo, hi)}) */
            if (mode == 0) {
                o = Py_BuildValue("(ii)", r->lo, r->hi);
            } else {
                PyObject *d = cards_dict(&jobs[i], r->clo, r->chi);
                o = d ? Py_BuildValue("(iiN)", r->lo, r->hi, d) : NULL;
            }
        } else {
            o = mode == 0 ? PyLong_FromLong(r->lo) : cards_dict(&jobs[i], r->clo, NULL);
        }
        if (!o) {
            Py_DECREF(res);
            res = NULL;
            goto done;
        }
        PyList_SET_ITEM(res, i, o);
    }
done:
    free(jobs);
    free(values);
    free(aborted);
    if (res && count) return Py_BuildValue("(NL)", res, b.spent);
    return res;
}

static PyObject *py_nodes(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    Ctx *c = g_last;
    if (!c) return Py_BuildValue("()");
    return Py_BuildValue("(LLLLLLLi)", c->nodes, c->st_probe, c->st_hit, c->st_scan, c->st_qt,
                         c->st_store, c->st_reset, c->npool);
}

static PyObject *py_set_flags(PyObject *self, PyObject *args) {
    (void)self;
    int f;
    if (!PyArg_ParseTuple(args, "i", &f)) return NULL;
    g_flags = f;
    Py_RETURN_NONE;
}

static PyObject *py_set_share(PyObject *self, PyObject *args) {
    (void)self;
    int f, g0 = 0;
    if (!PyArg_ParseTuple(args, "i|i", &f, &g0)) return NULL;
    if (f < 1 || f > 16) {
        PyErr_SetString(PyExc_ValueError, "share must be 1..16");
        return NULL;
    }
    g_share = f;
    if (g0) {
        if (g0 < 1 || g0 > 16) {
            PyErr_SetString(PyExc_ValueError, "first must be 1..16");
            return NULL;
        }
        g_first = g0;
    }
    Py_RETURN_NONE;
}

#include "_dd_misere_py.h"

static PyMethodDef methods[] = {
    MISERE_METHODS
    {"set_share", py_set_share, METH_VARARGS,
     "set_share(share[, first]): in 16ths, the share of the remaining budget a probe of a "
     "budgeted search may use while it squeezes the range from both ends, and the share "
     "of the budget for MTD from the first guess (tuning)"},
    {"set_flags", py_set_flags, METH_VARARGS,
     "debugging switches (module-wide, for tests): 1 no sure-trick bounds (quick tricks, "
     "sure losers, misere claim), 2 exact TT keys, 4 no TT stores, 64 no one-trick cut in "
     "misere, 128 none at trick starts, 256 coarse rank winners for it, 512 no two-trick "
     "cut, 2048 "
     "portable core, 8192 no misere side claim, 16384 no "
     "misere trump count, 32768 small-card skip of lower cards only, 65536 whole runs as "
     "quick-trick rank winners, 131072 no partners' top-trump tricks, 262144 no wins by "
     "length in the greedy cashing line, 1<<24 no misere transposition cutoff at the "
     "fourth hand"},
    {"solve", py_solve, METH_VARARGS,
     "solve(hands, trick, leader, trump, misere, aces_low, mode, k)"},
    {"solve_batch", py_solve_batch, METH_VARARGS,
     "solve_batch(args_list, mode, threads[, node_limit[, time_limit[, split[, count[, "
     "stop_at]]]]]): without split None for a job over its budget; with split bounds (lo, "
     "hi) for every job, in mode 1 (lo, hi, {card: (lo, hi)}); with count a pair (that "
     "list, the nodes all the jobs searched); stop_at: once the jobs have searched more "
     "nodes than that, the jobs not yet started are skipped (None)"},
    {"nodes", py_nodes, METH_NOARGS, "nodes searched by single solves so far"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_dd",
                                    "double-dummy search core", -1, methods};

PyMODINIT_FUNC PyInit__dd(void) {
#ifdef DD_HAVE_FAST
    __builtin_cpu_init();
    if (__builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi") &&
        __builtin_cpu_supports("lzcnt"))
        g_core = __builtin_cpu_supports("bmi2") && !slow_pext() ? 1 : 2;
    /* WHISTKIT_SOLVER_CORE=0/1/2 picks a build for measurement, where the processor has
       what that build needs (never a faster one than it can run) */
    const char *want = getenv("WHISTKIT_SOLVER_CORE");
    if (want && want[0] >= '0' && want[0] <= '2' && !want[1]) {
        int w = want[0] - '0';
        if (w == 0 || (g_core > 0 && (w == 2 || __builtin_cpu_supports("bmi2")))) g_core = w;
    }
#endif
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "FAST", g_core) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}


#else /* DD_CORE: the search core, included once per instruction set */
#define ab FN(ab)
#define beats FN(beats)
#define cash_from FN(cash_from)
#define canon FN(canon)
#define cut_key FN(cut_key)
#define first_guess FN(first_guess)
#define force FN(force)
#define greedy_cash FN(greedy_cash)
#define greedy FN(greedy)
#define gen_moves FN(gen_moves)
#define last_trick FN(last_trick)
#define misere_claim FN(misere_claim)
#define misere_trumps FN(misere_trumps)
#define mtd FN(mtd)
#define order_moves FN(order_moves)
#define safe_from FN(safe_from)
#define play FN(play)
#define probe_budget FN(probe_budget)
#define pool_alloc FN(pool_alloc)
#define top_tag FN(top_tag)
#define tag_may_match FN(tag_may_match)
#define code_matches FN(code_matches)
#define pool_compact FN(pool_compact)
#define cmp_off FN(cmp_off)
#define quick_tricks FN(quick_tricks)
#define rel_code FN(rel_code)
#define root_can_take FN(root_can_take)
#define root_cards FN(root_cards)
#define root_value FN(root_value)
#define run_job FN(run_job)
#define setup FN(setup)
#define shape_of FN(shape_of)
#define side_claim FN(side_claim)
#define sig_cards FN(sig_cards)
#define sig_mask FN(sig_mask)
#define slot_find FN(slot_find)
#define slot_hash FN(slot_hash)
#define sort_moves FN(sort_moves)
#define sure_losers FN(sure_losers)
#define top_run FN(top_run)
#define top_trumps FN(top_trumps)
#define run_winner FN(run_winner)
#define trick_rank_winner FN(trick_rank_winner)
#define tt_reset FN(tt_reset)
#define tt_store FN(tt_store)
#define tt_store_cand FN(tt_store_cand)
#define unplay FN(unplay)
#define whole_suit FN(whole_suit)

static void tt_reset(Ctx *c) {
    c->st_reset++;
    c->epoch++;
    if (c->epoch == 0) {
        memset(c->slots, 0, sizeof(Slot) * NSLOTS);
        c->epoch = 1;
    }
    c->npool = 0;
    c->nslots_used = 0;
}

static inline u64 shape_of(const u64 *h) {
    u64 sh = 0;
    for (int p = 0; p < 4; p++)
        for (int s = 0; s < 4; s++) sh = (sh << 4) | (u64)POPC(h[p] & SUIT(s));
    return sh;
}

static inline u32 slot_hash(u64 shape, int leader) {
    u64 x = shape * 0x9E3779B97F4A7C15ull ^ ((u64)leader * 0xC2B2AE3D27D4EB4Full);
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (u32)x & (NSLOTS - 1);
}

/* find the slot of (shape, leader); create it when `create` */
static Slot *slot_find(Ctx *c, u64 shape, int leader, int create) {
    u32 i = slot_hash(shape, leader);
    for (;;) {
        Slot *sl = &c->slots[i];
        if (sl->epoch != c->epoch) {
            if (!create) return NULL;
            if (c->nslots_used >= NSLOTS / 4 * 3) return NULL;
            sl->epoch = c->epoch;
            sl->shape = shape;
            sl->leader = leader;
            sl->off = 0;
            sl->n = 0;
            sl->cap = 0;
            sl->ring = 0;
            c->nslots_used++;
            return sl;
        }
        if (sl->shape == shape && sl->leader == leader) return sl;
        i = (i + 1) & (NSLOTS - 1);
    }
}

/* owners of each suit's remaining cards in relative order (2 bits each, lowest card
 * at bits 0-1), suits 0/1 in code[0] (32 bits each), suits 2/3 in code[1] */
static inline void rel_code(const u64 *h, u64 all, u64 code[2]) {
    u64 odd = h[1] | h[3], hi2 = h[2] | h[3];
    u64 out[2] = {0, 0};
#ifdef DD_PEXT
    /* BMI2: gather each suit's owner bits in relative order, interleave them */
    for (int s = 0; s < 4; s++) {
        u64 a = all & SUIT(s);
        u64 v = _pdep_u64(_pext_u64(odd, a), 0x5555555555555555ull) |
                _pdep_u64(_pext_u64(hi2, a), 0xAAAAAAAAAAAAAAAAull);
        out[s >> 1] |= v << (32 * (s & 1));
    }
#else
    for (int s = 0; s < 4; s++) {
        u64 a = (all >> (16 * s)) & 0x1FFF;
        u64 o = (odd >> (16 * s)) & 0x1FFF;
        u64 t = (hi2 >> (16 * s)) & 0x1FFF;
        u64 v = 0;
        int i = 0;
        while (a) {
            int b = CTZ(a);
            a &= a - 1;
            v |= (((o >> b) & 1) | (((t >> b) & 1) << 1)) << (2 * i);
            i++;
        }
        out[s >> 1] |= v << (32 * (s & 1));
    }
#endif
    code[0] = out[0];
    code[1] = out[1];
}

/* mask of significant owner bits: per suit, all cards from the top down to the lowest
 * card of `rw` in that suit */
static inline void sig_mask(u64 all, u64 rw, u64 mask[2]) {
    u64 out[2] = {0, 0};
    for (int s = 0; s < 4; s++) {
        u64 w = (rw >> (16 * s)) & 0x1FFF;
        if (!w) continue;
        u64 a = (all >> (16 * s)) & 0x1FFF;
        int L = POPC(a);
        int below = POPC(a & ((w & -w) - 1));
        u64 m = ((1ull << (2 * L)) - 1) ^ ((1ull << (2 * below)) - 1);
        out[s >> 1] |= m << (32 * (s & 1));
    }
    mask[0] = out[0];
    mask[1] = out[1];
}

/* the rank winners a stored pattern stands for: the lowest significant card per suit */
static inline u64 sig_cards(u64 all, const u64 mask[2]) {
    u64 rw = 0;
    for (int s = 0; s < 4; s++) {
        u64 m = (mask[s >> 1] >> (32 * (s & 1))) & 0xFFFFFFFFull;
        if (!m) continue;
        u64 a = (all >> (16 * s)) & 0x1FFF;
        int skip = CTZ(m) / 2;
        for (int i = 0; i < skip; i++) a &= a - 1;
        rw |= (a & -a) << (16 * s);
    }
    return rw;
}

/* the card that makes all of suit s significant */
static inline u64 whole_suit(u64 all, int s) {
    u64 x = all & SUIT(s);
    return x & -x;
}

/* the owner bits of each suit's top two cards (4 bits per suit) in a code or mask */
static inline u32 top_tag(u64 all, u64 v0, u64 v1) {
    u32 t = 0;
    for (int s = 0; s < 4; s++) {
        int L = POPC(all & SUIT(s));
        u64 cs = ((s >> 1) ? v1 : v0) >> (32 * (s & 1));
        u32 x = L >= 2 ? (u32)(cs >> (2 * (L - 2))) & 0xF : (u32)cs & (L ? 3 : 0);
        t |= x << (4 * s);
    }
    return t;
}

/* a table entry holds for a position when its tag may match (ptag = top_tag of the
 * position's code; the tag tells most misses apart cheaply) and its masked code does */
static inline int tag_may_match(u32 tag, u32 ptag) {
    return !((ptag ^ tag) & (tag >> 16));
}

static inline int code_matches(const Entry *e, const u64 code[2]) {
    return !(((code[0] & e->mask[0]) ^ e->code[0]) | ((code[1] & e->mask[1]) ^ e->code[1]));
}

/* room for n entries in the pool: an offset, or -1 when the pool is full */
static int32_t pool_alloc(Ctx *c, int32_t n) {
    while (c->npool + n > c->cap) {
        if (c->cap >= POOL_MAX) return -1;
        Entry *np = (Entry *)realloc(c->pool, sizeof(Entry) * (size_t)c->cap * 2);
        if (!np) return -1;
        c->pool = np;
        u32 *nt = (u32 *)realloc(c->tags, sizeof(u32) * (size_t)c->cap * 2);
        if (!nt) return -1; /* the pool stays at its old size */
        c->tags = nt;
        c->cap *= 2;
    }
    int32_t off = c->npool;
    c->npool += n;
    return off;
}

static int cmp_off(const void *a, const void *b) {
    int32_t x = ((const int32_t *)a)[0], y = ((const int32_t *)b)[0];
    return (x > y) - (x < y);
}

/* the pool is full: move the live buckets together, dropping the space that buckets
 * left behind when they grew. Returns 1 when that freed at least a quarter of the pool
 * (else the caller starts afresh). */
static int pool_compact(Ctx *c) {
    if (c->nslots_used == 0) return 0;
    int32_t *idx = (int32_t *)malloc(sizeof(int32_t) * 2 * (size_t)c->nslots_used);
    if (!idx) return 0;
    u32 k = 0;
    for (u32 i = 0; i < NSLOTS && k < c->nslots_used; i++) {
        Slot *sl = &c->slots[i];
        if (sl->epoch != c->epoch || sl->cap == 0) continue;
        idx[2 * k] = sl->off;
        idx[2 * k + 1] = (int32_t)i;
        k++;
    }
    qsort(idx, k, 2 * sizeof(int32_t), cmp_off);
    int32_t at = 0;
    for (u32 j = 0; j < k; j++) {
        Slot *sl = &c->slots[idx[2 * j + 1]];
        if (sl->off != at) {
            memmove(c->pool + at, c->pool + sl->off, sizeof(Entry) * (size_t)sl->n);
            memmove(c->tags + at, c->tags + sl->off, sizeof(u32) * (size_t)sl->n);
        }
        sl->off = at;
        at += sl->cap;
    }
    free(idx);
    int freed = c->npool - at;
    c->npool = at;
    return freed >= c->cap / 4;
}

/* store bounds for a position. Only entries that match the position can be the same
 * entry or a more general one that knows as much; when the caller's probe listed them
 * (`cand`, `ncand` of them, with no reset since), only those are checked, else
 * (ncand < 0) the whole bucket */
static void tt_store_cand(Ctx *c, u64 shape, int leader, const u64 code[2], u64 all, u64 rw,
                          int lo, int hi, int best, const int32_t *cand, int ncand) {
    if ((g_flags & 4) || c->aborted) return;
    Slot *sl = slot_find(c, shape, leader, 1);
    if (!sl) {
        tt_reset(c);
        sl = slot_find(c, shape, leader, 1);
        if (!sl) return;
        ncand = -1;
    }
    u64 mask[2];
    sig_mask(all, (g_flags & 2) ? all : rw, mask);
    u64 k0 = code[0] & mask[0], k1 = code[1] & mask[1];
    Entry *base = c->pool + sl->off;
    int32_t nscan = ncand < 0 ? sl->n : ncand;
    for (int32_t j = 0; j < nscan; j++) {
        Entry *e = &base[ncand < 0 ? j : cand[j]];
        if (e->mask[0] == mask[0] && e->mask[1] == mask[1] && e->code[0] == k0 &&
            e->code[1] == k1) {
            if (lo > e->lo) e->lo = (int8_t)lo;
            if (hi < e->hi) e->hi = (int8_t)hi;
            if (best >= 0) e->best = (uint8_t)best;
            return;
        }
        /* a more general entry that knows at least as much: nothing to add */
        if (!(e->mask[0] & ~mask[0]) && !(e->mask[1] & ~mask[1]) &&
            (k0 & e->mask[0]) == e->code[0] && (k1 & e->mask[1]) == e->code[1] &&
            e->lo >= lo && e->hi <= hi)
            return;
    }
    int32_t at;
    if (sl->n < sl->cap) {
        at = sl->n++;
    } else if (sl->cap >= BUCKET_MAX) {
        at = sl->ring;
        sl->ring = (sl->ring + 1) % sl->cap;
    } else {
        int32_t ncap = sl->cap ? sl->cap * 2 : 4;
        int32_t off = pool_alloc(c, ncap);
        if (off < 0 && pool_compact(c)) off = pool_alloc(c, ncap);
        if (off < 0) {
            tt_reset(c);
            sl = slot_find(c, shape, leader, 1);
            if (!sl) return;
            ncap = 4;
            off = pool_alloc(c, ncap);
            if (off < 0) return;
        } else if (sl->n) {
            memcpy(c->pool + off, c->pool + sl->off, sizeof(Entry) * (size_t)sl->n);
            memcpy(c->tags + off, c->tags + sl->off, sizeof(u32) * (size_t)sl->n);
        }
        sl->off = off;
        sl->cap = ncap;
        at = sl->n++;
    }
    c->st_store++;
    Entry *e = &c->pool[sl->off + at];
    c->tags[sl->off + at] = top_tag(all, k0, k1) | top_tag(all, mask[0], mask[1]) << 16;
    e->code[0] = k0;
    e->code[1] = k1;
    e->mask[0] = mask[0];
    e->mask[1] = mask[1];
    e->lo = (int8_t)lo;
    e->hi = (int8_t)hi;
    e->best = best >= 0 ? (uint8_t)best : 0xFF;
}

static inline void tt_store(Ctx *c, u64 shape, int leader, const u64 code[2], u64 all, u64 rw,
                            int lo, int hi, int best) {
    tt_store_cand(c, shape, leader, code, all, rw, lo, hi, best, NULL, -1);
}

/* ------------------------------------------------------------------------ */
/* Play                                                                      */

static inline int beats(int card, int best, int trump) {
    int cs = card >> 4, bs = best >> 4;
    if (cs == bs) return card > best;
    return cs == trump;
}

static inline void play(Ctx *c, int card, Undo *u) {
    int seat = (c->leader + c->pos) & 3;
    u->wseat = c->wseat;
    u->wcard = c->wcard;
    u->leader = c->leader;
    u->pos = c->pos;
    u->won = c->won;
    u->left = c->left;
    c->h[seat] ^= 1ull << card;
    c->tcard[c->left][c->pos] = card;
    if (c->pos == 0 || beats(card, c->wcard, c->trump)) {
        c->wseat = seat;
        c->wcard = card;
    }
    if (++c->pos == 4) {
        if ((c->wseat & 1) == 0) c->won++;
        c->leader = c->wseat;
        c->pos = 0;
        c->left--;
    }
}

static inline void unplay(Ctx *c, int card, const Undo *u) {
    c->wseat = u->wseat;
    c->wcard = u->wcard;
    c->leader = u->leader;
    c->pos = u->pos;
    c->won = u->won;
    c->left = u->left;
    c->h[(c->leader + c->pos) & 3] ^= 1ull << card;
}

/* the winner card of a complete trick counts as a rank winner if another card of its
 * suit was played to the trick */
static inline u64 trick_rank_winner(const Ctx *c, int wcard) {
    int ws = wcard >> 4, n = 0;
    const int *t = c->tcard[c->left + 1];
    for (int i = 0; i < 4; i++) n += (t[i] >> 4) == ws;
    return n > 1 ? (1ull << wcard) : 0;
}

/* ------------------------------------------------------------------------ */
/* Move generation and ordering                                              */


/* one move per run of touching cards (relative to the cards left at the start of the
 * trick): the run's lowest card */
static inline int gen_moves(const Ctx *c, Move *mv) {
    int seat = (c->leader + c->pos) & 3;
    u64 hand = c->h[seat];
    if (c->pos > 0) {
        u64 f = hand & SUIT(c->tcard[c->left][0] >> 4);
        if (f) hand = f;
    }
    u64 all = c->tall[c->left];
    int n = 0;
    u64 hh = hand;
    while (hh) {
        int b = CTZ(hh);
        hh &= hh - 1;
        u64 below = all & ((1ull << b) - 1) & SUIT(b >> 4);
        if (below && ((c->h[seat] >> HIBIT(below)) & 1)) continue; /* not a run bottom */
        mv[n].card = b;
        mv[n].score = 0;
        n++;
    }
    return n;
}

static inline void sort_moves(Move *mv, int n) {
    for (int i = 1; i < n; i++) {
        Move m = mv[i];
        int j = i - 1;
        while (j >= 0 && mv[j].score < m.score) {
            mv[j + 1] = mv[j];
            j--;
        }
        mv[j + 1] = m;
    }
}

static inline u32 cut_key(const Ctx *c) {
    int seat = (c->leader + c->pos) & 3;
    u64 hand = c->h[seat];
    u64 x;
    if (c->pos == 0) {
        x = hand * 0x9E3779B97F4A7C15ull ^ (u64)seat;
    } else {
        u64 f = hand & SUIT(c->tcard[c->left][0] >> 4);
        x = (f ? f : hand) * 0x9E3779B97F4A7C15ull;
        x ^= ((u64)c->wcard << 2 | (u64)c->pos) * 0xC2B2AE3D27D4EB4Full ^ ((u64)seat << 60) ^
             ((u64)(c->wseat & 1) << 59);
    }
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    return (u32)(x >> 48);
}

/* can the next hand (holding `next`) not beat `card`, played to a trick led in suit ls?
 * Following suit it must hold nothing higher in the led suit (a card of another suit
 * is then safe); void, it must hold no trump (or, against a trump, no higher trump) */
static inline int safe_from(int card, int ls, u64 next, int trump) {
    int s = card >> 4;
    u64 f = next & SUIT(ls), t = trump >= 0 ? next & SUIT(trump) : 0;
    if (f) return s != ls || card > HIBIT(f);
    if (s == trump) return !(t >> card >> 1);
    return !t;
}

static void order_moves(const Ctx *c, Move *mv, int n, int hint) {
    int seat = (c->leader + c->pos) & 3;
    int side = seat & 1;
    int pos = c->pos;
    int trump = c->trump;
    u64 all = c->tall[c->left];
    u64 own = c->h[seat];
    u64 pard = c->h[(seat + 2) & 3];
    u64 lho = c->h[(seat + 1) & 3], rho = c->h[(seat + 3) & 3];
    int kill = c->killer[c->left][pos];
    int cc = c->cutcache[cut_key(c)];
    for (int i = 0; i < n; i++) {
        int card = mv[i].card, s = card >> 4, r = card & 15;
        u64 sm = SUIT(s);
        int sc = 0;
        if (!c->misere) {
            if (pos == 0) {
                u64 as = all & sm;
                int top = HIBIT(as);
                int opp_ruff = trump >= 0 && s != trump &&
                               (((lho & sm) == 0 && (lho & SUIT(trump))) ||
                                ((rho & sm) == 0 && (rho & SUIT(trump))));
                if ((own >> top) & 1) {
                    /* a winner (the run holds the top card): no bonus of its own (60 before;
                     * the strong-suit bonus below covers the good cases; -10 measured
                     * -8.5% nodes in NT, -12% with trumps, 13-card value, seeds 11/31/12) */
                    sc = -10 + r;
                } else if ((pard >> top) & 1) {
                    sc = 45 - r; /* low towards partner's top card */
                } else {
                    /* our long suits, the opponents' short ones; knock out their top
                     * card when we hold the next one */
                    int ourn = POPC((own | pard) & sm), oppn = POPC((lho | rho) & sm);
                    sc = 20 - r - 2 * oppn + 2 * ourn;
                    u64 as2 = as & ~(1ull << top);
                    if (as2 && (((own | pard) >> HIBIT(as2)) & 1)) sc += 10;
                    /* a finesse against LHO's top card through partner's second (first,
                     * even before cashing); not into RHO's guarded top card (DDS's and
                     * bridge-solver's rules; measured 60 / 10 best, seed 11: 13-card
                     * medians -15% NT, -33% spades) */
                    if (as2 && ((lho >> top) & 1) && ((pard >> HIBIT(as2)) & 1)) sc += 60;
                    if (((rho >> top) & 1) && POPC(rho & sm) > 1) sc -= 10;
                }
                {
                    /* bridge-solver's lead categories (measured on 13-card deals of seeds
                     * 11, 31 and 12, value: -22% nodes in NT, -13% with trumps):
                     * - NT: more finesses against LHO through partner (partner's ace
                     *   against LHO's king with partner's queen or our queen and jack;
                     *   partner's king against LHO's queen with partner's jack or our
                     *   jack and ten), partner and LHO holding two cards or more;
                     * - a strong suit (both opponents follow, our side holds two of the
                     *   top three cards) early;
                     * - a card from the middle of the suit (neither the bottom nor in
                     *   the run that holds the top) late */
                    u64 ps = pard & sm, os = (own | pard) & sm, x = as;
                    u64 t5[5];
                    for (int q = 0; q < 5; q++) {
                        t5[q] = x ? 1ull << HIBIT(x) : 0;
                        x &= ~t5[q];
                    }
                    if (trump < 0 && POPC(ps) >= 2 && POPC(lho & sm) >= 2 &&
                        (((pard & t5[0]) && (lho & t5[1]) &&
                          ((pard & t5[2]) || ((os & t5[2]) && (os & t5[3])))) ||
                         ((pard & t5[1]) && (lho & t5[2]) &&
                          ((pard & t5[3]) || ((os & t5[3]) && (os & t5[4]))))))
                        sc += 60;
                    if ((lho & sm) && (rho & sm) &&
                        !!(os & t5[0]) + !!(os & t5[1]) + !!(os & t5[2]) >= 2)
                        sc += 70;
                    if (card != CTZ(own & sm) && (as & ~((2ull << card) - 1) & ~own)) sc -= 20;
                }
                if (opp_ruff) sc -= 80;
                if (trump >= 0 && s == trump) {
                    sc -= 5;
                    /* draw trumps when our side holds more of them */
                    if (POPC((own | pard) & sm) > POPC((lho | rho) & sm) && ((lho | rho) & sm))
                        sc += 15;
                }
                /* a suit partner can ruff (and the opponents cannot) */
                if (trump >= 0 && s != trump && !(pard & sm) && (pard & SUIT(trump)) &&
                    !opp_ruff && !((own >> top) & 1))
                    sc = 55 - r;
            } else {
                int pwin = (c->wseat & 1) == side;
                int wins = beats(card, c->wcard, trump);
                int follow = s == (c->tcard[c->left][0] >> 4);
                if (pwin) {
                    if (wins)
                        sc = -30 - r; /* no need to overtake partner */
                    else
                        sc = 20 - r;
                    if (pos == 2) {
                        /* third hand: partner's card can be beaten by the fourth hand:
                         * better a winner the fourth hand cannot beat */
                        int ls = c->tcard[c->left][0] >> 4;
                        u64 f4 = lho & SUIT(ls), t4 = trump >= 0 ? lho & SUIT(trump) : 0;
                        int pbeat, safe = 0;
                        int pw = c->wcard, pws = pw >> 4;
                        if (f4)
                            pbeat = pws == ls && HIBIT(f4) > pw;
                        else
                            pbeat = t4 && (pws != trump || HIBIT(t4) > pw);
                        if (pbeat && wins) safe = safe_from(card, ls, lho, trump);
                        if (safe) sc = 40 - r;
                    }
                } else if (wins) {
                    sc = 50 - r; /* cheapest winner first */
                    if (pos == 1) {
                        /* second hand: a winner the third hand can beat comes after the
                         * low cards (partner plays last) */
                        int ls = c->tcard[c->left][0] >> 4;
                        if (!safe_from(card, ls, lho, trump)) sc = 5 - r;
                    }
                    if (pos == 2) {
                        /* third hand: better a winner the fourth hand cannot beat */
                        int ls = c->tcard[c->left][0] >> 4;
                        if (safe_from(card, ls, lho, trump)) sc += 20;
                    }
                } else {
                    sc = 10 - r;
                }
                if (!follow && !(trump >= 0 && s == trump)) {
                    /* discard: from long suits, low cards */
                    sc = 15 - r + 2 * POPC(own & sm);
                    if (pwin) sc += 5;
                }
            }
        } else {
            /* misere: lead low, preferring leads the opponents must win when every
             * player ducks; follow with the highest card that still loses, else the
             * highest; discard high cards, trumps last */
            if (pos == 0) {
                sc = 20 - r;
                int wc = card, wsd = side;
                for (int k = 1; k < 4; k++) {
                    u64 hs = c->h[(seat + k) & 3] & sm;
                    if (!hs) continue;
                    u64 under = hs & ((1ull << wc) - 1);
                    int pc = under ? HIBIT(under) : CTZ(hs);
                    if (pc > wc) {
                        wc = pc;
                        wsd = (seat + k) & 1;
                    }
                }
                if (wsd != side) sc += 30;
            } else {
                int wins = beats(card, c->wcard, trump);
                int follow = s == (c->tcard[c->left][0] >> 4);
                if (!follow) {
                    sc = 100 + r + ((trump >= 0 && s == trump) ? -60 : 0);
                } else if (!wins) {
                    sc = 100 + r;
                } else {
                    sc = 50 + r;
                }
            }
        }
        /* the table's move, the killer and the cut cache's card; on lead the cut cache
         * (keyed on the leader's whole hand) first: measured, 10-12% fewer nodes at 13
         * cards than below the table's move (normal play; misere keeps 100 / 50) */
        if (card == hint) sc += 200;
        if (card == kill && pos == 0) sc += c->misere ? 100 : 50;
        if (card == cc) sc += pos > 0 ? 100 : c->misere ? 50 : 300;
        mv[i].score = sc;
    }
    sort_moves(mv, n);
}

/* ------------------------------------------------------------------------ */
/* Quick tricks (normal play only): tricks the leader's side surely takes by
 * cashing top cards, from the leader's hand or, after an entry, from partner's.
 * Returns the count and the rank winners used. */

/* consecutive top cards of `all` in suit mask `sm` held by `own`; *low = the lowest */
static inline int top_run(u64 own, u64 all, u64 sm, u64 *low) {
    u64 as = all & sm;
    int k = 0;
    *low = 0;
    while (as) {
        int top = HIBIT(as);
        if (!((own >> top) & 1)) break;
        k++;
        *low = 1ull << top;
        as ^= 1ull << top;
    }
    return k;
}

/* the rank winner a run of k top cards of suit mask sm in seat L's hand needs: its
 * lowest card `low`, or only the m-th card from the top when the other three hands
 * hold at most m < k cards of the suit (after m rounds L's cards win by length), none
 * when they hold none. Flag 65536 keeps the whole run. */
static inline u64 run_winner(const Ctx *c, int L, u64 all, u64 sm, int k, u64 low) {
    if (g_flags & 65536) return low;
    int m1 = POPC(c->h[(L + 1) & 3] & sm), m2 = POPC(c->h[(L + 2) & 3] & sm),
        m3 = POPC(c->h[(L + 3) & 3] & sm);
    int m = m1 > m2 ? m1 : m2;
    if (m3 > m) m = m3;
    if (m >= k) return low;
    if (m == 0) return 0;
    u64 x = c->h[L] & all & sm;
    for (int i = 0; i < m - 1; i++) x ^= 1ull << HIBIT(x);
    return 1ull << HIBIT(x);
}

/* tricks seat L, on lead, cashes from its own top cards; `spent` = cards partner
 * plays before (used for the "partner forced to ruff" test). *side_ok tells whether
 * side suits were counted (in trumps: the opponents' trumps were drawn). */
static int cash_from(const Ctx *c, int L, u64 all, u64 *rw, int spent, int *side_ok_out) {
    u64 own = c->h[L];
    u64 lho = c->h[(L + 1) & 3], rho = c->h[(L + 3) & 3], pard = c->h[(L + 2) & 3];
    int trump = c->trump;
    int qt = 0, side_ok = 1, qside = 0;
    u64 used = 0, sused = 0, low;
    int ol = 0, orr = 0; /* the opponents' trumps left after our top trumps */
    if (trump >= 0) {
        u64 T = SUIT(trump);
        int k = top_run(own, all, T, &low);
        qt += k;
        if (k) used |= run_winner(c, L, all, T, k, low);
        ol = POPC(lho & T) - k;
        orr = POPC(rho & T) - k;
    }
    for (int s = 0; s < 4; s++) {
        if (s == trump) continue;
        u64 sm = SUIT(s);
        int k = top_run(own, all, sm, &low);
        if (!k) continue;
        /* an opponent who still holds trumps ruffs once he is out of the suit */
        int lim = k;
        if (ol > 0 && POPC(lho & sm) < lim) lim = POPC(lho & sm);
        if (orr > 0 && POPC(rho & sm) < lim) lim = POPC(rho & sm);
        if (lim <= 0) continue;
        if (lim < k) {
            /* the lim-th top card is the lowest one used */
            u64 x = own & sm & ~(low - 1);
            for (int i = 0; i < k - lim; i++) x &= x - 1;
            low = x & -x;
        } else {
            low = run_winner(c, L, all, sm, k, low);
        }
        qside += lim;
        sused |= low;
    }
    /* partner must never be forced to ruff (and take the lead) while we cash */
    if (trump >= 0 && (pard & SUIT(trump)) && POPC(pard & ~SUIT(trump)) < qt + qside + spent)
        side_ok = 0;
    else if (qside) {
        qt += qside;
        used |= sused;
    }
    *side_ok_out = side_ok;
    *rw = used;
    return qt;
}

static int quick_tricks(const Ctx *c, u64 all, u64 *rw) {
    int L = c->leader, P = (L + 2) & 3;
    int trump = c->trump;
    int ok;
    u64 rw1;
    int best = cash_from(c, L, all, &rw1, 0, &ok);
    *rw = rw1;
    /* entry to partner: a suit the leader holds whose top card partner holds, which
     * the opponents cannot ruff */
    u64 own = c->h[L], pard = c->h[P];
    u64 lho = c->h[(L + 1) & 3], rho = c->h[(L + 3) & 3];
    for (int s = 0; s < 4; s++) {
        u64 sm = SUIT(s);
        u64 as = all & sm;
        if (!(own & sm) || !(pard & sm)) continue;
        int top = HIBIT(as);
        if (!((pard >> top) & 1)) continue;
        if (trump >= 0 && s != trump) {
            u64 T = SUIT(trump);
            if ((!(lho & sm) && (lho & T)) || (!(rho & sm) && (rho & T))) continue;
        }
        u64 rw2;
        int q = cash_from(c, P, all, &rw2, 1, &ok);
        if (!ok && s != trump) {
            /* only P's top trumps were counted: add the entry trick itself */
            q += 1;
            rw2 |= 1ull << top;
        }
        if (q > best) {
            best = q;
            *rw = rw2 | (1ull << top);
        }
        break; /* the partner's count does not depend on the entry suit */
    }
    /* no trumps in play: cash the leader's top cards, then cross to partner in a suit
     * where the leader keeps a low card and partner holds the top, and cash his. The
     * partner must be able to keep his top cards while the leader cashes, and the
     * other way round (enough other cards to follow or discard with). */
    if (trump < 0 || !((own | pard | lho | rho) & SUIT(trump))) {
        int kl = 0, kp = 0;
        u64 usedl = 0, usedp = 0, topl = 0, topp = 0, low;
        for (int s = 0; s < 4; s++) {
            u64 sm = SUIT(s);
            int k = top_run(own, all, sm, &low);
            if (k) {
                kl += k;
                usedl |= low;
                topl |= own & sm & ~(low - 1);
            }
            k = top_run(pard, all, sm, &low);
            if (k) {
                kp += k;
                usedp |= low;
                topp |= pard & sm & ~(low - 1);
            }
        }
        if (kl && kp && kl + kp > best && POPC(pard & ~topp) >= kl &&
            POPC(own & ~topl) >= kp) {
            for (int s = 0; s < 4; s++) {
                u64 sm = SUIT(s);
                if (!(own & sm & ~topl) || !(topp & sm)) continue;
                /* entry: the leader's low card in s, partner's top of s */
                best = kl + kp;
                *rw = usedl | usedp;
                break;
            }
        }
    }
    return best;
}

/* greedy cashing line for the leader's side when the opponents cannot ruff (no trumps,
 * or none left with them): the hand on lead cashes a card that is the current top of
 * its suit, or crosses to partner's top card with a low card of that suit; partner
 * follows low or discards a card that is not a top card. It is one concrete line, so
 * its count is a sure number of tricks; the rank winners are the winning cards. */
static int greedy(u64 H0, u64 H1, u64 oppA, u64 oppB, u64 all, int trump, u64 *rw) {
    u64 T = trump >= 0 ? SUIT(trump) : 0;
    *rw = 0;
    u64 hand[2] = {H0, H1};
    u64 rest = all; /* cards still out, opponents' included */
    int la[4], lb[4]; /* the opponents' lengths: they follow suit in every counted trick */
    for (int s = 0; s < 4; s++) {
        la[s] = POPC(oppA & SUIT(s));
        lb[s] = POPC(oppB & SUIT(s));
    }
    int on = 0, tricks = 0;
    u64 used = 0;
    for (int guard = 0; guard < 13; guard++) {
        u64 H = hand[on], Hp = hand[on ^ 1];
        if (!H) break;
        int ta = trump >= 0 ? la[trump] : 0, tb = trump >= 0 ? lb[trump] : 0;
        /* a suit both opponents are out of: their cards of it are gone, and a card led
         * in it that partner cannot follow wins by length, not by rank */
        u64 gone = 0;
        if (!(g_flags & 262144))
            for (int s = 0; s < 4; s++)
                if (!la[s] && !lb[s]) gone |= SUIT(s);
        rest &= ~(gone & ~(H | Hp));
        /* the current top card of each suit, if our side holds it, in a suit that no
         * opponent can ruff */
        int best = -1, bestscore = -1, cross = -1, crossscore = -1;
        for (int s = 0; s < 4; s++) {
            u64 rs = rest & SUIT(s);
            if (!rs) continue;
            if (s != trump && ((!la[s] && ta) || (!lb[s] && tb))) continue;
            int top = HIBIT(rs);
            if ((H >> top) & 1) {
                int sc = POPC(H & SUIT(s)) * 4 + (!(Hp & SUIT(s)) ? 2 : 0);
                if (s == trump && (ta || tb)) sc += 100; /* draw trumps first */
                if (sc > bestscore) {
                    bestscore = sc;
                    best = top;
                }
            } else if (((Hp >> top) & 1) && (H & SUIT(s))) {
                int sc = POPC(Hp & SUIT(s));
                if (sc > crossscore) {
                    crossscore = sc;
                    cross = s;
                }
            }
        }
        int lead, win;
        int winner_is_partner = 0;
        if (best >= 0) {
            lead = best;
            win = best;
        } else if (cross >= 0) {
            u64 hs = H & SUIT(cross);
            lead = CTZ(hs);
            win = HIBIT(rest & SUIT(cross));
            winner_is_partner = 1;
        } else {
            break;
        }
        int ls = lead >> 4;
        hand[on] &= ~(1ull << lead);
        rest &= ~(1ull << lead);
        /* partner's card */
        u64 pf = Hp & SUIT(ls);
        int pc;
        if (winner_is_partner) {
            pc = win;
        } else if (pf) {
            pc = CTZ(pf);
        } else {
            /* discard: the lowest card that is not the current top of its suit, and
             * not a trump if there is a choice */
            u64 cand = Hp & ~T, keep = 0;
            for (int s = 0; s < 4; s++) {
                u64 rs = rest & SUIT(s);
                if (rs) keep |= 1ull << HIBIT(rs);
            }
            if (!cand) {
                /* partner holds trumps only: he ruffs and takes the lead */
                pc = CTZ(Hp);
                winner_is_partner = 1;
                win = pc;
            } else {
                u64 low = cand & ~keep;
                pc = low ? CTZ(low) : CTZ(cand);
            }
        }
        if (Hp) {
            hand[on ^ 1] &= ~(1ull << pc);
            rest &= ~(1ull << pc);
        }
        /* the opponents follow (their cards stay in `rest`, which is conservative) or
         * discard, having no trumps */
        if (la[ls]) la[ls]--;
        if (lb[ls]) lb[ls]--;
        tricks++;
        if (!((gone >> lead) & 1) || winner_is_partner || pf) used |= 1ull << win;
        if (winner_is_partner) on ^= 1;
    }
    /* per suit, the lowest winning card stands for all of them */
    u64 r = 0;
    for (int s = 0; s < 4; s++) {
        u64 u = used & SUIT(s);
        if (u) r |= u & -u;
    }
    *rw = r;
    return tricks;
}

static int greedy_cash(const Ctx *c, u64 all, u64 *rw) {
    int L = c->leader;
    return greedy(c->h[L], c->h[(L + 2) & 3], c->h[(L + 1) & 3], c->h[(L + 3) & 3], all,
                  c->trump, rw);
}

/* trump tricks seats A and B (partners) surely take: each trump of the run of top
 * trumps they hold wins the trick it is played to, and the hand with more trumps can
 * keep them apart, so min(run, the longer hand's trumps); *rw = the lowest counted */
static int top_trumps(const Ctx *c, u64 all, int A, int B, u64 *rw) {
    *rw = 0;
    if (c->trump < 0 || (g_flags & 131072)) return 0;
    u64 T = SUIT(c->trump), both = (c->h[A] | c->h[B]) & T, as = all & T;
    int la = POPC(c->h[A] & T), lb = POPC(c->h[B] & T);
    int cap = la > lb ? la : lb, k = 0;
    while (as && k < cap) {
        int top = HIBIT(as);
        if (!((both >> top) & 1)) break;
        k++;
        *rw = 1ull << top;
        as ^= 1ull << top;
    }
    return k;
}

/* tricks the leader's opponents surely take (normal play): the top trumps in one of
 * their hands, or this trick when they hold the top card of every suit the leader
 * holds (and partner cannot ruff it) */
static int sure_losers(const Ctx *c, u64 all, u64 *rw) {
    int L = c->leader, P = (L + 2) & 3;
    int trump = c->trump;
    int best = 0;
    u64 brw = 0, low;
    if (trump >= 0) {
        u64 T = SUIT(trump);
        for (int i = 1; i < 4; i += 2) {
            int o = (L + i) & 3;
            int k = top_run(c->h[o], all, T, &low);
            if (k > best) {
                best = k;
                brw = low;
            }
        }
        u64 trw;
        int k = top_trumps(c, all, (L + 1) & 3, (L + 3) & 3, &trw);
        if (k > best) {
            best = k;
            brw = trw;
        }
    }
    if (best == 0) {
        u64 own = c->h[L], pard = c->h[P];
        u64 opp = c->h[(L + 1) & 3] | c->h[(L + 3) & 3];
        u64 used = 0;
        int lose = 1;
        for (int s = 0; s < 4 && lose; s++) {
            u64 sm = SUIT(s);
            if (!(own & sm)) continue;
            int top = HIBIT(all & sm);
            if (!((opp >> top) & 1)) {
                lose = 0;
                break;
            }
            used |= 1ull << top;
            if (trump >= 0 && s != trump && !(pard & sm) && (pard & SUIT(trump))) lose = 0;
        }
        if (lose) {
            /* whatever the leader leads, the opponent with its top card wins, then
             * runs the opponents' greedy cashing line */
            int worst = 99;
            u64 wrw = used;
            u64 T = trump >= 0 ? SUIT(trump) : 0;
            for (int s = 0; s < 4; s++) {
                u64 sm = SUIT(s);
                if (!(own & sm)) continue;
                int top = HIBIT(all & sm);
                int O = ((c->h[(L + 1) & 3] >> top) & 1) ? (L + 1) & 3 : (L + 3) & 3;
                int O2 = (O + 2) & 3;
                u64 hO = c->h[O] & ~(1ull << top), hO2 = c->h[O2];
                u64 rest = all & ~(1ull << top);
                u64 f = hO2 & sm;
                int card;
                if (f) {
                    card = CTZ(f);
                } else if (trump >= 0 && !(hO2 & ~T)) {
                    worst = worst < 1 ? worst : 1; /* a forced ruff: no more to say */
                    continue;
                } else {
                    u64 keep = 0, cand = hO2 & ~T;
                    for (int s2 = 0; s2 < 4; s2++) {
                        u64 rs = rest & SUIT(s2);
                        if (rs) keep |= 1ull << HIBIT(rs);
                    }
                    u64 lowc = cand & ~keep;
                    card = lowc ? CTZ(lowc) : CTZ(cand);
                }
                hO2 &= ~(1ull << card);
                rest &= ~(1ull << card);
                /* the leader's side has played to this trick too: one card of s each
                 * (a void partner here holds no trumps, so his discard is harmless) */
                u64 ownl = own & ~((own & sm) & -(own & sm));
                u64 pardl = (pard & sm) ? pard & ~((pard & sm) & -(pard & sm)) : pard;
                u64 grw;
                int g = greedy(hO, hO2, ownl, pardl, rest, trump, &grw);
                wrw |= grw;
                if (1 + g < worst) worst = 1 + g;
            }
            best = worst;
            brw = wrw;
        }
    }
    *rw = brw;
    return best;
}

/* ------------------------------------------------------------------------ */
/* Search                                                                    */

static int ab(Ctx *c, int target, u64 *rw);

/* Misere bounds ---------------------------------------------------------- */

/* one-trick game from card `k` of the current trick (led by L, winner so far wseat
 * with wcard, led suit ls): can side A make side G win this trick (with `depth` 1: this
 * trick or the next one)? Players of side A choose (exists), the others answer (for
 * all). In the last trick looked at, a card that does not beat the current winner is as
 * good as any other such card. h: hands, all: cards at the trick start,
 * played: the cards of the trick so far. When it returns 1, *rw = the rank winners of
 * the proof: the winning card of every line of the proof that another card of its suit
 * was played to, or could have been as one of the cards a duck stands for (the lines
 * left out, other ducks and the higher cards of a run, then end the same way in every
 * position that keeps the cards from the top down to that winner). */
static int force(const Ctx *c, u64 *h, u64 all, int L, int k, int wseat, int wcard, int ls,
                 int A, int G, u64 played, u64 *rw, int depth, int *ref) {
    if (k == 4) {
        u64 w = (played & SUIT(wcard >> 4) & ~(1ull << wcard)) ? 1ull << wcard : 0;
        if ((wseat & 1) != G) {
            if (!depth) return 0;
            /* the next trick, led by the winner (no duck stood for other cards here) */
            u64 crw = 0;
            if (!force(c, h, all & ~played, wseat, 0, wseat, 0, 0, A, G, 0, &crw, depth - 1,
                       NULL))
                return 0;
            *rw = w | crw;
            return 1;
        }
        *rw = w;
        return 1;
    }
    int seat = (L + k) & 3;
    int want = (seat & 1) == A;
    u64 hand = h[seat];
    if (k > 0) {
        u64 f = hand & SUIT(ls);
        if (f) hand = f;
    }
    int ducked = 0;
    u64 acc = 0, legal = hand;
    while (hand) {
        int b = CTZ(hand);
        hand &= hand - 1;
        int nw = wseat, nc = wcard, nls = ls;
        u64 pl = played | (1ull << b);
        if (k == 0) {
            u64 below = all & ((1ull << b) - 1) & SUIT(b >> 4);
            if (below && ((h[seat] >> HIBIT(below)) & 1)) continue;
            nw = seat;
            nc = b;
            nls = b >> 4;
        } else if (depth) {
            /* more tricks follow: every card counts, one per run */
            u64 below = all & ((1ull << b) - 1) & SUIT(b >> 4);
            if (below && ((h[seat] >> HIBIT(below)) & 1)) continue;
            if (beats(b, wcard, c->trump)) {
                nw = seat;
                nc = b;
            }
        } else if (beats(b, wcard, c->trump)) {
            u64 below = all & ((1ull << b) - 1) & SUIT(b >> 4);
            if (below && ((h[seat] >> HIBIT(below)) & 1) && beats(HIBIT(below), wcard, c->trump))
                continue; /* same run as a lower card that also beats */
            nw = seat;
            nc = b;
        } else {
            if (ducked) continue;
            ducked = 1;
            /* this card stands for every card that does not beat the winner: all of
             * them count as played, so that the winner is kept whenever one of them
             * is of its suit */
            u64 beat = legal & SUIT(wcard >> 4) & ~((2ull << wcard) - 1);
            if (c->trump >= 0 && (wcard >> 4) != c->trump) beat |= legal & SUIT(c->trump);
            pl |= legal & ~beat;
        }
        h[seat] ^= 1ull << b;
        u64 crw = 0;
        int r = force(c, h, all, L, k + 1, nw, nc, nls, A, G, pl, &crw, depth, NULL);
        h[seat] ^= 1ull << b;
        if (depth && r) {
            /* the card stood for its run: if a higher card of the run won by rank
             * later, keep the run down to this card */
            int x = b;
            for (;;) {
                u64 above = all & SUIT(b >> 4) & ~((2ull << x) - 1);
                if (!above) break;
                int nb = CTZ(above);
                if (!((h[seat] >> nb) & 1)) break;
                if ((crw >> nb) & 1) {
                    crw |= 1ull << b;
                    break;
                }
                x = nb;
            }
        }
        if (r == want) {
            if (r) *rw = crw;
            else if (ref) *ref = b; /* this card refutes */
            return r;
        }
        acc |= crw;
    }
    if (!want) *rw = acc;
    return !want;
}

/* misere claim (no trumps, or nobody else holds one): the leader holds the top cards
 * of every suit he holds, so his side wins every trick */
static int misere_claim(const Ctx *c, u64 all, u64 *rw) {
    int L = c->leader;
    u64 own = c->h[L];
    if (c->trump >= 0) {
        u64 T = SUIT(c->trump);
        u64 others = (c->h[0] | c->h[1] | c->h[2] | c->h[3]) & ~own;
        if ((others & T) && (own & ~T)) return 0;
    }
    u64 used = 0;
    for (int s = 0; s < 4; s++) {
        u64 sm = SUIT(s);
        u64 o = own & sm;
        if (!o) continue;
        u64 above = all & sm & ~o & ~((1ull << CTZ(o)) - 1);
        if (above) return 0;
        used |= o & -o;
    }
    *rw = used;
    return 1;
}

/* side claim (misere, no trumps in play): in every suit each card of side B lies below
 * each card of side A. Then side A wins every trick when it is on lead (its lead is the
 * highest card of the suit played), and also when B's leader holds a suit A holds (A
 * must win it, then leads). Returns the side that wins all, or -1; *rw: per suit, A's
 * lowest card. */
static int side_claim(const Ctx *c, u64 all, u64 *rw) {
    if (c->trump >= 0 && (all & SUIT(c->trump))) return -1;
    u64 hs[2] = {c->h[0] | c->h[2], c->h[1] | c->h[3]};
    for (int A = 0; A < 2; A++) {
        u64 a = hs[A], b = hs[A ^ 1], used = 0;
        int ok = 1;
        for (int s = 0; s < 4 && ok; s++) {
            u64 as = a & SUIT(s), bs = b & SUIT(s);
            if (!as || !bs) continue;
            if (HIBIT(bs) > CTZ(as)) ok = 0;
            used |= as & -as;
        }
        if (!ok) continue;
        int L = c->leader;
        if ((L & 1) != A) {
            u64 lh = c->h[L];
            int exit = 0;
            for (int s = 0; s < 4; s++)
                if ((lh & SUIT(s)) && (a & SUIT(s))) exit = 1;
            if (!exit) continue;
        }
        *rw = used;
        return A;
    }
    return -1;
}

/* misere, trumps: for each side X (0 = NS), tricks X surely takes with the trumps of
 * one of its hands. Of that hand's j highest trumps, every one lost needs a higher trump
 * of the other side in the same trick, each such trump covers one trick only: X takes at
 * least j - (the other side's trumps above the j-th). *rw: that j-th trump (the pattern
 * keeps the trumps from the top down to it), none when the other side holds no trump
 * (the shape says all). */
static void misere_trumps(const Ctx *c, u64 all, int tc[2], u64 trw[2]) {
    u64 T = SUIT(c->trump);
    for (int X = 0; X < 2; X++) {
        u64 y = (c->h[X ^ 1] | c->h[X ^ 3]) & T;
        int best = 0;
        u64 brw = 0;
        for (int k = 0; k < 2; k++) {
            u64 t = c->h[X ^ (2 * k)] & T;
            if (!y) {
                if (POPC(t) > best) {
                    best = POPC(t);
                    brw = 0;
                }
                continue;
            }
            int j = 0;
            while (t) {
                int b = HIBIT(t);
                t ^= 1ull << b;
                j++;
                int v = j - POPC(y >> b);
                if (v > best) {
                    best = v;
                    brw = 1ull << b;
                }
            }
        }
        tc[X] = best;
        trw[X] = brw;
    }
}

/* value of the last trick (each seat holds one card), NS >= target? */
static int last_trick(Ctx *c, int target, u64 *rw) {
    int L = c->leader;
    int lead = CTZ(c->h[L]);
    c->st_lead++;
    int wcard = lead, wseat = L, nsame = 1;
    for (int i = 1; i < 4; i++) {
        int p = (L + i) & 3;
        int card = CTZ(c->h[p]);
        if ((card >> 4) == (wcard >> 4)) {
            nsame++;
            if (card > wcard) {
                wcard = card;
                wseat = p;
            }
        } else if ((card >> 4) == c->trump) {
            wcard = card;
            wseat = p;
            nsame = 1;
        }
    }
    /* nsame counts cards of the winner's suit only if the winner did not change suit
     * afterwards; recount properly */
    nsame = 0;
    for (int i = 0; i < 4; i++) nsame += (CTZ(c->h[i]) >> 4) == (wcard >> 4);
    *rw = nsame > 1 ? (1ull << wcard) : 0;
    (void)target;
    return c->won + ((wseat & 1) == 0);
}

#include "_dd_misere.h"

#define MATCH_MAX 8
/* the probe's list of matching entries, when still complete and valid */
#define NCAND (nmatch <= MATCH_MAX && c->st_reset == reset0 ? nmatch : -1)

static int ab(Ctx *c, int target, u64 *rw) {
    if (UNLIKELY(c->nodes >= c->check_at)) budget_check(c, c->nodes);
    c->nodes++;
    if (c->aborted) {
        /* over the node budget: unwind; the job's result is discarded */
        *rw = 0;
        return 0;
    }
    int pos = c->pos;
    int seat = (c->leader + pos) & 3;
    int maxnode = ((seat & 1) == 0) != (c->misere != 0);
    u64 shape = 0, code[2] = {0, 0}, all = 0;
    Slot *sl = NULL;
    int hint = -1;
    u64 myrw = 0;
    int32_t match[MATCH_MAX]; /* bucket entries that match this position (for the store) */
    int nmatch = 0;
    long long reset0 = 0;

    if (pos == 0) {
        if (c->won >= target) {
            *rw = 0;
            return c->won;
        }
        if (c->won + c->left < target) {
            *rw = 0;
            return c->won + c->left;
        }
        if (c->left == 1) return last_trick(c, target, rw);
        c->ffail[c->left][0] = -1;
        all = c->h[0] | c->h[1] | c->h[2] | c->h[3];
        c->tall[c->left] = all;
        shape = shape_of(c->h);
        __builtin_prefetch(&c->slots[slot_hash(shape, c->leader)]);
        rel_code(c->h, all, code);
        sl = slot_find(c, shape, c->leader, 0);
        c->st_probe++;
        reset0 = c->st_reset;
        if (sl) {
            int need = target - c->won;
            Entry *base = c->pool + sl->off;
            u32 *tg = c->tags + sl->off;
            u32 ptag = top_tag(all, code[0], code[1]);
            for (int32_t i = sl->n - 1; i >= 0; i--) {
                /* the tag says whether the entry can match at all */
                if (!tag_may_match(tg[i], ptag)) continue;
                const Entry *e = &base[i];
                c->st_scan++;
                if (!code_matches(e, code)) continue;
                if (e->lo >= need || e->hi < need) {
                    c->st_hit++;
                    *rw = sig_cards(all, e->mask);
                    int v = e->lo >= need ? c->won + e->lo : c->won + e->hi;
                    if (i < sl->n - 1) {
                        /* entries that cut move to the front of the scan */
                        Entry t = base[i];
                        base[i] = base[sl->n - 1];
                        base[sl->n - 1] = t;
                        u32 tt = tg[i];
                        tg[i] = tg[sl->n - 1];
                        tg[sl->n - 1] = tt;
                    }
                    return v;
                }
                if (nmatch < MATCH_MAX) match[nmatch] = i;
                nmatch++;
                if (hint < 0 && e->best != 0xFF) hint = e->best;
            }
        }
        if (c->misere && !(g_flags & 1)) {
            int L = c->leader, lside = L & 1, left = c->left;
            u64 mrw;
            if (misere_claim(c, all, &mrw)) {
                /* the leader's side takes every trick */
                *rw = mrw;
                int ns = lside == 0 ? left : 0;
                tt_store(c, shape, L, code, all, mrw, ns, ns, -1);
                return c->won + ns;
            }
            int sc = (g_flags & 8192) ? -1 : side_claim(c, all, &mrw);
            if (sc >= 0) {
                *rw = mrw;
                int ns = sc == 0 ? left : 0;
                tt_store(c, shape, L, code, all, mrw, ns, ns, -1);
                return c->won + ns;
            }
            /* trump count: a trump above every trump of the other side wins each trick
             * it is played to, and every card is played, so each side takes at least as
             * many tricks as one of its hands holds such trumps */
            if (c->trump >= 0 && !(g_flags & 16384)) {
                int need = target - c->won;
                u64 trw[2];
                int tc[2];
                misere_trumps(c, all, tc, trw);
                if (tc[0] >= need) {
                    *rw = trw[0];
                    tt_store_cand(c, shape, L, code, all, trw[0], tc[0], left, -1, match, NCAND);
                    return c->won + tc[0];
                }
                if (left - tc[1] < need) {
                    *rw = trw[1];
                    tt_store_cand(c, shape, L, code, all, trw[1], 0, left - tc[1], -1, match,
                                  NCAND);
                    return c->won + left - tc[1];
                }
            }
            /* at the extremes, as inside a trick (below): NS needing one trick succeed
             * if EW can make NS win this trick (or one of the next two), NS needing every
             * trick fail if NS can make EW win one */
            int need = target - c->won;
            int G = need == left ? 1 : (need == 1 ? 0 : -1);
            if (G >= 0 && left > 1 && !(g_flags & 128)) {
                u64 hh[4] = {c->h[0], c->h[1], c->h[2], c->h[3]};
                u64 frw = 0;
                int r1 = -1, r2 = -1;
                if (force(c, hh, all, L, 0, L, 0, 0, G ^ 1, G, 0, &frw, 0, &r1) ||
                    (!(g_flags & 512) && left > 2 && (frw = 0, 1) &&
                     force(c, hh, all, L, 0, L, 0, 0, G ^ 1, G, 0, &frw, 1, &r2))) {
                    *rw = frw;
                    if (G == 0)
                        tt_store_cand(c, shape, L, code, all, frw, 1, left, -1, match, NCAND);
                    else
                        tt_store_cand(c, shape, L, code, all, frw, 0, left - 1, -1, match,
                                      NCAND);
                    return G == 0 ? c->won + 1 : c->won + left - 1;
                }
                c->ffail[left][0] = (int8_t)G;
                c->fref[left][0][0] = (int8_t)r1;
                c->fref[left][0][1] = (int8_t)r2;
            }
        }
        if (!c->misere && !(g_flags & 1)) {
            u64 qrw;
            int qt = quick_tricks(c, all, &qrw);
            {
                u64 grw;
                int gt = greedy_cash(c, all, &grw);
                if (gt > qt) {
                    qt = gt;
                    qrw = grw;
                }
                gt = top_trumps(c, all, c->leader, (c->leader + 2) & 3, &grw);
                if (gt > qt) {
                    qt = gt;
                    qrw = grw;
                }
            }
            u64 lrw;
            int lt = sure_losers(c, all, &lrw);
            if (lt > 0) {
                if ((c->leader & 1) == 1) {
                    if (c->won + lt >= target) {
                        c->st_qt++;
                        *rw = lrw;
                        tt_store_cand(c, shape, c->leader, code, all, lrw, lt, c->left, -1,
                                      match, NCAND);
                        return c->won + lt;
                    }
                } else {
                    if (c->won + c->left - lt < target) {
                        c->st_qt++;
                        *rw = lrw;
                        tt_store_cand(c, shape, c->leader, code, all, lrw, 0, c->left - lt, -1,
                                      match, NCAND);
                        return c->won + c->left - lt;
                    }
                }
            }
            if (qt > 0) {
                if ((c->leader & 1) == 0) {
                    if (c->won + qt >= target) {
                        c->st_qt++;
                        *rw = qrw;
                        tt_store_cand(c, shape, c->leader, code, all, qrw, qt, c->left, -1,
                                      match, NCAND);
                        return c->won + qt;
                    }
                } else {
                    if (c->won + c->left - qt < target) {
                        c->st_qt++;
                        *rw = qrw;
                        tt_store_cand(c, shape, c->leader, code, all, qrw, 0, c->left - qt, -1,
                                      match, NCAND);
                        return c->won + c->left - qt;
                    }
                }
            }
        }
    }

    if (pos > 0) {
        c->ffail[c->left][pos] = -1;
        /* at the extremes the current trick decides: NS needing every trick fail if
         * the side against that can make EW win it; NS needing one trick succeed if
         * the side for that can make NS win it */
        int need = target - c->won;
        int G = need == c->left ? 1 : (need == 1 ? 0 : -1);
        if (G >= 0 && (c->wseat & 1) == G) {
            /* cheap case: nobody of the other side still to play can beat the winner */
            int ls = c->tcard[c->left][0] >> 4, ws = c->wcard >> 4, tr = c->trump;
            int beaten = 0;
            for (int i = pos; i < 4 && !beaten; i++) {
                int p = (c->leader + i) & 3;
                if ((p & 1) == G) continue;
                u64 hp = c->h[p];
                u64 f = hp & SUIT(ls);
                if (ws == ls) {
                    if (f) beaten = (f >> c->wcard) > 1;
                    else beaten = tr >= 0 && (hp & SUIT(tr)) != 0;
                } else if (!f) {
                    beaten = (hp & SUIT(ws) & ~((2ull << c->wcard) - 1)) != 0;
                }
            }
            if (!beaten) {
                *rw = 1ull << c->wcard;
                return G == 0 ? c->won + 1 : c->won + c->left - 1;
            }
        }
        if (G >= 0 && !c->misere && !(g_flags & 1)) {
            /* normal play: side G surely wins the trick if one of its players still to
             * play has a card that no opponent still to play can beat: the highest card
             * of the led suit among them when no such opponent can ruff, or a trump
             * higher than the current winner and than the trumps of every such
             * opponent void in the led suit */
            int ls = c->tcard[c->left][0] >> 4, tr = c->trump;
            int ruffed = (c->wcard >> 4) != ls;
            u64 oppf = 0, oppt = 0; /* opponents' led-suit cards; trumps of void ones */
            for (int i = pos; i < 4; i++) {
                int p = (c->leader + i) & 3;
                if ((p & 1) == G) continue;
                u64 hp = c->h[p];
                if (hp & SUIT(ls)) oppf |= hp & SUIT(ls);
                else if (tr >= 0) oppt |= hp & SUIT(tr);
            }
            for (int i = pos; i < 4; i++) {
                int p = (c->leader + i) & 3;
                if ((p & 1) != G) continue;
                u64 hp = c->h[p], f = hp & SUIT(ls);
                if (f) {
                    int x = HIBIT(f);
                    if (!ruffed && x > c->wcard && !(oppf >> x) && !oppt) {
                        *rw = 1ull << x;
                        return G == 0 ? c->won + 1 : c->won + c->left - 1;
                    }
                } else if (tr >= 0 && tr != ls && (hp & SUIT(tr))) {
                    int x = HIBIT(hp & SUIT(tr));
                    if ((!ruffed || x > c->wcard) && !(oppt >> x)) {
                        *rw = (ruffed || oppt) ? 1ull << x : 0;
                        return G == 0 ? c->won + 1 : c->won + c->left - 1;
                    }
                }
            }
        }
        if (G >= 0 && c->misere && !(g_flags & 64)) {
            u64 hh[4] = {c->h[0], c->h[1], c->h[2], c->h[3]};
            int ls = c->tcard[c->left][0] >> 4;
            u64 all_t = c->tall[c->left];
            /* the side that wants this outcome chooses: in misere NS want to lose
             * (G = EW when NS need every trick), EW want NS to win */
            int A = c->misere ? G ^ 1 : G;
            u64 played = 0, frw = 0;
            for (int i = 0; i < pos; i++) played |= 1ull << c->tcard[c->left][i];
            /* the tests failed for the previous card's player, of side A: they fail for
             * each of his cards, this one included */
            int pf = c->ffail[c->left][pos - 1] == G;
            int known = pf && (((c->leader + pos - 1) & 1) == A);
            /* ... or for the previous card's player, of side G, refuted by this card */
            int pc = c->tcard[c->left][pos - 1];
            int k1 = known || (pf && c->fref[c->left][pos - 1][0] == pc);
            int k2 = known || (pf && c->fref[c->left][pos - 1][1] == pc);
            int r1 = -1, r2 = -1;
            if ((!k1 && force(c, hh, all_t, c->leader, pos, c->wseat, c->wcard, ls, A, G, played,
                              &frw, 0, &r1)) ||
                (!k2 && !(g_flags & 512) && c->left > 2 && (frw = 0, 1) &&
                 force(c, hh, all_t, c->leader, pos, c->wseat, c->wcard, ls, A, G, played, &frw,
                       1, &r2))) {
                if (g_flags & 256) {
                    /* the coarse rank winners: all of the led suit and the trumps */
                    frw = whole_suit(all_t, ls);
                    if (c->trump >= 0) frw |= whole_suit(all_t, c->trump);
                }
                *rw = frw;
                return G == 0 ? c->won + 1 : c->won + c->left - 1;
            }
            c->ffail[c->left][pos] = (int8_t)G;
            c->fref[c->left][pos][0] = (int8_t)r1;
            c->fref[c->left][pos][1] = (int8_t)r2;
        }
    }

    Move mv[16];
    int n = gen_moves(c, mv);
    if (n > 1) order_moves(c, mv, n, hint);
    if (c->misere && pos == 3 && n > 1 && c->left >= 4 && !(g_flags & DD_NO_ETC))
        FN(etc_order)(c, mv, n, target, maxnode);
    int value = maxnode ? -1 : 99; /* fail-soft bound on NS tricks */
    int best = -1;
    u64 skip = 0;
    for (int i = 0; i < n; i++) {
        Undo u;
        int card = mv[i].card;
        if ((skip >> card) & 1) continue;
        u64 crw = 0;
        play(c, card, &u);
        int v;
        if (c->pos == 0) {
            /* trick complete: the winner may have won by rank */
            u64 tw = trick_rank_winner(c, c->wcard);
            v = ab(c, target, &crw);
            crw |= tw;
        } else {
            v = ab(c, target, &crw);
        }
        int r = v >= target;
        if (maxnode ? v > value : v < value) value = v;
        unplay(c, card, &u);
        /* the move stood for its whole run of touching cards: if a card of the run
         * won by rank below, all of the run must stay significant, down to `card` */
        {
            u64 up = crw & c->h[seat] & SUIT(card >> 4) & ~((2ull << card) - 1);
            if (up) {
                u64 all_t = c->tall[c->left];
                int b = card;
                for (;;) {
                    u64 above = all_t & SUIT(b >> 4) & ~((2ull << b) - 1);
                    if (!above) break;
                    int nb = CTZ(above);
                    if (!((c->h[seat] >> nb) & 1)) break;
                    if ((up >> nb) & 1) {
                        crw |= 1ull << card;
                        break;
                    }
                    b = nb;
                }
            }
        }
        if (r == maxnode) {
            /* cut: this move decides */
            myrw = crw;
            best = card;
            c->killer[c->left][pos] = card;
            c->cutcache[cut_key(c)] = (uint8_t)card;
            break;
        }
        myrw |= crw;
        /* small-card skip: if no card of this suit at or below `card` won a trick by
         * rank below, the lower cards of the suit in this hand lead to positions of the
         * same pattern and fail too */
        {
            u64 ws = crw & SUIT(card >> 4);
            if (!ws || CTZ(ws) > card) {
                /* ... and so do the higher ones below the suit's lowest rank winner
                 * (all of the suit when it has none): they are "x" in the pattern too */
                u64 below = (g_flags & 32768) ? (1ull << card) - 1 : ws ? (ws & -ws) - 1 : ~0ull;
                skip |= SUIT(card >> 4) & below;
            }
        }
    }
    *rw = myrw;
    if (pos == 0) {
        int lo = 0, hi = c->left;
        if (value >= target)
            lo = value - c->won;
        else
            hi = value - c->won;
        tt_store_cand(c, shape, c->leader, code, all, myrw, lo, hi, best, match, NCAND);
    }
    return value;
}

/* ------------------------------------------------------------------------ */
/* Driver                                                                    */


static void setup(Ctx *c, const Job *j) {
    for (int p = 0; p < 4; p++) c->h[p] = j->h[p];
    c->trump = j->trump;
    c->misere = j->misere;
    c->leader = j->leader;
    c->pos = 0;
    c->won = 0;
    int seat = (j->leader + j->ntrick) & 3;
    c->left = POPC(j->h[seat]);
    u64 all = j->h[0] | j->h[1] | j->h[2] | j->h[3];
    for (int i = 0; i < j->ntrick; i++) all |= 1ull << j->trick[i];
    memset(c->tall, 0, sizeof(c->tall));
    c->tall[c->left] = all;
    c->wseat = j->leader;
    c->wcard = j->ntrick ? j->trick[0] : 0;
    for (int i = 0; i < j->ntrick; i++) {
        int card = j->trick[i];
        c->tcard[c->left][i] = card;
        if (i == 0 || beats(card, c->wcard, c->trump)) {
            c->wseat = (j->leader + i) & 3;
            c->wcard = card;
        }
    }
    c->pos = j->ntrick;
    memset(c->killer, 0xFF, sizeof(c->killer));
    /* nothing known (a root inside a trick) */
    memset(c->ffail, 0xFF, sizeof(c->ffail));
    memset(c->fref, 0xFF, sizeof(c->fref));
    memset(c->cutcache, 0xFF, sizeof(c->cutcache));
    tt_reset(c);
}

/* set the budget of the next probe: until node count `end` and time `tend` (0: no
 * time budget), of which it may use the share `num`/16 */
static void probe_budget(Ctx *c, long long end, double tend, int num) {
    c->aborted = 0;
    long long rem = end - c->nodes;
    if (end == LLONG_MAX || num >= 16) c->limit_at = end;
    else c->limit_at = c->nodes + (rem > 0 ? rem * num / 16 : 0);
    c->deadline = 0;
    if (tend > 0) {
        double now = now_s();
        c->deadline = num >= 16 ? tend : now + (tend - now) * num / 16.0;
        if (c->deadline <= now) c->deadline = 1e-9; /* already over: abort at once */
    }
    c->check_at = c->limit_at < c->nodes + TIME_CHECK ? c->limit_at : c->nodes + TIME_CHECK;
    if (tend <= 0) c->check_at = c->limit_at;
}

/* NS tricks from the current node (counting c->won), given lo <= v <= hi: MTD over the
 * target. Within a budget (node count `end`, time `tend`; LLONG_MAX / 0 for none) a
 * probe that runs out leaves its target undecided. Without c->split the job then gives
 * up (c->job_aborted). With it, MTD from the guess may use three quarters of the
 * budget (g_first); if that runs out, the rest squeezes the range from both
 * ends: probes far from the value are cheap (each step closer costs 4-30 times more
 * nodes, measured on 13-card misere deals), so each probe raises lo by one or lowers hi
 * by one, on the side whose last probe was cheaper, with a share of what is left, until
 * both sides run out. *lo_out, *hi_out: the proven bounds. Returns the lower bound (the
 * value when exact). */
static int mtd(Ctx *c, int lo, int hi, int guess, u64 *rw_out, long long end, double tend,
               int *lo_out, int *hi_out) {
    u64 rlo = 0, rhi = 0; /* rank winners behind the final lower and upper bound */
    int squeeze = 0;      /* 0: MTD from the guess; 1: squeezing */
    long long cost[2] = {0, 0};
    int stuck[2] = {0, 0};
    long long mtd_end = end;
    double mtd_tend = tend;
    if (c->split) {
        if (end != LLONG_MAX) mtd_end = c->nodes + (end - c->nodes) * g_first / 16;
        if (tend > 0) mtd_tend = now_s() + (tend - now_s()) * g_first / 16;
    }
    while (lo < hi && !c->job_aborted) {
        int t, side = 0;
        long long pend = end;
        double ptend = tend;
        if (!squeeze) {
            t = guess;
            if (t <= lo) t = lo + 1;
            if (t > hi) t = hi;
            pend = mtd_end;
            ptend = mtd_tend;
        } else {
            if (stuck[0] && stuck[1]) break;
            side = stuck[0] ? 1 : stuck[1] ? 0 : cost[1] < cost[0];
            t = side == 0 ? lo + 1 : hi;
        }
        if (end != LLONG_MAX && c->nodes >= end) break;
        if (tend > 0 && now_s() >= tend) break;
        int num = 16;
        if (squeeze && !stuck[0] && !stuck[1] && hi - lo > 1) num = g_share;
        probe_budget(c, pend, ptend, num);
        long long n0 = c->nodes;
        u64 rw;
        int v = ab(c, t, &rw);
        if (c->aborted) {
            c->aborted = 0;
            if (!c->split) {
                c->job_aborted = 1;
                break;
            }
            if (squeeze) stuck[side] = 1;
            squeeze = 1;
            continue;
        }
        if (v >= t) {
            lo = v;
            rlo = rw;
            guess = v + 1;
            cost[0] = c->nodes - n0;
        } else {
            hi = v;
            rhi = rw;
            guess = v;
            cost[1] = c->nodes - n0;
        }
    }
    c->aborted = 0;
    if (rw_out) *rw_out = rlo | rhi;
    if (lo_out) *lo_out = lo;
    if (hi_out) *hi_out = hi;
    return lo;
}

/* a first guess of NS's tricks for the driver: the share of high-card points (plus
 * 1.5 points per trump of length advantage) of the remaining tricks; misere: from NS's
 * share of the rank sum */
static int first_guess(const Ctx *c) {
    int left = c->left;
    if (c->misere) {
        /* misere: the side with the higher cards takes more tricks */
        int rs[2] = {0, 0};
        for (int p = 0; p < 4; p++) {
            u64 h = c->h[p];
            while (h) {
                int b = CTZ(h);
                h &= h - 1;
                rs[p & 1] += (b & 15) + 1;
            }
        }
        int tot = rs[0] + rs[1];
        if (tot == 0) return c->won + (left + 1) / 2;
        /* left * (1/2 + 2 * (share - 1/2)), rounded (measured: ~10 % fewer nodes than
         * left / 2 at 8 and 10 cards) */
        int num = left * (4 * rs[0] - tot) + tot;
        int g = num <= 0 ? 0 : num / (2 * tot);
        if (g > left) g = left;
        return c->won + g;
    }
    int hcp[2] = {0, 0}, tl[2] = {0, 0};
    for (int p = 0; p < 4; p++) {
        u64 h = c->h[p];
        while (h) {
            int b = CTZ(h);
            h &= h - 1;
            if ((b & 15) >= 9) hcp[p & 1] += (b & 15) - 8;
            if ((b >> 4) == c->trump) tl[p & 1]++;
        }
    }
    int total = hcp[0] + hcp[1];
    if (total == 0) return c->won + (left + 1) / 2;
    int num = left * (2 * hcp[0] + 3 * (tl[0] - tl[1]));
    int g = num <= 0 ? 0 : (num + total) / (2 * total);
    if (g > left) g = left;
    return c->won + g;
}

/* the value of the side to play within [*vlo, *vhi] (exact when equal) */
static void root_value(Ctx *c, long long end, double tend, int *vlo, int *vhi) {
    int left = c->left;
    *vlo = *vhi = 0;
    if (left == 0) return;
    int seat = (c->leader + c->pos) & 3;
    int lo, hi;
    mtd(c, c->won, c->won + left, first_guess(c), NULL, end, tend, &lo, &hi);
    if ((seat & 1) == 0) {
        *vlo = lo;
        *vhi = hi;
    } else {
        *vlo = left - hi;
        *vhi = left - lo;
    }
}

static int root_can_take(Ctx *c, int k) {
    int left = c->left;
    int seat = (c->leader + c->pos) & 3;
    if (k <= 0) return 1;
    if (k > left) return 0;
    u64 rw;
    probe_budget(c, LLONG_MAX, 0, 16);
    if ((seat & 1) == 0) return ab(c, k, &rw) >= k;
    /* EW >= k  <=>  NS <= left - k  <=>  not NS >= left - k + 1 */
    return ab(c, left - k + 1, &rw) < left - k + 1;
}

/* every legal card's value for the side to play: r->clo/chi[internal card] (-1 for a
 * card that is not a move), and the position's value in r->lo/hi. Within a budget the
 * value's search has half of it, then each card a share of what is left. */
static void root_cards(Ctx *c, long long end, double tend, Res *r) {
    for (int i = 0; i < 64; i++) r->clo[i] = r->chi[i] = -1;
    int left = c->left;
    r->lo = r->hi = 0;
    if (left == 0) return;
    int seat = (c->leader + c->pos) & 3;
    int ns = (seat & 1) == 0;
    int vlo, vhi;
    {
        long long vend = end;
        double vtend = tend;
        if (c->split && end != LLONG_MAX) vend = c->nodes + (end - c->nodes) / 2;
        if (c->split && tend > 0) vtend = now_s() + (tend - now_s()) / 2;
        root_value(c, vend, vtend, &vlo, &vhi); /* side to play */
    }
    if (c->job_aborted) return;
    Move mv[16];
    int n = gen_moves(c, mv);
    /* higher cards first (suit by suit): a lower card of a suit that holds no rank
     * winner at or below a searched card leads to a position of the same pattern, so
     * it shares that card's value (the small-card skip, at the root) */
    for (int i = 1; i < n; i++) {
        Move m = mv[i];
        int j = i - 1;
        while (j >= 0 && mv[j].card < m.card) {
            mv[j + 1] = mv[j];
            j--;
        }
        mv[j + 1] = m;
    }
    u64 hand = c->h[seat];
    if (c->pos > 0) {
        u64 f = hand & SUIT(c->tcard[c->left][0] >> 4);
        if (f) hand = f;
    }
    u64 all = c->tall[left];
    u64 skipped = 0;
    int skiplo[4] = {0, 0, 0, 0}, skiphi[4] = {0, 0, 0, 0};
    /* the best card's value, as bounds from the cards' bounds */
    int blo = c->misere ? 99 : -1, bhi = c->misere ? 99 : -1;
    for (int i = 0; i < n; i++) {
        int card = mv[i].card, s = card >> 4;
        int slo, shi;
        if ((skipped >> card) & 1) {
            slo = skiplo[s];
            shi = skiphi[s];
        } else {
            Undo u;
            int won0 = c->won;
            play(c, card, &u);
            /* NS value after this card; normal play: the card is worth at most v to the
             * side to play; misere: at least v. As NS tricks that is an upper or a
             * lower bound, true for every card. */
            int lo = c->won, hi = c->won + c->left;
            int vb = c->misere ? vlo : vhi;
            int nsb = ns ? won0 + vb : won0 + left - vb;
            int upper = ns != (c->misere != 0);
            if (upper) {
                if (nsb < hi) hi = nsb;
            } else {
                if (nsb > lo) lo = nsb;
            }
            if (hi < lo) hi = lo;
            u64 rw;
            long long cend = end;
            double ctend = tend;
            if (c->split && end != LLONG_MAX) cend = c->nodes + (end - c->nodes) / (n - i);
            if (c->split && tend > 0) ctend = now_s() + (tend - now_s()) / (n - i);
            int clo, chi;
            mtd(c, lo, hi, nsb, &rw, cend, ctend, &clo, &chi);
            if (c->pos == 0) rw |= trick_rank_winner(c, c->wcard); /* it ended the trick */
            unplay(c, card, &u);
            if (c->job_aborted) return;
            if (ns) {
                slo = clo - won0;
                shi = chi - won0;
            } else {
                slo = left - (chi - won0);
                shi = left - (clo - won0);
            }
            u64 ws = rw & SUIT(s);
            if (clo == chi && (!ws || CTZ(ws) > card)) {
                skipped |= SUIT(s) & ((1ull << card) - 1);
                skiplo[s] = slo;
                skiphi[s] = shi;
            }
        }
        if (c->misere) {
            if (slo < blo) blo = slo;
            if (shi < bhi) bhi = shi;
        } else {
            if (slo > blo) blo = slo;
            if (shi > bhi) bhi = shi;
        }
        /* the run of touching cards above `card` shares the value */
        r->clo[card] = slo;
        r->chi[card] = shi;
        int b = card;
        for (;;) {
            u64 above = all & SUIT(b >> 4) & ~((2ull << b) - 1);
            if (!above) break;
            int nb = CTZ(above);
            if (!((hand >> nb) & 1)) break;
            r->clo[nb] = slo;
            r->chi[nb] = shi;
            b = nb;
        }
    }
    r->lo = vlo > blo ? vlo : blo;
    r->hi = vhi < bhi ? vhi : bhi;
}

static int run_job(Ctx *c, const Job *j, int mode, int k, Res *r) {
    setup(c, j);
    c->aborted = 0;
    c->job_aborted = 0;
    c->split = j->split;
    long long end = j->node_limit > 0 ? c->nodes + j->node_limit : LLONG_MAX;
    double tend = j->time_limit > 0 ? now_s() + j->time_limit : 0;
    if (mode == 2) return root_can_take(c, k);
    if (mode == 0) {
        root_value(c, end, tend, &r->lo, &r->hi);
        return r->lo;
    }
    root_cards(c, end, tend, r);
    return r->lo;
}

#undef ab
#undef beats
#undef cash_from
#undef canon
#undef cut_key
#undef first_guess
#undef force
#undef greedy_cash
#undef greedy
#undef gen_moves
#undef last_trick
#undef misere_claim
#undef misere_trumps
#undef mtd
#undef order_moves
#undef safe_from
#undef play
#undef probe_budget
#undef pool_alloc
#undef top_tag
#undef pool_compact
#undef cmp_off
#undef quick_tricks
#undef rel_code
#undef root_can_take
#undef root_cards
#undef root_value
#undef run_job
#undef setup
#undef shape_of
#undef side_claim
#undef sig_cards
#undef sig_mask
#undef slot_find
#undef slot_hash
#undef sort_moves
#undef sure_losers
#undef top_run
#undef top_trumps
#undef tag_may_match
#undef code_matches
#undef run_winner
#undef trick_rank_winner
#undef tt_reset
#undef tt_store
#undef tt_store_cand
#undef unplay
#undef whole_suit
#undef MATCH_MAX
#undef NCAND
#endif /* DD_CORE */
