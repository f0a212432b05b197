/*
 * whistkit.solver._dd: misere-specific search code, included by _dd.c inside its search
 * core (once per instruction set: functions are named through FN()). Kept apart from
 * _dd.c so that misere work and normal-play work touch different files.
 *
 * Flags (g_flags, set by tests through set_flags): DD_NO_ETC switches off the enhanced
 * transposition cutoff at the fourth hand.
 */
#ifndef DD_NO_ETC
#define DD_NO_ETC (1 << 24)
#endif

/* Enhanced transposition cutoff (misere, fourth hand): every move ends the trick, so
 * each child is a trick start that the table may already decide. A move whose child the
 * table (or the trick count alone) proves to cut is tried first; the search then meets
 * the same entry at once. Returns the number of table probes made. */
static int FN(etc_order)(Ctx *c, Move *mv, int n, int target, int maxnode) {
    int probes = 0;
    for (int i = 0; i < n; i++) {
        Undo u;
        int card = mv[i].card;
        play(c, card, &u);
        int cut = 0;
        if (c->won >= target) {
            cut = maxnode;
        } else if (c->won + c->left < target) {
            cut = !maxnode;
        } else if (c->left > 1) {
            u64 all = c->h[0] | c->h[1] | c->h[2] | c->h[3];
            u64 shape = shape_of(c->h);
            Slot *sl = slot_find(c, shape, c->leader, 0);
            probes++;
            if (sl) {
                u64 code[2];
                rel_code(c->h, all, code);
                int need = target - c->won;
                Entry *base = c->pool + sl->off;
                u32 *tg = c->tags + sl->off;
                u32 ptag = top_tag(all, code[0], code[1]);
                for (int32_t k = sl->n - 1; k >= 0; k--) {
                    if (!tag_may_match(tg[k], ptag)) continue;
                    const Entry *e = &base[k];
                    if (!code_matches(e, code)) continue;
                    /* the child's value is >= target (lo) or < target (hi) */
                    if (e->lo >= need) {
                        cut = maxnode;
                        break;
                    }
                    if (e->hi < need) {
                        cut = !maxnode;
                        break;
                    }
                }
            }
        }
        unplay(c, card, &u);
        if (cut) {
            Move m = mv[i];
            for (int k = i; k > 0; k--) mv[k] = mv[k - 1];
            mv[0] = m;
            return probes;
        }
    }
    return probes;
}

static void setup(Ctx *c, const Job *j);
static int first_guess(const Ctx *c);

/* Two cores for one solve: two contexts (each with its own table) probe different
 * targets of the same position at once. Each thread runs MTD from its own guess (the
 * second one trick above the first); after every probe the proven window [lo, hi] is
 * shared, and a thread whose probe the other's result made moot abandons it. */
typedef struct {
    pthread_mutex_t mu;
    int lo, hi; /* proven bounds on NS tricks (c->won counted) */
    int probing[2];
    volatile int stop[2];
    Ctx *c[2];
    int guess;
    long long probes[2];
    long long end[2]; /* each thread's node budget: its count at the end (LLONG_MAX) */
    double tend;      /* the clock's end (0: none) */
    int squeeze;      /* a budget: squeeze from both ends instead of MTD */
} FN(Split);

typedef struct {
    FN(Split) * s;
    int me;
} FN(SplitArg);

static void *FN(split_worker)(void *arg) {
    FN(SplitArg) *a = (FN(SplitArg) *)arg;
    FN(Split) *s = a->s;
    int me = a->me, other = me ^ 1;
    Ctx *c = s->c[me];
    int g = s->guess + me;
    pthread_mutex_lock(&s->mu);
    while (s->lo < s->hi) {
        if (c->nodes >= s->end[me] || (s->tend > 0 && now_s() >= s->tend)) break;
        /* within a budget each thread squeezes the range from its end (probes far from
         * the value are cheap); without, MTD from the thread's guess */
        int t = s->squeeze ? (me ? s->hi : s->lo + 1) : g;
        if (t <= s->lo) t = s->lo + 1;
        if (t > s->hi) t = s->hi;
        if (t == s->probing[other]) {
            /* the other thread proves that one: take the next target on our side */
            int alt = me ? t + 1 : t - 1;
            if (alt <= s->lo || alt > s->hi) alt = me ? t - 1 : t + 1;
            if (alt <= s->lo || alt > s->hi) break; /* nothing left for us */
            t = alt;
        }
        s->probing[me] = t;
        s->stop[me] = 0;
        s->probes[me]++;
        pthread_mutex_unlock(&s->mu);
        /* the budget, and a look at the stop flag every TIME_CHECK nodes */
        c->aborted = 0;
        c->limit_at = s->end[me];
        c->deadline = s->tend > 0 ? s->tend : now_s() + 1e9;
        c->check_at = c->nodes + TIME_CHECK < c->limit_at ? c->nodes + TIME_CHECK : c->limit_at;
        u64 rw;
        int v = ab(c, t, &rw);
        pthread_mutex_lock(&s->mu);
        s->probing[me] = 0;
        if (c->aborted) {
            /* moot (the loop goes on), or out of budget (the loop's test ends it) */
            c->aborted = 0;
            continue;
        }
        if (v >= t) {
            if (v > s->lo) s->lo = v;
            g = v + 1;
        } else {
            if (v < s->hi) s->hi = v;
            g = v;
        }
        int ot = s->probing[other];
        if (ot && (ot <= s->lo || ot > s->hi)) s->stop[other] = 1;
    }
    s->probing[me] = 0;
    s->stop[other] = 1; /* done (or nothing to do): the other finishes or gives up */
    if (s->lo < s->hi) s->stop[other] = 0;
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* the value of job j (mode 0) on two threads: the side to play's tricks in
 * [*vlo, *vhi] (equal unless the budget ran out: j->node_limit nodes in all, half for
 * each thread, and/or j->time_limit seconds), nodes of each thread in nodes[2] */
static void FN(split_value)(Ctx *c0, Ctx *c1, const Job *j, int *vlo, int *vhi,
                            long long nodes[2], long long probes[2]) {
    FN(Split) s;
    pthread_mutex_init(&s.mu, NULL);
    s.c[0] = c0;
    s.c[1] = c1;
    setup(c0, j);
    setup(c1, j);
    c0->split = c1->split = 0;
    c0->job_aborted = c1->job_aborted = 0;
    c0->stop = &s.stop[0];
    c1->stop = &s.stop[1];
    long long n0 = c0->nodes, n1 = c1->nodes;
    s.lo = c0->won;
    s.hi = c0->won + c0->left;
    s.probing[0] = s.probing[1] = 0;
    s.stop[0] = s.stop[1] = 0;
    s.probes[0] = s.probes[1] = 0;
    s.guess = first_guess(c0);
    s.end[0] = j->node_limit > 0 ? n0 + (j->node_limit + 1) / 2 : LLONG_MAX;
    s.end[1] = j->node_limit > 0 ? n1 + j->node_limit / 2 : LLONG_MAX;
    s.tend = j->time_limit > 0 ? now_s() + j->time_limit : 0;
    s.squeeze = j->node_limit > 0 || j->time_limit > 0;
    FN(SplitArg) a0 = {&s, 0}, a1 = {&s, 1};
    pthread_t tid;
    int started = c0->left > 0 && pthread_create(&tid, NULL, FN(split_worker), &a1) == 0;
    if (c0->left > 0) FN(split_worker)(&a0);
    if (started) pthread_join(tid, NULL);
    if (!started && s.lo < s.hi) {
        /* no second thread: go on with this one, on the whole budget */
        c0->stop = NULL;
        if (j->node_limit > 0) s.end[0] = n0 + j->node_limit;
        FN(split_worker)(&a0);
    }
    c0->stop = c1->stop = NULL;
    pthread_mutex_destroy(&s.mu);
    int seat = (j->leader + j->ntrick) & 3;
    int left = c0->left;
    if ((seat & 1) == 0) {
        *vlo = s.lo;
        *vhi = s.hi;
    } else {
        *vlo = left - s.hi;
        *vhi = left - s.lo;
    }
    nodes[0] = c0->nodes - n0;
    nodes[1] = c1->nodes - n1;
    probes[0] = s.probes[0];
    probes[1] = s.probes[1];
}
